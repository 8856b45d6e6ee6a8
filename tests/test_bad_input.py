"""Bad input is refused or reported, never silently run: pass arguments TVM rejects, malformed
corpus records, and the run's time budget."""

import time

import pytest

from passfuzz.campaign.pass_arguments import argument_words, rejection, tiny_programs
from passfuzz.findings import corpus
from passfuzz.passes.names import resolve

LOSS = tiny_programs()[-1]  # the one program Gradient's contract accepts
MATMUL = tiny_programs()[0]


@pytest.mark.parametrize("text, named", [
    ("ToMixedPrecision(out_dtype=float17)", "float17"),  # builds, rewrites, and codegen refuses the dtype
    ("Gradient(mian)", "mian"),  # no such function in any module
])
def test_arguments_tvm_rejects_end_in_exit_2_with_tvms_message(run_cli, tmp_path, text, named):
    result = run_cli("--passes", text, "--max-examples", "5", "--corpus", str(tmp_path), timeout=300)
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith(f"passfuzz: error: --passes: {text}: TVM rejects it: ") and named in lines[0]
    assert not list(tmp_path.glob("*.json"))  # nothing ran


@pytest.mark.parametrize("text", [
    "ToMixedPrecision(out_dtype=float16)",  # rewrites the matmul and compiles
    "Gradient(main)",  # fails on the modules outside its contract (no 0-d result), works on the loss program
    # An invalid layout fails inside the pass with an IndexError naming no argument: whether that is
    # a bug of the pass is the fuzzer's to report, not a usage error to refuse.
    "ConvertLayout({'relax.nn.conv2d': ['NHWQ', 'OIHW']})",
    "DecomposeOpsForInference(mian)",  # TVM ignores a function it does not find: nothing rejected
])
def test_arguments_tvm_takes_are_not_rejected(text):
    assert rejection(resolve(text), ["llvm"], 20.0) == ""


def test_a_failure_outside_the_passes_contract_is_no_rejection():
    spec = resolve("Gradient(mian)")
    # On the matmul module Gradient fails naming 'mian' too, but that module is outside its
    # contract (its result is no 0-d float), so that failure says nothing of the argument.
    assert rejection(spec, ["llvm"], 20.0, [MATMUL]) == ""
    assert "mian" in rejection(spec, ["llvm"], 20.0, [LOSS])


def test_only_argument_strings_are_looked_for():
    assert argument_words(resolve("FoldConstant")) == []
    assert argument_words(resolve("ConvertLayout({'relax.nn.conv2d': ['NHWC', 'OHWI']})")) == \
        ["relax.nn.conv2d", "NHWC", "OHWI"]


# -- malformed corpus records ------------------------------------------------------------------

RECORD = "compile-error-0f540b36910c.json"  # a shipped finding that replays in about a second


def _corpus_with_malformed_records(directory):
    import shutil

    from .conftest import ROOT

    shutil.copy(ROOT / "corpus" / RECORD, directory)
    (directory / "wrong-result-aaaaaaaaaaaa.json").write_text('{"id": "x", ')  # cut short
    (directory / "compile-error-bbbbbbbbbbbb.json").write_text((ROOT / "corpus" / RECORD).read_text())  # misnamed
    return directory


def test_a_malformed_record_makes_no_bug_known_and_says_why(tmp_path):
    from passfuzz.findings.corpus import known_fingerprints, malformed

    corpus = _corpus_with_malformed_records(tmp_path)
    assert known_fingerprints(corpus) == {"0f540b36910c"}
    problems = malformed(corpus)
    assert len(problems) == 2
    assert any(line.startswith(f"{corpus / 'wrong-result-aaaaaaaaaaaa.json'}: not JSON") for line in problems)
    assert any(f"holds the record of {RECORD[:-5]}" in line for line in problems)
    (corpus / "wrong-result-aaaaaaaaaaaa.json").unlink()  # the cache follows the files
    assert len(malformed(corpus)) == 1


def test_fuzzing_warns_of_each_malformed_record_once_and_goes_on(run_cli, tmp_path):
    corpus = _corpus_with_malformed_records(tmp_path)
    result = run_cli("--passes", "FoldConstant", "--max-examples", "2", "--seed", "1", "--corpus", str(corpus),
                     timeout=300)
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "malformed record" in line]
    assert len(warnings) == 2, result.stderr
    assert any(f"{corpus / 'wrong-result-aaaaaaaaaaaa.json'}: not JSON" in line for line in warnings)
    assert all(line.startswith("passfuzz: warning: ") for line in warnings)
    assert "2 examples in" in result.stdout


def test_replay_warns_of_a_malformed_record_and_replays_the_others(run_cli, tmp_path):
    corpus = _corpus_with_malformed_records(tmp_path)
    result = run_cli("replay", str(corpus), timeout=300)
    assert result.returncode == 1, result.stderr + result.stdout  # the valid record still reproduces
    warnings = [line for line in result.stderr.splitlines() if "malformed record" in line]
    assert len(warnings) == 2 and all(line.startswith("passfuzz replay: warning: ") for line in warnings)
    assert f"REPRODUCES {corpus / RECORD}" in result.stdout
    assert "1 reproduces, 2 skipped" in result.stdout


# -- the time budget ---------------------------------------------------------------------------

def _elapsed(stderr: str) -> float:
    """The run's own count of its seconds, from its summary line 'N examples in S s'."""
    import re

    return float(re.search(r"examples in ([0-9.]+) s", stderr).group(1))


def test_the_first_line_says_when_the_run_ends_at_the_latest(run_cli, tmp_path):
    result = run_cli("--passes", "FoldConstant", "--max-time", "1", "--corpus", str(tmp_path), timeout=300)
    assert result.returncode == 0, result.stderr
    assert "(1 s, then up to 300 s to shrink and reduce what it found: at most 301 s in all," in result.stderr
    assert run_cli("--passes", "FoldConstant", "--strict-time", timeout=120).returncode == 2  # bounds nothing


def test_strict_time_bounds_the_whole_run_and_still_saves_the_finding(run_cli, tmp_path):
    # A planted wrong rewrite found in the first seconds, with a minute of shrinking and two of
    # reduction allowed per finding: without --strict-time the run would go on for minutes.
    started = time.monotonic()
    result = run_cli("--passes", "tests.planted_passes:permute_as_reshape", "--max-time", "8", "--strict-time",
                     "--shrink-time", "60", "--reduce-time", "120", "--seed", "1", "--corpus", str(tmp_path),
                     timeout=600)
    wall = time.monotonic() - started
    assert result.returncode == 1, result.stderr
    assert "(8 s in all, shrinking and reduction included," in result.stderr
    assert _elapsed(result.stdout) < 8 + 20, result.stderr  # the example in progress, on a noisy machine
    assert wall < 8 + 60  # interpreter and TVM start-up included
    [record] = tmp_path.glob("*.json")
    assert corpus.load(record).record["kind"] == "wrong-result"  # saved as far as it was shrunk, and valid

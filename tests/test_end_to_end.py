"""Planted bugs found, shrunk and saved through the real command line; controls find nothing."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from passfuzz.findings import corpus

from .conftest import ROOT

pytestmark = pytest.mark.slow
PLANTED = "tests.planted_passes:"


def records(directory):
    """The findings a run saved to ``directory``, leaving out the known ones seeded from corpus/."""
    known = {p.name for p in (ROOT / "corpus").glob("*.json")}
    return [json.loads(p.read_text()) for p in sorted(directory.glob("*.json")) if p.name not in known]


def seed_known_bugs(directory):
    """Copy corpus/'s records into ``directory``: real TVM bugs a run meets count as known."""
    for record in (ROOT / "corpus").glob("*.json"):
        shutil.copy(record, directory)


def test_planted_wrong_rewrite_is_found_shrunk_saved_and_reproduces(run_cli, tmp_path):
    result = run_cli("--passes", PLANTED + "permute_as_reshape", "--max-examples", "300", "--seed", "1", "-x",
                     "--corpus", str(tmp_path))
    assert result.returncode == 1, result.stderr
    [record] = records(tmp_path)
    assert record["kind"] == "wrong-result" and record["shrunk"]
    entry = corpus.load(tmp_path / f"{record['id']}.json")
    counts = entry.program.op_counts()
    # linear is emitted as matmul(x, permute_dims(w)): the planted rewrite breaks it as well
    assert counts.get("permute_dims", 0) + counts.get("linear", 0) == 1 and len(entry.program.nodes) <= 2, counts
    assert sum(len(p.shape) for _, p in entry.program.params) <= 3  # at most a rank-3 tensor remains

    script = subprocess.run([sys.executable, str(tmp_path / f"{record['id']}.py")], cwd=ROOT, capture_output=True,
                            text=True, timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert script.returncode == 1, script.stderr
    assert script.stdout.startswith("BUG REPRODUCES (wrong-result)") and script.stdout.count("\n") == 1

    replay = run_cli("replay", str(tmp_path))
    assert replay.returncode == 1 and replay.stdout.startswith("REPRODUCES")
    report = (tmp_path / f"{record['id']}.md").read_text()
    assert "R.permute_dims" in report and record["id"] in report


def test_corrected_pass_yields_no_finding_in_the_same_budget(run_cli, tmp_path):
    result = run_cli("--passes", PLANTED + "permute_as_reshape_fixed", "--max-examples", "300", "--seed", "1", "-x",
                     "--corpus", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "300 examples in" in result.stdout and "no new finding" in result.stdout
    assert "generator defects 0" in result.stdout
    assert records(tmp_path) == []


def test_segfaulting_pass_is_a_crash_finding_and_the_run_continues(run_cli, tmp_path):
    result = run_cli("--passes", PLANTED + "segfault_on_negative", "--max-examples", "40", "--seed", "3",
                     "--corpus", str(tmp_path))
    assert result.returncode == 1, result.stderr
    assert "40 examples in" in result.stdout and "stop: max examples reached" in result.stdout
    [record] = records(tmp_path)
    assert record["kind"] == "crash" and "SIGSEGV" in record["message"]
    assert record["stage"] == f"pass:{PLANTED}segfault_on_negative"
    assert corpus.load(tmp_path / f"{record['id']}.json").program.op_counts() == {"negative": 1}
    script = subprocess.run([sys.executable, str(tmp_path / f"{record['id']}.py")], cwd=ROOT, capture_output=True,
                            text=True, timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert script.returncode == 1 and "SIGSEGV" in script.stdout


def test_ctrl_c_stops_cleanly_with_the_finding_already_saved(tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-m", "passfuzz", "--passes", PLANTED + "permute_as_reshape", "--max-examples", "500",
         "--seed", "1", "--corpus", str(tmp_path)],
        cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)
    deadline = time.monotonic() + 300
    for line in process.stdout:  # progress (stderr) and results (stdout) in one stream
        if "saved unshrunk" in line or time.monotonic() > deadline:
            break
    process.send_signal(signal.SIGINT)
    rest = process.stdout.read()
    assert process.wait(timeout=120) == 130  # interrupted, whatever it found by then
    assert "stop: interrupted" in rest and "Traceback" not in rest
    [path] = list(tmp_path.glob("*.json"))
    assert corpus.load(path).record["kind"] == "wrong-result"
    hidden = [p for p in tmp_path.iterdir() if p.name.startswith(".") and p.name not in (".runs", ".reach")]
    assert not hidden  # no half-written files


def test_workers_share_the_budget(run_cli, tmp_path):
    result = run_cli("--passes", "FoldConstant", "--max-examples", "12", "--workers", "2", "--seed", "5",
                     "--corpus", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "12 examples in" in result.stdout


def test_random_sequences_shrink_to_the_passes_the_bug_needs(run_cli, tmp_path):
    pool = f"FoldConstant,DeadCodeElimination,LegalizeOps,CanonicalizeBindings,{PLANTED}raise_after_legalize"
    # -x: it stops at the finding; 400 is headroom (a list with the pass after LegalizeOps first came
    # at example 168 once the op catalogue grew, at 150 or less before)
    result = run_cli("--passes", "random", "--pass-pool", pool, "--max-passes", "4", "--max-examples", "400",
                     "--seed", "2", "-x", "--corpus", str(tmp_path))
    assert result.returncode == 1, result.stderr
    [record] = records(tmp_path)
    assert record["kind"] == "pass-error"
    assert record["passes"] == ["LegalizeOps", f"{PLANTED}raise_after_legalize"]
    assert record["signature"].startswith(f"pass-error | {PLANTED}raise_after_legalize |")


def test_passes_that_change_nothing_are_dropped_from_the_saved_finding(run_cli, tmp_path):
    # Normalize and CanonicalizeBindings change nothing here; LegalizeOps is what the bug needs.
    named = f"Normalize,LegalizeOps,CanonicalizeBindings,{PLANTED}raise_after_legalize"
    result = run_cli("--passes", named, "--max-examples", "20", "--seed", "4", "-x", "--corpus", str(tmp_path))
    assert result.returncode == 1, result.stderr
    [record] = records(tmp_path)
    assert record["shrunk"] and record["passes"] == ["LegalizeOps", f"{PLANTED}raise_after_legalize"]
    script = (tmp_path / f"{record['id']}.py").read_text()
    assert "Normalize" not in script and "CanonicalizeBindings" not in script


def test_planted_legalization_bug_is_a_reference_mismatch_that_blames_no_pass(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    planted = [sys.executable, "-c", "import tests.planted_legalization, sys; from passfuzz.cli import main; sys.exit(main())"]
    result = subprocess.run(planted + ["--passes", "FoldConstant", "--ops", "negative,abs,maximum,exp,sum",
                                       "--max-examples", "100", "--seed", "1", "-x", "--corpus", str(tmp_path)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    # It blames no named pass: saved and listed apart, it neither stops -x nor makes the run fail.
    assert result.returncode == 0, result.stderr
    assert "stop: max examples reached" in result.stdout and "of TVM's plain build, blaming no pass" in result.stdout
    [record] = records(tmp_path)  # every consumer of the wrong maximum is the same finding
    assert record["kind"] == "reference-mismatch" and record["passes"] == [] and record["shrunk"]
    assert "at maximum" in record["signature"]
    counts = corpus.load(tmp_path / f"{record['id']}.json").program.op_counts()
    assert {op: n for op, n in counts.items() if op != "const"} == {"maximum": 1}, counts  # constants stay inline

    script = str(tmp_path / f"{record['id']}.py")
    with_bug = subprocess.run([sys.executable, "-c", "import tests.planted_legalization, runpy, sys; "
                               f"runpy.run_path({script!r}, run_name='__main__')"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert with_bug.returncode == 1 and with_bug.stdout.startswith("BUG REPRODUCES (reference-mismatch)"), with_bug
    fixed = subprocess.run([sys.executable, script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert fixed.returncode == 0 and fixed.stdout.startswith("fixed"), fixed  # real TVM lowers maximum right


def test_planted_build_path_bug_is_found_without_passes_and_its_script_compiles_the_same_way(tmp_path):
    seed_known_bugs(tmp_path)  # the target pipeline meets a real FuseTIR bug too (apache/tvm#20194)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    planted = [sys.executable, "-c", "import tests.planted_build, sys; from passfuzz.cli import main; sys.exit(main())"]
    result = subprocess.run(planted + ["--pipeline", "target", "--ops", "negative,exp,permute_dims,sum",
                                       "--max-examples", "100", "--seed", "1", "-x", "--corpus", str(tmp_path)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 1, result.stderr
    [record] = records(tmp_path)
    assert record["kind"] == "wrong-result" and record["passes"] == [] and record["build"] == "pipeline=target"
    assert "@ pipeline=target" in record["signature"]
    assert corpus.load(tmp_path / f"{record['id']}.json").program.op_counts() == {"permute_dims": 1}

    script = str(tmp_path / f"{record['id']}.py")
    text = (tmp_path / f"{record['id']}.py").read_text()
    assert "compile_with(mod, 'llvm', {'pipeline': 'target'}, {'pipeline': [target_pipeline]})" in text
    assert "def schedule_pass(" not in text and "def target_config(" not in text  # only what pipeline=target needs
    with_bug = subprocess.run([sys.executable, "-c", "import tests.planted_build, runpy; "
                               f"runpy.run_path({script!r}, run_name='__main__')"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert with_bug.returncode == 1 and with_bug.stdout.startswith("BUG REPRODUCES (wrong-result)"), with_bug
    fixed = subprocess.run([sys.executable, script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert fixed.returncode == 0 and fixed.stdout.startswith("fixed"), fixed

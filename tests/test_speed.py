"""The slowdown oracle (--check-speed): a planted pass that makes a module slower without changing
its values is a ``slowdown`` finding, keyed on the pass and the target, whose reproducer exits 1
and prints both times; its fixed twin and a correct pass stay silent."""

import json
import re
import subprocess
import sys

import pytest

from passfuzz.campaign.engine import FuzzConfig, Fuzzer
from passfuzz.findings import corpus
from passfuzz.ir.program import Node, Param, Program
from passfuzz.judge.trial import check
from passfuzz.passes.names import resolve_list
from passfuzz.run.speed import SpeedCheck, time_sides

from .conftest import ROOT
from .test_end_to_end import records
from .test_reproducer import ENV, fixed_twin, run_scripts

SLOW = "tests.planted_speed:redundant_maximum"
X = Param((2, 3), "float32", -4, 4, [[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]])
EXP_OF_NEGATIVE = Program((X, Node("negative", (0,)), Node("exp", (1,))), (2,))
# FoldConstant folds the constant's negation and leaves main's own work alone.
FOLDABLE = Program((X, Node("const", (), {"shape": [2, 3], "dtype": "float32",
                                          "value": [[1.0, 0.5, -2.0], [3.0, 1.0, 0.0]]}),
                    Node("negative", (1,)), Node("add", (0, 2))), (3,))


def test_planted_slowdown_is_a_finding_keyed_on_pass_and_target_not_ratio():
    passes = resolve_list(SLOW)
    first, optimized = check(EXP_OF_NEGATIVE, passes, ["llvm"], 60, speed=SpeedCheck())
    again, _ = check(EXP_OF_NEGATIVE, passes, ["llvm"], 60, speed=SpeedCheck())
    assert first.finding is not None and first.finding.kind == "slowdown", first
    assert first.finding.signature == f"slowdown | {SLOW} | slower on llvm"
    assert again.finding is not None and again.finding.fingerprint == first.finding.fingerprint
    assert first.finding.message != again.finding.message  # the times differ, the fingerprint does not
    ratio, low = (float(v) for v in re.search(r"ratio ([\d.]+)x, 99% lower bound ([\d.]+)x",
                                             first.finding.message).groups())
    assert low > 1.5 and ratio >= low and first.finding.targets == ("llvm",) and optimized.changed


def test_without_check_speed_the_planted_slowdown_is_no_finding():
    verdict, _ = check(EXP_OF_NEGATIVE, resolve_list(SLOW), ["llvm"], 60)
    assert verdict.finding is None and not verdict.incomparable


@pytest.mark.parametrize("passes", ["FoldConstant", SLOW + "_fixed"])
def test_correct_passes_are_not_slower(passes):
    program = FOLDABLE if passes == "FoldConstant" else EXP_OF_NEGATIVE
    for _ in range(3):
        verdict, optimized = check(program, resolve_list(passes), ["llvm"], 60, speed=SpeedCheck())
        assert verdict.finding is None and not verdict.incomparable, verdict
    assert optimized.changed == (passes == "FoldConstant")  # FoldConstant's module is timed, the twin's needs not


def test_a_higher_threshold_than_the_slowdown_is_silent():
    verdict, _ = check(EXP_OF_NEGATIVE, resolve_list(SLOW), ["llvm"], 60, speed=SpeedCheck(threshold=1000.0))
    assert verdict.finding is None


def test_slowdown_script_prints_both_times_and_exits_1_until_fixed(tmp_path, run_cli):
    passes = resolve_list(SLOW)
    verdict, optimized = check(EXP_OF_NEGATIVE, passes, ["llvm"], 60, speed=SpeedCheck())
    fuzzer = Fuzzer(FuzzConfig(passes=passes, targets=["llvm"], corpus_dir=tmp_path, speed=SpeedCheck()))
    path = fuzzer.save(verdict.finding, EXP_OF_NEGATIVE, list(verdict.finding.passes), shrunk=True,
                       optimized=optimized)
    record = json.loads(path.read_text())
    assert record["kind"] == "slowdown" and record["slowdown_threshold"] == 1.5
    script = path.with_suffix(".py")
    text = script.read_text()
    assert "def compare_speed(" in text and "def ratio_interval(" in text  # copied, not written in strings
    assert "import passfuzz" not in text and "from passfuzz" not in text
    assert path.with_suffix(".md").read_text().startswith("# [Bug][Relax] module 1.5x slower or more after")
    bug, fixed = run_scripts(script, fixed_twin(script, "redundant_maximum", "redundant_maximum_fixed"))
    assert bug.returncode == 1 and bug.stdout.startswith("BUG REPRODUCES (slowdown): optimized "), bug
    assert re.search(r"optimized [\d.]+ ms, original [\d.]+ ms .*ratio [\d.]+x, 99% lower bound", bug.stdout)
    assert fixed.returncode == 0 and fixed.stdout.startswith("fixed: not slower"), fixed

    replay = run_cli("replay", str(path))
    assert replay.returncode == 1 and replay.stdout.startswith("REPRODUCES"), replay.stdout + replay.stderr


def test_a_slowdown_record_needs_its_threshold(tmp_path):
    passes = resolve_list(SLOW)
    verdict, optimized = check(EXP_OF_NEGATIVE, passes, ["llvm"], 60, speed=SpeedCheck())
    fuzzer = Fuzzer(FuzzConfig(passes=passes, targets=["llvm"], corpus_dir=tmp_path, speed=SpeedCheck()))
    path = fuzzer.save(verdict.finding, EXP_OF_NEGATIVE, list(verdict.finding.passes), shrunk=True,
                       optimized=optimized)
    record = json.loads(path.read_text())
    del record["slowdown_threshold"]
    with pytest.raises(corpus.CorpusError, match="slowdown_threshold"):
        corpus.validate(record, path)
    record.update(kind="wrong-result", slowdown_threshold=1.5)  # only a slowdown has one
    with pytest.raises(corpus.CorpusError):
        corpus.validate(record, path)


@pytest.mark.slow
def test_planted_slowdown_is_found_shrunk_saved_and_reproduces(run_cli, tmp_path):
    result = run_cli("--passes", SLOW, "--check-speed", "--ops", "negative,exp,add,multiply", "--max-examples", "20",
                     "--seed", "1", "-x", "--shrink-time", "5", "--reduce-time", "20", "--corpus", str(tmp_path))
    assert result.returncode == 1, result.stderr
    [record] = records(tmp_path)
    assert record["kind"] == "slowdown" and record["shrunk"] and record["passes"] == [SLOW], record
    assert len(corpus.load(tmp_path / f"{record['id']}.json").program.nodes) <= 2  # reduced (one op shows it)
    script = subprocess.run([sys.executable, str(tmp_path / f"{record['id']}.py")], cwd=ROOT, capture_output=True,
                            text=True, timeout=300, env=ENV)
    assert script.returncode == 1 and script.stdout.startswith("BUG REPRODUCES (slowdown)"), script


@pytest.mark.slow
def test_correct_pass_with_check_speed_stays_silent(run_cli, tmp_path):
    result = run_cli("--passes", "FoldConstant", "--check-speed", "--max-examples", "40", "--seed", "2",
                     "--corpus", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert [r for r in records(tmp_path) if r["kind"] == "slowdown"] == []


def test_slowdown_threshold_must_be_above_one_and_goes_with_check_speed(run_cli, tmp_path):
    low = run_cli("--passes", "FoldConstant", "--check-speed", "--slowdown-threshold", "0.9", "--corpus", str(tmp_path))
    alone = run_cli("--passes", "FoldConstant", "--slowdown-threshold", "2", "--corpus", str(tmp_path))
    assert low.returncode == 2 and "--slowdown-threshold must be above 1" in low.stderr
    assert alone.returncode == 2 and "goes with --check-speed" in alone.stderr


def test_a_changed_calling_convention_is_not_timed():
    # LiftTransformParams moves the weights' transform out of main on purpose: timing it per call
    # against the original's main would blame the pass for work a caller does once.
    from .test_calling import LIFTABLE

    passes = resolve_list("LiftTransformParams")
    assert time_sides(LIFTABLE, passes, ["llvm"], 60, SpeedCheck()) == {}
    assert time_sides(EXP_OF_NEGATIVE, resolve_list(SLOW), ["llvm"], 60, SpeedCheck())["llvm"]["slower"]

"""The known-bug baseline: shipped with the package, in step with corpus/, and a bug in it never
stops a run or counts as new, wherever passfuzz runs."""

import json

import pytest
import tvm

from passfuzz.findings import known_bugs
from passfuzz.judge.finding import fingerprint, normalize_error
from passfuzz.passes.names import resolve_list

from .conftest import ROOT

PLANTED = "tests.planted_passes:"


def test_the_shipped_baseline_is_the_triaged_corpus():
    shipped, derived = known_bugs.shipped(tvm.__version__), known_bugs.from_corpus(ROOT / "corpus")
    assert {bug.id: bug for bug in shipped.bugs} == {bug.id: bug for bug in derived.bugs}, \
        "run `passfuzz known --write-baseline corpus` after changing corpus/"
    assert shipped.faults == derived.faults, "run `passfuzz known --write-baseline corpus` after changing corpus/"


def test_every_corpus_record_shows_a_triaged_fault():
    for bug in known_bugs.from_corpus(ROOT / "corpus").bugs:
        assert bug.fault and bug.what, f"{bug.id}: no fault in corpus/faults/ lists it"


def test_a_release_without_a_baseline_knows_nothing():
    assert not known_bugs.shipped("0.9.0")
    assert known_bugs.release("0.27.0.post1") == "0.27"


def test_known_bugs_options_name_what_they_load(tmp_path):
    assert not known_bugs.load("none", tvm.__version__)
    assert {b.id for b in known_bugs.load(str(ROOT / "corpus"), tvm.__version__).bugs} == \
        {b.id for b in known_bugs.shipped(tvm.__version__).bugs}
    with pytest.raises(known_bugs.BaselineError, match="no such file"):
        known_bugs.load(str(tmp_path / "missing.json"), tvm.__version__)
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(known_bugs.BaselineError, match="not a known-bug baseline"):
        known_bugs.load(str(tmp_path / "bad.json"), tvm.__version__)


def planted_error_baseline(path):
    """A baseline naming the one bug the planted pass ``raise_always`` has."""
    passes = resolve_list(PLANTED + "raise_always")
    detail = f"pass:{PLANTED}raise_always " + normalize_error("ValueError: unsupported pattern in block 3")
    fp, _ = fingerprint("pass-error", passes, detail)
    bug = known_bugs.KnownBug(f"pass-error-{fp}", "pass-error", fp, (PLANTED + "raise_always",), "planted", "")
    known_bugs.write(known_bugs.Baseline((bug,)), path, tvm.__version__)
    return path


@pytest.mark.slow
def test_a_baseline_bug_does_not_stop_x_in_an_empty_corpus(run_cli, tmp_path):
    baseline = planted_error_baseline(tmp_path / "baseline.json")
    args = ["--passes", PLANTED + "raise_always", "--max-examples", "6", "--seed", "1", "-x"]
    known = run_cli(*args, "--corpus", str(tmp_path / "known"), "--known-bugs", str(baseline))
    assert known.returncode == 0, known.stderr
    assert "known bugs hit 6" in known.stdout and "no new finding" in known.stdout
    fp = json.loads(baseline.read_text())["bugs"][0]["fingerprint"]
    assert f"  {fp}: 6 hits" in known.stdout, known.stdout  # a fingerprint of no fault is named by itself
    assert not list((tmp_path / "known").glob("*.json"))
    # the control: the same run without the baseline stops at the bug
    unknown = run_cli(*args, "--corpus", str(tmp_path / "unknown"), "--known-bugs", "none")
    assert unknown.returncode == 1, unknown.stderr
    [record] = [json.loads(p.read_text()) for p in (tmp_path / "unknown").glob("*.json")]
    assert record["fingerprint"] == json.loads(baseline.read_text())["bugs"][0]["fingerprint"]


def test_known_lists_the_shipped_faults_and_counts_them(run_cli):
    result = run_cli("known", "--records", timeout=120)
    assert result.returncode == 0, result.stderr
    baseline = known_bugs.shipped(tvm.__version__)
    ids = {line.split()[0] for line in result.stdout.splitlines() if line.strip()}  # ids never wrap
    assert {fault.id for fault in baseline.faults} | {bug.id for bug in baseline.bugs} <= ids
    counted = sum(fault.counted for fault in baseline.faults)
    assert f"passfuzz known: {counted} distinct fault" in result.stdout
    assert f"in {sum(fault.records for fault in baseline.faults)} records" in result.stdout


def test_known_shows_one_fault_by_its_id_a_record_or_a_fingerprint(run_cli):
    baseline = known_bugs.shipped(tvm.__version__)
    bug = next(bug for bug in baseline.bugs if bug.fault)
    for name in (bug.fault, bug.id, bug.fingerprint):
        result = run_cli("known", name, timeout=120)
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith(f"{bug.fault}: [Bug]") and f"record {bug.id}: " in result.stdout
    unknown = run_cli("known", "no-such-fault", timeout=120)
    assert unknown.returncode == 2 and "no known fault" in unknown.stderr
    machine = json.loads(run_cli("known", "--json", timeout=120).stdout)
    assert {f["id"] for f in machine["faults"]} == {f.id for f in baseline.faults}

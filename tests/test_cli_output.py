"""Output through the real command line: findings and the summary on stdout, progress and notes on
stderr; -q and -v; --json (checked against its schema) and --junit-xml, written when the run ends
and when Ctrl-C interrupts it."""

import json
import os
import signal
import subprocess
import sys
import time
from xml.etree import ElementTree

import jsonschema
import pytest

from passfuzz.cli.results import schema

from .conftest import ROOT

PLANTED = "tests.planted_passes:"


def test_findings_and_summary_go_to_stdout_and_progress_to_stderr_and_results_to_files(run_cli, tmp_path):
    buggy, unchanged = PLANTED + "permute_as_reshape", PLANTED + "leave_unchanged"
    result = run_cli("--passes", f"{buggy},{unchanged}", "--max-examples", "8", "--seed", "1", "--shrink-time", "3",
                     "--reduce-time", "3", "--known-bugs", "none", "--corpus", str(tmp_path / "c"),
                     "--json", str(tmp_path / "r.json"), "--junit-xml", str(tmp_path / "r.xml"))
    assert result.returncode == 1, result.stderr
    assert "passfuzz: 8 examples in" in result.stdout and "1 new finding:" in result.stdout
    assert "new finding wrong-result" in result.stdout and "reproduce: python" in result.stdout
    assert "passfuzz: fuzzing" in result.stderr and "examples in" not in result.stderr  # notes, not results

    document = json.loads((tmp_path / "r.json").read_text())
    jsonschema.validate(document, schema())
    assert document["status"] == 1 and document["examples"] == 8 and not document["interrupted"]
    [finding] = document["findings"]
    assert finding["kind"] == "wrong-result" and finding["passes"][-1] == buggy
    assert os.path.exists(finding["record"]) or (tmp_path / "c" / f"{finding['id']}.json").exists()
    assert finding["reproduce"] == f"python {finding['record'][:-5]}.py"

    suite = ElementTree.parse(tmp_path / "r.xml").getroot()
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert set(cases) == {buggy, unchanged} and suite.get("failures") == "1" and suite.get("skipped") == "1"
    failure = cases[buggy].find("failure")
    assert failure is not None and finding["reproduce"] in failure.text and finding["id"] in failure.get("message")
    assert cases[unchanged].find("failure") is None and cases[unchanged].find("skipped") is not None


def test_a_clean_run_passes_its_testcase_and_quiet_prints_only_the_summary(run_cli, tmp_path):
    fixed = PLANTED + "permute_as_reshape_fixed"
    result = run_cli("-q", "--passes", fixed, "--max-examples", "4", "--seed", "1", "--corpus", str(tmp_path / "c"),
                     "--json", str(tmp_path / "r.json"), "--junit-xml", str(tmp_path / "r.xml"))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.startswith("passfuzz: 4 examples in") and "no new finding" in result.stdout
    document = json.loads((tmp_path / "r.json").read_text())
    assert document["status"] == 0 and document["findings"] == []
    [case] = ElementTree.parse(tmp_path / "r.xml").getroot().iter("testcase")
    assert case.get("name") == fixed and list(case) == []  # passed: neither failure nor skipped


def test_verbose_prints_progress_more_often_and_quiet_and_verbose_exclude_each_other(run_cli, tmp_path):
    both = run_cli("-q", "-v", "--passes", "FoldConstant", "--corpus", str(tmp_path / "c"), timeout=120)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    verbose = run_cli("-v", "--passes", "FoldConstant", "--max-time", "14", "--strict-time", "--seed", "1",
                      "--corpus", str(tmp_path / "c"))
    assert verbose.returncode == 0, verbose.stderr
    progress = [line for line in verbose.stderr.splitlines() if line.startswith("0:00:")]
    assert len(progress) >= 2, verbose.stderr  # every 5 s, where 30 s would give only the first


def test_a_results_file_in_a_missing_directory_is_a_usage_error_before_the_run(run_cli, tmp_path):
    result = run_cli("--passes", "FoldConstant", "--json", str(tmp_path / "nowhere" / "r.json"),
                     "--corpus", str(tmp_path / "c"), timeout=120)
    assert result.returncode == 2 and "--json" in result.stderr and "no such directory" in result.stderr
    assert not (tmp_path / "c").exists()


def test_ctrl_c_writes_the_results_of_what_was_done(tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-m", "passfuzz", "--passes", "FoldConstant", "--max-examples", "1000", "--seed", "1",
         "--json", "r.json", "--junit-xml", "r.xml"],
        cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while not list(tmp_path.glob("corpus/.runs/*/worker-0.json")):  # fuzzing began
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, err
    assert "stop: interrupted" in out
    document = json.loads((tmp_path / "r.json").read_text())
    jsonschema.validate(document, schema())
    assert document["interrupted"] and document["status"] == 130 and document["run_dir"]
    suite = ElementTree.parse(tmp_path / "r.xml").getroot()
    assert suite.find("properties/property[@name='stop_reason']").get("value") == "interrupted"
    assert "passfuzz --resume" in suite.find("system-out").text


@pytest.mark.parametrize("option", ["--json", "--junit-xml"])
def test_the_results_files_are_explained_in_the_help(run_cli, option):
    result = run_cli("--help", timeout=120)
    assert option in result.stdout and "-q, --quiet" in result.stdout and "-v, --verbose" in result.stdout


def test_junit_fails_no_testcase_for_a_bug_of_the_plain_build_and_lists_it_apart():
    from passfuzz.cli.results import junit_xml

    bug = {"id": "reference-mismatch-0123456789ab", "kind": "reference-mismatch", "fingerprint": "0123456789ab",
           "record": "c/reference-mismatch-0123456789ab.json", "unshrunk": False,
           "reproduce": "python c/reference-mismatch-0123456789ab.py", "passes": []}
    document = {"build": "", "pass_fire_rates": {"FoldConstant": {"runs": 4, "fired": 2}}, "findings": [],
                "unblamed": [bug], "outside_contract": [], "interrupted": False, "elapsed": 1.0,
                "passfuzz_version": "0", "tvm_version": "0", "seed": 1, "stop_reason": "done", "examples": 4,
                "known": 0, "run_dir": "r"}
    suite = ElementTree.fromstring(junit_xml(document, ("FoldConstant",), None))
    [case] = suite.iter("testcase")
    assert list(case) == [] and suite.get("failures") == "0"
    assert "plain-build bug: reference-mismatch-0123456789ab  reproduce: python" in suite.find("system-out").text
    # the control: the same bug blaming the named pass fails its testcase
    blamed = dict(document, unblamed=[], findings=[dict(bug, passes=["FoldConstant"])])
    suite = ElementTree.fromstring(junit_xml(blamed, ("FoldConstant",), None))
    assert suite.get("failures") == "1" and next(suite.iter("testcase")).find("failure") is not None

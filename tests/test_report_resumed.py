"""`passfuzz report` on a resumed run: its segments joined on one time axis (counts held where the
rounds lost at the stop are run again), examples per second, findings and known hits over time, and
the findings listed in the HTML with their reproduce commands."""

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from passfuzz.campaign.run_log import joined, read
from passfuzz.cli.run_report import rates

from .conftest import ROOT


def line(elapsed, examples, final=False, **counts):
    return {"elapsed": elapsed, "final": final, "examples": examples, "shrink_runs": 0, "findings": 0, **counts}


def test_segments_are_joined_on_one_time_axis_and_counts_never_dip():
    first = [line(0, 0), line(5, 10, findings=1), line(9, 18, findings=1, final=True)]
    # resumed: a placeholder start line, then the run's counts from its last round boundary (15 < 18)
    second = [line(0, 0), line(5, 15, findings=1), line(10, 30, findings=2, final=True)]
    lines, resumed_at = joined(first + second)
    assert resumed_at == [9]
    assert [x["elapsed"] for x in lines] == [0, 5, 9, 14, 19]
    assert [x["examples"] for x in lines] == [0, 10, 18, 18, 30]  # the redone rounds: time without progress
    assert [x["findings"] for x in lines] == [0, 1, 1, 1, 2]


def test_a_run_never_resumed_is_left_as_it_is():
    lines = [line(0, 0), line(5, 10), line(10, 20, final=True)]
    assert joined(lines) == (lines, [])


def test_the_rate_follows_the_examples_per_second():
    lines = [line(t, 2 * t) for t in range(0, 600, 5)] + [line(t, 1200 + (t - 600) // 5) for t in range(600, 1200, 5)]
    points = dict(rates(lines))
    assert points[5 / 60] == pytest.approx(2.0) and points[595 / 60] == pytest.approx(2.0)
    assert points[1195 / 60] == pytest.approx(0.2)  # a minute after the slowdown, only the slow part counts


def test_report_of_an_interrupted_and_resumed_run_lists_its_finding_and_joins_its_log(run_cli, tmp_path):
    args = ["--passes", "tests.planted_passes:permute_as_reshape", "--max-examples", "120", "--seed", "1",
            "--shrink-time", "2", "--reduce-time", "2", "--known-bugs", "none", "--corpus", str(tmp_path / "c")]
    process = subprocess.Popen([sys.executable, "-m", "passfuzz", *args], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=dict(os.environ, PYTHONPATH=str(ROOT)), text=True,
                               start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        for output in process.stdout:  # the finding, shrunk and saved
            if output.startswith("  reproduce: ") or time.monotonic() > deadline:
                break
        time.sleep(6)  # a run-log line after it
        os.killpg(process.pid, signal.SIGINT)
        process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130
    [run_dir] = (tmp_path / "c" / ".runs").iterdir()
    resumed = run_cli("--resume", str(run_dir))
    assert resumed.returncode == 1, resumed.stderr  # its finding, saved before the stop, is the run's

    lines, resumed_at = joined(read(run_dir)[0])
    assert len(resumed_at) == 1 and lines[-1]["final"] and lines[-1]["examples"] == 120
    for before, after in zip(lines, lines[1:]):
        assert after["elapsed"] >= before["elapsed"] and after["examples"] >= before["examples"]

    report = run_cli("report", str(run_dir), "--out", str(tmp_path / "r.html"), timeout=300)
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "r.html").read_text()
    [record] = (tmp_path / "c").glob("wrong-result-*.json")
    assert f"python {str(record)[:-5]}.py" in page and record.stem in page
    assert "resumed 1 time" in page
    assert run_cli("report", str(run_dir), timeout=300).returncode == 0
    assert (run_dir / "report.png").stat().st_size > 0

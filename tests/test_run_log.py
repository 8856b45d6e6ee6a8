"""The run log (<corpus>/.runs/<run>/log.jsonl), `passfuzz report`, and the live display.

One short real run gives a log whose last line must agree with the run's summary: each example
draws one pass, FoldConstant (fire rates) or a planted pass that refuses every module (a finding
at once, shrunk and reduced, then known hits).
"""

import dataclasses
import io
import json
import os
import re
import subprocess
import sys
import time
from types import SimpleNamespace

import jsonschema
import pytest
from rich.console import Console as RichConsole

from passfuzz.campaign.engine import FuzzConfig
from passfuzz.campaign.events import ExampleChecked
from passfuzz.campaign.run_log import LOG_NAME, RunLog, memory, read, schema
from passfuzz.campaign.stats import Stats
from passfuzz.cli import main
from passfuzz.cli.output import Console
from passfuzz.cli.run_report import figure, final_figures

from .conftest import ROOT

POOL = "FoldConstant,tests.planted_passes:raise_always"


@pytest.fixture(scope="module")
def short_run(tmp_path_factory):
    corpus = tmp_path_factory.mktemp("corpus")
    result = subprocess.run(
        [sys.executable, "-m", "passfuzz", "--passes", "random", "--pass-pool", POOL, "--max-passes", "1",
         "--max-examples", "10", "--seed", "2",
         "--shrink-time", "2", "--reduce-time", "3", "--known-bugs", "none", "--corpus", str(corpus)],
        cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, timeout=600)
    assert result.returncode == 1, result.stderr  # the planted bug is a new finding
    (run_dir,) = (corpus / ".runs").iterdir()
    return SimpleNamespace(run_dir=run_dir, summary=result.stdout, corpus=corpus)


def _summary(text: str) -> dict:
    first = re.search(r"passfuzz: (\d+) examples in [\d.]+ s \([\d.]+/s\), (\d+) shrink runs; stop: ([^;]+);", text)
    second = re.search(r"incomparable (\d+); known bugs hit (\d+); generator defects (\d+)", text)
    found = re.search(r"(\d+) new findings?:", text)
    fire_rates = text.split("fire rate (examples where the pass changed the module): ")[1].splitlines()[0]
    rates = re.findall(r"(\S+) (\d+)% of (\d+)", fire_rates)
    return {"passes": {name: (int(rate), int(runs)) for name, rate, runs in rates},
            "examples": int(first[1]), "shrink_runs": int(first[2]), "stop_reason": first[3],
            "incomparable": int(second[1]), "known": int(second[2]), "generator_defects": int(second[3]),
            "findings": int(found[1]) if found else 0}


def test_a_run_logs_valid_lines_that_agree_with_its_summary(short_run):
    raw = (short_run.run_dir / LOG_NAME).read_text().splitlines()
    validator = jsonschema.Draft7Validator(schema())
    for row in raw:
        validator.validate(json.loads(row))
    lines, warnings = read(short_run.run_dir)
    assert not warnings and len(lines) == len(raw) >= 2
    assert [line["final"] for line in lines] == [False] * (len(lines) - 1) + [True]
    for before, after in zip(lines, lines[1:]):
        assert after["elapsed"] >= before["elapsed"]
        for name in ("examples", "shrink_runs", "findings", "known"):
            assert after[name] >= before[name]
    last = lines[-1]
    summary = _summary(short_run.summary)
    counts = {name: value for name, value in summary.items() if name != "passes"}
    assert {name: last[name] for name in counts} == counts
    assert {name: (round(100 * figures["rate"]), figures["runs"]) for name, figures in last["passes"].items()} \
        == summary["passes"] and summary["passes"]["FoldConstant"][1] > 0
    assert last["findings"] == 1 and last["shrink_runs"] > 0  # known hits are compared with the summary above
    assert 0 < last["seconds_shrinking"] and 0 < last["seconds_generating"] <= last["elapsed"]
    assert last["memory_source"] == "proc" and last["rss_bytes"] > 50 * 2**20


def test_report_draws_six_plots_into_a_png_and_an_html_page(short_run, tmp_path):
    lines, _ = read(short_run.run_dir)
    fig = figure(lines)
    assert len(fig.axes) == 6
    for axes in fig.axes:  # each holds data: lines, areas, dots or bars
        assert axes.lines or axes.collections or axes.patches, axes.get_title()
    assert main(["report", str(short_run.run_dir)]) == 0
    png = (short_run.run_dir / "report.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 20_000
    page = tmp_path / "run.html"
    assert main(["report", str(short_run.run_dir), "--out", str(page)]) == 0
    text = page.read_text()
    assert '<img alt=' in text and "data:image/png;base64,iVBOR" in text  # the PNG, embedded
    assert f"<th>examples</th><td>{lines[-1]['examples']} (" in text
    assert dict(final_figures(lines))["new findings"] == "1"


def _log_with(tmp_path, text: str):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / LOG_NAME).write_text(text)
    return run_dir


def _a_line(**changes) -> str:
    line = {"format_version": 1, "time": "2026-01-01T00:00:00.000+00:00", "elapsed": 1.0, "final": False,
            "stop_reason": "", "examples": 3, "shrink_runs": 0, "findings": 0, "unblamed": 0, "outside_contract": 0,
            "known": 0, "generator_defects": 0, "incomparable": 0, "fired": 1,
            "passes": {"FoldConstant": {"runs": 3, "fired": 1, "rate": 1 / 3}}, "examples_per_second": 3.0,
            "recent_examples_per_second": 3.0, "seconds_generating": 0.9, "seconds_shrinking": 0.0,
            "rss_bytes": 2**28, "children_rss_bytes": 0, "children": 0, "memory_source": "proc"}
    return json.dumps({**line, **changes})


@pytest.mark.parametrize("make, expected", [
    (lambda tmp: tmp / "nothing", "no such run directory"),
    (lambda tmp: tmp, "cannot read"),  # a directory without log.jsonl
    (lambda tmp: _log_with(tmp, ""), "the run log is empty"),
    (lambda tmp: _log_with(tmp, "{garbage\n" + _a_line() + "\n"), "line 1 is not a run log line: not JSON"),
    (lambda tmp: _log_with(tmp, _a_line(examples=-1) + "\n"), "field examples"),
    (lambda tmp: _log_with(tmp, _a_line()[:40]), "the run log is empty"),  # only a cut line: nothing to plot
])
def test_a_bad_run_dir_is_one_line_and_exit_2(tmp_path, capsys, make, expected):
    assert main(["report", str(make(tmp_path))]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("passfuzz report: error:") and expected in err and "\n" not in err


def test_a_truncated_last_line_is_skipped_with_a_warning(tmp_path, capsys):
    run_dir = _log_with(tmp_path, _a_line() + "\n" + _a_line(elapsed=6.0, examples=9) + "\n" + _a_line()[:50])
    assert main(["report", str(run_dir), "--out", str(tmp_path / "r.png")]) == 0
    assert "skipped the truncated last line 3" in capsys.readouterr().err
    assert (tmp_path / "r.png").read_bytes().startswith(b"\x89PNG")
    assert main(["report", str(run_dir), "--out", str(tmp_path / "r.pdf")]) == 2


def test_the_log_keeps_coming_while_no_event_does(tmp_path):
    """An example or a reduction may run a minute without an event: the timer writes anyway,
    the latest figures; the final line holds the final statistics."""
    stats = Stats(examples=4, pass_runs={"FoldConstant": 4}, pass_fired={"FoldConstant": 2})
    log = RunLog(tmp_path / "run" / LOG_NAME, interval=0.05)
    log.handle(ExampleChecked(stats))  # before the timer starts: every timer line holds it
    with log:
        time.sleep(0.5)  # no event meanwhile
        stats.examples, stats.findings = 6, {"a": "a.json"}
        log.finish(stats)
    lines, _ = read(tmp_path / "run")
    assert len(lines) >= 5 and lines[0]["examples"] == 0
    assert {line["examples"] for line in lines[1:-1]} == {4}
    assert lines[-1]["final"] and lines[-1]["examples"] == 6 and lines[-1]["findings"] == 1
    assert lines[-1]["passes"] == {"FoldConstant": {"runs": 4, "fired": 2, "rate": 0.5}}


def test_memory_counts_live_children():
    child = subprocess.Popen([sys.executable, "-c", "import time; b = bytearray(64 << 20); time.sleep(30)"])
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            measured = memory()
            if measured["children_rss_bytes"] > 64 << 20:
                break
            time.sleep(0.1)
        assert measured["children"] >= 1 and measured["children_rss_bytes"] > 64 << 20
        assert measured["rss_bytes"] > 0 and measured["memory_source"] == "proc"
    finally:
        child.kill()
        child.wait()


def _config():
    return FuzzConfig(passes=None, targets=["llvm"], pass_pool=["FoldConstant", "FuseOps"], max_examples=100,
                      seed=7)


def _stats():
    return Stats(examples=17, known=3, generator_defects=2, incomparable=1, shrink_runs=5,
                 findings={"crash-0123456789ab": "corpus/crash-0123456789ab.json"},
                 pass_runs={"FoldConstant": 10, "FuseOps": 4}, pass_fired={"FoldConstant": 7})


def test_the_live_display_shows_the_numbers_on_a_terminal(tmp_path):
    screen = io.StringIO()
    console = Console(terminal=RichConsole(force_terminal=True, file=screen, width=200), out=screen)
    console.start(dataclasses.replace(_config(), run_dir=tmp_path / "run"), 1)
    console.handle(ExampleChecked(_stats()))
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen.getvalue())  # the display, without its escapes
    for text in ("17 examples", "17 of 100 examples", "findings 1", "known 3", "generator defects 2",
                 "incomparable 1", "shrink runs 5", f"run log: {tmp_path / 'run'}/log.jsonl"):
        assert text in shown
    assert re.search(r"FoldConstant +70% +10", shown) and re.search(r"FuseOps +0% +4", shown)
    console.summary(_stats(), _config())
    assert "passfuzz: 17 examples in" in screen.getvalue()


def test_plain_output_off_a_terminal_is_lines_without_escapes():
    stream = io.StringIO()
    console = Console(stream)
    assert not console.live
    console.start(_config(), 1)
    console.handle(ExampleChecked(_stats()))
    console.handle(ExampleChecked(_stats()))  # within 30 s of the one before: not shown
    console.summary(_stats(), _config())
    text = stream.getvalue()
    assert "\x1b" not in text and "\r" not in text
    lines = text.splitlines()
    assert lines[0].startswith("passfuzz: fuzzing random sequences of up to 4 of 2 passes on llvm (100 examples, "
                               "1 worker, seed 7)")
    assert re.fullmatch(r"0:00:00  17 examples  [\d.]+/s  findings 1  known 3  generator defects 2", lines[1])
    assert re.fullmatch(r"passfuzz: 17 examples in [\d.]+ s \([\d.]+/s\), 5 shrink runs; stop: done; seed None",
                        lines[2])
    assert lines[3:] == [
        "the passes changed the module in 0% of examples; incomparable 1; known bugs hit 3; generator defects 2",
        "fire rate (examples where the pass changed the module): FoldConstant 70% of 10, FuseOps 0% of 4",
        "1 new finding:",
        "  corpus/crash-0123456789ab.json    reproduce: python corpus/crash-0123456789ab.py",
    ]


def test_report_help_explains_its_options(capsys):
    with pytest.raises(SystemExit) as exit_status:
        main(["report", "--help"])
    assert exit_status.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # as wrapped to any width
    for words in ("RUN_DIR", "log.jsonl", "--out FILE.png|FILE.html", "table of the final figures", "Exit status"):
        assert words in text


def test_workers_time_adds_up():
    total, worker = Stats(seconds_generating=1.5, seconds_shrinking=2.0), Stats(seconds_generating=3.0)
    total.merge(worker)
    assert (total.seconds_generating, total.seconds_shrinking) == (4.5, 2.0)

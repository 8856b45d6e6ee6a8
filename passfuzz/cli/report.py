"""``passfuzz report RUN_DIR``: a run's log as plots, in a PNG or an HTML page."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import Parser, UsageError

DEFAULT_NAME = "report.png"


def parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="passfuzz report",
        description="Plot a fuzzing run from its run log (RUN_DIR/log.jsonl, a line every few seconds): examples, "
                    "examples per second, and new findings and known hits over time, the fire rate of each pass, "
                    "time spent checking fresh examples against shrinking and reducing, and resident memory over "
                    "time. A resumed run's segments are joined on one time axis. An HTML report also lists the "
                    "findings with the commands that reproduce them. A run's directory is "
                    "<corpus>/.runs/<run id>/.",
        epilog="Exit status: 0 written; 2 a missing, empty or garbled run log, or a bad --out. A truncated last "
               "line (a run killed mid-write) is skipped with a warning.")
    p.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="the run's directory, holding log.jsonl")
    p.add_argument("--out", type=Path, metavar="FILE.png|FILE.html",
                   help="where to write: a .png holds the six plots in one figure; an .html page holds that "
                        "picture, a table of the final figures and the findings with their reproduce commands "
                        f"(default: RUN_DIR/{DEFAULT_NAME})")
    return p


def run(args: argparse.Namespace) -> int:
    from passfuzz.campaign.run_log import RunLogError, read

    out = args.out or args.run_dir / DEFAULT_NAME
    if out.suffix.lower() not in (".png", ".html"):
        raise UsageError(f"--out {out}: give a .png or an .html file")
    try:
        lines, warnings = read(args.run_dir)
    except RunLogError as exc:
        raise UsageError(str(exc)) from None
    for warning in warnings:
        print(f"passfuzz report: warning: {warning}", file=sys.stderr)
    from passfuzz.campaign.run_log import joined
    from passfuzz.campaign.runs import findings_saved

    from .run_report import write  # matplotlib: only once there is something to plot

    lines, resumed_at = joined(lines)
    try:
        write(lines, out, f"passfuzz run {args.run_dir.resolve().name}", resumed_at, findings_saved(args.run_dir))
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write: {exc.strerror}") from None
    print(out)
    return 0

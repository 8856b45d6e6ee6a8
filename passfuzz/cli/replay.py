"""``passfuzz replay [PATH ...]``: re-check saved reproducers against the installed TVM."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import Parser, UsageError


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="passfuzz replay",
               description="Re-run each saved finding (its .json record) and say whether it still reproduces "
                           "(same fingerprint), is fixed, or changed into a different finding.",
               epilog="Exit status: 0 nothing reproduces, 1 at least one reproducer still reproduces (or changed), "
                      "2 a record could not be loaded or replayed.")
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                   help="records (.json) or directories of them (default: ./corpus)")
    p.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                   help="time limit for one side of one replay (default 60)")
    return p


def replay_one(path: Path, timeout: float) -> tuple[str, str]:
    """(status, detail) with status one of REPRODUCES, CHANGED, FIXED, ERROR."""
    from ..builds import BuildError, parse_build
    from ..corpus import CorpusError, load
    from ..engine import check
    from ..passes import PassSpecError, resolve
    from ..targets import unavailable_reason

    try:
        entry = load(path)
        passes = [resolve(p) for p in entry.record["passes"]]
        build = parse_build(entry.record.get("build", ""))
    except (CorpusError, PassSpecError, BuildError) as exc:
        return "ERROR", str(exc)
    targets = [t for t in entry.record["targets"] if unavailable_reason(t) is None]
    if not targets:
        return "ERROR", f"{path}: none of its targets ({', '.join(entry.record['targets'])}) can run here"
    if entry.record["kind"] == "target-mismatch" and targets != entry.record["targets"]:
        skipped = [f"{t} ({unavailable_reason(t)})" for t in entry.record["targets"] if t not in targets]
        return "ERROR", f"{path}: compares targets, and these cannot run here: {'; '.join(skipped)}"
    verdict, _ = check(entry.program, passes, targets, timeout, build)
    if verdict.generator_defect:
        return "ERROR", f"the original module no longer runs: {verdict.generator_defect}"
    if verdict.finding is None:
        return "FIXED", verdict.incomparable or "the optimized module matches the original"
    misuse = f" [outside the pass contracts: {verdict.finding.outside_contract}]" \
        if verdict.finding.outside_contract else ""
    if verdict.finding.fingerprint == entry.record["fingerprint"]:
        return "REPRODUCES", verdict.finding.message + misuse
    return "CHANGED", f"now {verdict.finding.signature}: {verdict.finding.message}{misuse}"


def run(args: argparse.Namespace) -> int:
    from ..corpus import CorpusError, entries

    try:
        paths = entries(args.paths or [Path("corpus")])
    except CorpusError as exc:
        raise UsageError(str(exc)) from None
    if not paths:
        print("passfuzz replay: no reproducers found", file=sys.stderr)
        return 0
    counts: dict[str, int] = {}
    for path in paths:
        status, detail = replay_one(path, args.timeout)
        counts[status] = counts.get(status, 0) + 1
        print(f"{status:<10} {path}: {detail[:300]}", flush=True)
    print("passfuzz replay: " + ", ".join(f"{n} {s.lower()}" for s, n in sorted(counts.items())))
    if counts.get("REPRODUCES") or counts.get("CHANGED"):
        return 1
    return 2 if counts.get("ERROR") else 0

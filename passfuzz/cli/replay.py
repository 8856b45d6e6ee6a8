"""``passfuzz replay [--rewrite] [PATH ...]``: re-check saved reproducers against the installed TVM,
and with ``--rewrite`` regenerate the script and report of each one that still reproduces."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import FOUND, NOTHING_TO_REPLAY, OK, USAGE_ERROR, Parser, UsageError


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="passfuzz replay",
               description="Re-run each saved finding (its .json record) and say whether it still reproduces "
                           "(same fingerprint), is fixed, or changed into a different finding.",
               epilog="Exit status: 0 nothing reproduces, 1 at least one reproducer still reproduces (or changed), "
                      "2 a record could not be replayed, or was malformed (a warning names it, and the others are "
                      "replayed), or a usage error; 4 nothing to replay (no record in the paths given).")
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                   help="records (.json) or directories of them (default: ./corpus); a finding's reproducer script "
                        "(.py) or report (.md) stands for the record beside it")
    p.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                   help="time limit for one side of one replay (default 60)")
    p.add_argument("--rewrite", action="store_true",
                   help="regenerate the .py and .md (and refresh the record's log and environment) of each "
                        "finding that still reproduces with the same fingerprint; the others are left alone")
    p.add_argument("--reduce", action="store_true",
                   help="with --rewrite: first reduce the finding again (its passes and its program, keeping its "
                        "fingerprint), so a record saved by an older passfuzz gets today's reduction")
    p.add_argument("--reduce-time", type=float, default=60.0, metavar="SECONDS",
                   help="with --reduce: time for reducing each finding (default 60)")
    return p


def replay_one(path: Path, timeout: float, rewrite: bool = False,
               reduce_seconds: float | None = None) -> tuple[str, str]:
    """(status, detail) with status one of REPRODUCES, CHANGED, FIXED, ERROR, SKIPPED (a malformed
    record: the detail names the file and why). With ``rewrite``, a
    finding that REPRODUCES has its files regenerated from this run (atomically), after being
    reduced again for ``reduce_seconds`` when that is given."""
    from passfuzz.findings.corpus import CorpusError, load, problem
    from passfuzz.findings.record import recheck_targets
    from passfuzz.judge.boundaries import BoundaryChecks
    from passfuzz.judge.emi import EMI_MISMATCH
    from passfuzz.judge.finding import OBSERVATION_KINDS, named_as, same_bug
    from passfuzz.judge.trial import check
    from passfuzz.passes.names import PassSpecError, resolve
    from passfuzz.run.builds import BuildError, recorded_build
    from passfuzz.run.targets import unavailable_reason

    if problem(path):
        return "SKIPPED", problem(path)
    try:
        entry = load(path)
        passes = [resolve(p) for p in entry.record["passes"]]
        build = recorded_build(entry.record)
    except (CorpusError, PassSpecError, BuildError) as exc:
        return "ERROR", str(exc)
    if all(unavailable_reason(t) is not None for t in entry.record["targets"]):
        return "ERROR", f"{path}: none of its targets ({', '.join(entry.record['targets'])}) can run here"
    targets = [t for t in recheck_targets(entry.record) if unavailable_reason(t) is None]
    if entry.record["kind"] == "target-mismatch" and targets != entry.record["targets"]:
        skipped = [f"{t} ({unavailable_reason(t)})" for t in entry.record["targets"] if t not in targets]
        return "ERROR", f"{path}: compares targets, and these cannot run here: {'; '.join(skipped)}"
    if entry.record["kind"] in OBSERVATION_KINDS:
        return _replay_observation(entry, passes, timeout)
    speed = speed_of(entry.record)
    verdict, optimized = check(entry.program, passes, targets, timeout, build, speed=speed,
                               boundaries=BoundaryChecks.only(entry.record["kind"]),
                               emi=entry.record["kind"] == EMI_MISMATCH)
    if verdict.generator_defect:
        return "ERROR", f"the original module no longer runs: {verdict.generator_defect}"
    if verdict.finding is None:
        return "FIXED", verdict.incomparable or ("the optimized module is no longer slower beyond the threshold"
                                                 if speed else "the optimized module matches the original")
    misuse = f" [outside the pass contracts: {verdict.finding.outside_contract}]" \
        if verdict.finding.outside_contract else ""
    if not same_bug(verdict.finding, entry.record["fingerprint"], entry.record["signature"]):
        return "CHANGED", f"now {verdict.finding.signature}: {verdict.finding.message}{misuse}"
    finding = named_as(verdict.finding, entry.record["fingerprint"], entry.record["signature"])
    if rewrite and reduce_seconds is not None:
        _reduce(entry, finding, targets, timeout, build, reduce_seconds)
        return "REPRODUCES", f"reduced and rewritten: {finding.message}{misuse}"
    if rewrite:
        _rewrite(entry, finding, optimized, targets, timeout, build)
        return "REPRODUCES", f"rewritten: {finding.message}{misuse}"
    return "REPRODUCES", finding.message + misuse


def _replay_observation(entry, passes, timeout: float) -> tuple[str, str]:
    """An observation (a missed rewrite, a pass not idempotent) is checked again as the run checked
    it, not as a finding: the pass still leaves its form (or changes its own output again), or it
    no longer does. ``--rewrite`` leaves observations alone."""
    from passfuzz.judge.finding import new_finding
    from passfuzz.judge.observations import still_observed

    record = entry.record
    observation = new_finding(record["kind"], passes, record["signature"].rsplit(" | ", 1)[-1], record["message"],
                              record["stage"])
    if still_observed(entry.program, passes, observation, timeout):
        return "REPRODUCES", f"still observed: {record['message']}"
    return "FIXED", "no longer observed"


def speed_of(record: dict):
    """The slowdown check a record was judged by (its threshold), or None for other kinds."""
    from passfuzz.run.speed import SpeedCheck

    return SpeedCheck(threshold=record["slowdown_threshold"]) if record["kind"] == "slowdown" else None


def _reduce(entry, finding, targets: list[str], timeout: float, build, reduce_seconds: float) -> None:
    """Reduce the finding as a fuzzing run reduces a new one, and save it over its record."""
    from passfuzz.campaign.engine import FindingError, FuzzConfig, Fuzzer
    from passfuzz.judge.boundaries import BoundaryChecks
    from passfuzz.judge.emi import EMI_MISMATCH

    config = FuzzConfig(passes=list(finding.passes), targets=targets, corpus_dir=entry.path.parent, timeout=timeout,
                        reduce_seconds=reduce_seconds, build=build, seed=entry.record.get("seed"),
                        speed=speed_of(entry.record), boundaries=BoundaryChecks.only(entry.record["kind"]),
                        emi=entry.record["kind"] == EMI_MISMATCH)
    Fuzzer(config).reduce_and_save(FindingError(finding, entry.program))


def _rewrite(entry, finding, optimized, targets: list[str], timeout: float, build) -> None:
    """Regenerate a finding's script and report in the current form, from the run that just
    reproduced it (its adapter, its log); the record keeps its identity and gains this run's
    log and environment."""
    from passfuzz.findings.corpus import save
    from passfuzz.findings.record import rewritten
    from passfuzz.findings.report import render_report
    from passfuzz.findings.reproducer import render_script

    passes = list(finding.passes)
    record = rewritten(entry.record, finding, entry.program, passes)
    script = render_script(entry.program, passes, finding, record["module"], list(finding.targets) or targets[:1],
                           timeout, optimized, build, speed_of(entry.record))
    save(entry.path.parent, record, script, render_report(record, script))


def run(args: argparse.Namespace) -> int:
    from passfuzz.findings.corpus import CorpusError, entries

    if args.reduce and not args.rewrite:
        raise UsageError("--reduce goes with --rewrite (a reduced finding is saved over its record)")
    if args.reduce_time <= 0:
        raise UsageError(f"--reduce-time must be positive, got {args.reduce_time:g}")
    try:
        paths = entries([_record_of(path) for path in args.paths] or [Path("corpus")])
    except CorpusError as exc:
        raise UsageError(str(exc)) from None
    if not paths:
        print(f"passfuzz replay: nothing to replay: no record (.json) in {', '.join(map(str, args.paths or ['corpus']))}",
              file=sys.stderr)
        return NOTHING_TO_REPLAY
    counts: dict[str, int] = {}
    for path in paths:
        status, detail = replay_one(path, args.timeout, args.rewrite,
                                    args.reduce_time if args.reduce else None)
        counts[status] = counts.get(status, 0) + 1
        if status == "SKIPPED":
            print(f"passfuzz replay: warning: skipping a malformed record: {' '.join(detail.split())[:300]}",
                  file=sys.stderr, flush=True)
        else:
            print(f"{status:<10} {path}: {detail[:300]}", flush=True)
    print("passfuzz replay: " + ", ".join(f"{n} {s.lower()}" for s, n in sorted(counts.items())))
    if counts.get("REPRODUCES") or counts.get("CHANGED"):
        return FOUND
    return USAGE_ERROR if counts.get("ERROR") or counts.get("SKIPPED") else OK


def _record_of(path: Path) -> Path:
    """The record a path names: a finding's script (X.py) or report (X.md) stands for X.json
    beside it; UsageError for one with no record beside it."""
    if path.suffix not in (".py", ".md") or path.is_dir():
        return path
    record = path.with_suffix(".json")
    if record.is_file():
        return record
    if path.exists():
        raise UsageError(f"{path}: no record {record.name} beside it to replay (replay reads a finding's .json)")
    return path  # entries() says it does not exist

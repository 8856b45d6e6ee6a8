"""``passfuzz check-tests PATH...``: check every module TVM's own tests define, as it is, with the
passes its tests apply (passfuzz.campaign.tvm_tests), and report per file."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

from passfuzz.campaign.seeds import FILE_TIMEOUT  # no TVM: the help needs none

from . import FOUND, INTERRUPTED, OK, Parser, UsageError
from .output import NORMAL, QUIET, Console, counted

FORMAT_VERSION = 1  # of --json's document; passfuzz/schemas/check-tests-result.schema.json pins it
_PROGRESS_SECONDS = 5.0  # between the lines saying how far loading the files has come


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="passfuzz check-tests",
               description="Check every module that TVM's own tests define, as it is (not mutated): each module "
                           "is imported as --seeds imports it, then run through the passes its test applies to it "
                           "(the first pass the test calls, with its arguments) and the pass its file is named after "
                           "(test_transform_fold_constant.py: FoldConstant), each with its prerequisites and inside "
                           "the pass contracts, and judged as a fuzzing run judges an example (both sides, the numpy "
                           "reference, the oracles at every pass boundary) on its own arguments and on draws inside "
                           "its imported ranges. Findings are reduced and saved to --corpus; known faults are named "
                           "as such. Ends with a table per file: modules, imported, checked, findings, and why the "
                           "rest were not checked.",
               epilog="Exit status: 0 no new finding, 1 at least one new finding, 2 usage or input error, "
                      "130 interrupted (Ctrl-C: the table says what was done; findings saved stay saved).")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="test files (.py) or directories of them (searched recursively), e.g. a TVM checkout's "
                        "tests/python/relax; glob patterns are matched: '~/tvm/tests/python/relax/test_transform_*.py'")
    p.add_argument("--passes", metavar="P[,P...]",
                   help="check every module with these passes instead of those its tests apply (names as for "
                        "fuzzing, `passfuzz --help`; module.path:attr names your own)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, metavar="N",
                   help="processes that load the files and check the modules (default: the number of cores, "
                        f"{os.cpu_count() or 1} here)")
    p.add_argument("--argument-draws", type=int, default=4, metavar="N",
                   help="argument sets each module runs on: its own and N-1 drawn inside its imported ranges "
                        "(ends and zero, ties, spread), as for fuzzing (default 4)")
    p.add_argument("--targets", metavar="T[,T...]",
                   help="targets to compile and run on, as for fuzzing (default: every target this machine can run)")
    p.add_argument("--corpus", type=Path, default=Path("corpus"), metavar="DIR",
                   help="where findings are saved and known bugs are read from (default: ./corpus); what the test "
                        "files gave is cached in DIR/.seeds/ by their content, so a second run starts in seconds")
    p.add_argument("--known-bugs", default="default", metavar="default|none|PATH",
                   help="known TVM bugs, as for fuzzing: a finding that is one of them is reported as known, not new")
    p.add_argument("--max-time", type=float, metavar="SECONDS",
                   help="start no check after SECONDS (loading included); the modules not reached are reported "
                        "as such, and a reduction under way finishes")
    p.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                   help="time limit for one side of one check (default 60)")
    p.add_argument("--file-timeout", type=float, default=FILE_TIMEOUT, metavar="SECONDS",
                   help=f"time limit for executing one test file and importing its modules (default {FILE_TIMEOUT:g})")
    p.add_argument("--reduce-time", type=float, default=50.0, metavar="SECONDS",
                   help="time for reducing each new finding (default 50)")
    p.add_argument("--json", type=Path, metavar="FILE",
                   help="write the per-file report as JSON when the run ends or is interrupted "
                        "(passfuzz/schemas/check-tests-result.schema.json describes it)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print only the findings and the table (stdout), and warnings: no progress")
    return p


def run(args: argparse.Namespace) -> int:
    from passfuzz.campaign.plan import SEED_CACHE, PlanError, RunOptions, as_it_is
    from passfuzz.campaign.seeds import SeedError, find_seeds, seed_paths
    from passfuzz.campaign.tvm_tests import INTERRUPTED as STOPPED
    from passfuzz.campaign.tvm_tests import file_reports, plan_checks, run_checks
    from passfuzz.ir.catalogue import DTYPES
    from passfuzz.passes.catalogue import with_prerequisites
    from passfuzz.passes.names import PassSpecError, resolve_list
    from passfuzz.run.targets import GPU_KINDS, drawable_dtypes, kind_of

    started = time.monotonic()
    console = Console(verbosity=QUIET if args.quiet else NORMAL)
    if args.json is not None and not args.json.parent.is_dir():
        raise UsageError(f"--json {args.json}: no such directory: {args.json.parent}")
    if args.file_timeout <= 0:
        raise UsageError(f"--file-timeout must be positive, got {args.file_timeout:g}")
    options = RunOptions(corpus=args.corpus, known_bugs=args.known_bugs, targets=args.targets, workers=args.workers,
                         max_time=args.max_time, timeout=args.timeout, reduce_time=args.reduce_time,
                         argument_draws=args.argument_draws)
    try:
        config = as_it_is(options, console.note)
        given = with_prerequisites(resolve_list(args.passes)) if args.passes else None
    except (PlanError, PassSpecError) as exc:
        raise UsageError(str(exc)) from None
    last = [0.0]

    def loaded(done: int, total: int, file: Path) -> None:
        if time.monotonic() - last[0] >= _PROGRESS_SECONDS or done == total:
            last[0] = time.monotonic()
            console.note(f"loading: {done}/{total} files ({file.name})")

    try:
        paths = [path for text in args.paths for path in seed_paths(text)]
        found = find_seeds(paths, timeout=args.file_timeout, workers=args.workers,
                           cache=args.corpus / SEED_CACHE, progress=loaded)
    except SeedError as exc:
        raise UsageError(str(exc).replace("--seeds: ", "")) from None
    except KeyboardInterrupt:
        console.note("interrupted while loading the files: nothing was checked")
        return INTERRUPTED
    console.note(f"loaded in {time.monotonic() - started:.1f} s: {found.summary()}")
    plan = plan_checks(found, given, drawable_dtypes(config.targets, DTYPES),
                       gpu=any(kind_of(target) in GPU_KINDS for target in config.targets))
    modules = len({check.module for check in plan.checks})
    left = None if args.max_time is None else max(0.0, args.max_time - (time.monotonic() - started))
    console.note(f"checking {counted(modules, 'module')} ({counted(len(plan.checks), 'pass list')}) on "
                 f"{','.join(config.targets)}, {counted(args.workers, 'worker')}"
                 + (f", for at most {left:.0f} s" if left is not None else "")
                 + f"; findings go to {config.corpus_dir}{os.sep}")

    def on_checked(index: int, checked) -> None:
        done[0] += 1
        what = {"clean": "ok", "finding": f"NEW {checked.detail}\n  saved {checked.path}",
                "known": f"known: {checked.detail}", "variant": f"a variant of {checked.known_as}: {checked.detail}",
                "incomparable": f"incomparable: {checked.detail}",
                "defect": f"does not run: {checked.detail}"}.get(checked.outcome, checked.outcome)
        line = f"[{done[0]}/{len(plan.checks)}] {checked.module} with {','.join(checked.passes)}: {what} " \
               f"({checked.seconds:.1f} s)"
        if checked.outcome == "finding":
            console.result(line)
        else:
            console.note(line)

    done = [0]
    config = dataclasses.replace(config, max_time=left)
    results, stop = run_checks(plan.checks, config, args.workers, on_checked)
    reports = file_reports(found, plan, plan.checks, results, stop)
    # as for fuzzing: a new bug of TVM's plain build is listed, and does not set the status
    blaming = any(r is not None and r.outcome == "finding" and r.blamed for r in results)
    status = INTERRUPTED if stop == STOPPED else FOUND if blaming else OK
    _print_table(reports, console)
    _write_json(args.json, reports, status, stop, time.monotonic() - started, config)
    return status


def _print_table(reports, console: Console) -> None:
    """One line per file, plain (logs and pipes keep it whole): its counts, then why the modules not
    checked were not, the commonest reasons first; then the findings, one line each."""
    root = os.path.commonpath([r.file for r in reports]) if len(reports) > 1 else ""
    names = [os.path.relpath(r.file, root) if root else r.file for r in reports] + [counted(len(reports), "file")]
    width = max(map(len, names + ["file"]))
    header = ("modules", "imported", "checked", "findings")
    lines = [f"{'file':<{width}}  " + "  ".join(header) + "  why the rest were not checked"]
    totals = [0, 0, 0, 0, 0]
    for name, report in zip(names, reports):
        new = sum(f.outcome == "finding" for f in report.findings)
        known = len(report.findings) - new
        findings = f"{new}" + (f"+{known}k" if known else "")
        why = "; ".join(f"{n} {reason}" for reason, n in report.not_checked.most_common())
        if report.warning:
            why = report.warning + (f"; {why}" if why else "")
        counts = (report.modules, report.imported, report.checked)
        lines.append(f"{name:<{width}}  " + "  ".join(f"{v:>{len(h)}}" for v, h in zip((*counts, findings), header))
                     + f"  {why}")
        for i, value in enumerate((*counts, new, known)):
            totals[i] += value
    findings = f"{totals[3]}" + (f"+{totals[4]}k" if totals[4] else "")
    lines.append(f"{names[-1]:<{width}}  " + "  ".join(f"{v:>{len(h)}}" for v, h in zip((*totals[:3], findings),
                                                                                        header)))
    lines.append("findings: new+known (k: a known bug or a variant of a known fault)")
    for report in reports:
        for finding in report.findings:
            where = f"saved {finding.path}" if finding.path else f"known: {finding.known_as}"
            lines.append(f"{finding.outcome}: {finding.module} with {','.join(finding.passes)}: {finding.detail}; "
                         f"{where}")
    console.result("\n".join(line.rstrip() for line in lines))


def _write_json(path: Path | None, reports, status: int, stop: str, elapsed: float, config) -> None:
    if path is None:
        return
    from importlib import resources

    import jsonschema
    import tvm

    from passfuzz import __version__
    from passfuzz.findings.corpus import atomic_write

    document = {"format_version": FORMAT_VERSION, "passfuzz_version": __version__, "tvm_version": tvm.__version__,
                "status": status, "stop_reason": stop or "done", "elapsed": round(elapsed, 3),
                "targets": list(config.targets), "corpus": str(config.corpus_dir),
                "totals": {key: sum(getattr(r, key) for r in reports) for key in ("modules", "imported", "checked")}
                | {"files": len(reports),
                   "new_findings": sum(f.outcome == "finding" for r in reports for f in r.findings)},
                "files": [report.to_json() for report in reports]}
    schema = json.loads(resources.files("passfuzz").joinpath("schemas/check-tests-result.schema.json").read_text())
    jsonschema.validate(document, schema)
    try:
        atomic_write(path, json.dumps(document, indent=2) + "\n")
    except OSError as exc:
        print(f"passfuzz: error: cannot write {path}: {exc.strerror}", file=sys.stderr)

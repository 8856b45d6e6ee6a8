"""``passfuzz known [ID]``: the TVM faults passfuzz already knows for the installed TVM release, the
records that show them, and how many distinct faults that is.

A record's fingerprint never counts as a new finding, and a new finding matching a fault's
signatures is kept as a variant of it (``--known-bugs`` changes which baseline). Maintainers of
passfuzz regenerate the shipped baseline, the per-fault reports and corpus/README.md's index from
the triaged corpus with ``--write-baseline``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import Parser, UsageError
from .output import counted


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="passfuzz known",
               description="List the TVM faults passfuzz knows for the installed TVM release (its shipped "
                           "baseline, triaged from passfuzz's own corpus), with the records that show them and "
                           "the number of distinct faults. A finding with a known record's fingerprint is "
                           "counted as known, never as new; one matching a fault's signatures is kept as a "
                           "variant of that fault.")
    p.add_argument("id", nargs="?", metavar="ID",
                   help="show one fault in full: a fault id, a record id (KIND-FINGERPRINT) or a fingerprint")
    p.add_argument("--known-bugs", default="default", metavar="default|none|PATH",
                   help="which baseline to list: the shipped one (default), a baseline file, or a corpus "
                        "directory (with its faults/ folder, the full triage of each fault)")
    p.add_argument("--records", action="store_true", help="list each fault's records under it")
    p.add_argument("--json", action="store_true", help="print the baseline as JSON (faults and records) for machines")
    p.add_argument("--write-baseline", type=Path, metavar="CORPUS_DIR",
                   help="for passfuzz's maintainers: from a triaged corpus directory (its records and its "
                        "faults/), regenerate the shipped baseline of the installed TVM release, each "
                        "fault's report (faults/ID.md) and the index in the directory's README.md")
    p.add_argument("--observe", action="store_true",
                   help="with --write-baseline: first run each fault's script and keep its output and this "
                        "machine's environment for the reports (a few minutes)")
    return p


def run(args: argparse.Namespace) -> int:
    import tvm

    from passfuzz.findings import known_bugs

    if args.observe and args.write_baseline is None:
        raise UsageError("--observe goes with --write-baseline")
    if args.write_baseline is not None:
        return _write(args.write_baseline, args.observe, tvm.__version__)
    try:
        baseline = known_bugs.load(args.known_bugs, tvm.__version__)
    except known_bugs.BaselineError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        json.dump({"tvm_release": known_bugs.release(tvm.__version__),
                   "faults": [fault.to_json() for fault in baseline.faults],
                   "bugs": [bug.to_json() for bug in baseline.bugs]}, sys.stdout, indent=1)
        print()
        return 0
    if not baseline:
        print(f"passfuzz known: no known-bug baseline for TVM {tvm.__version__}")
        return 0
    if args.id:
        return _show(args.id, baseline, args.known_bugs)
    _table(baseline, args.records)
    print(f"passfuzz known: {_census(baseline)}, for TVM {known_bugs.release(tvm.__version__)} "
          "(passfuzz known ID shows one)")
    return 0


def _census(baseline) -> str:
    from passfuzz.findings.faults import census

    loose = sum(not bug.fault for bug in baseline.bugs)
    return census(baseline.faults, loose).line() + (f"; {counted(loose, 'record')} not triaged into a fault"
                                                    if loose else "")


def _table(baseline, with_records: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
    table.add_column("fault", no_wrap=True)  # an id to copy, whole on one line
    for column in ("title", "shows as", "records", "upstream"):
        table.add_column(column, overflow="fold")
    by_fault: dict[str, list] = {}
    for bug in baseline.bugs:
        by_fault.setdefault(bug.fault, []).append(bug)
    order = sorted(baseline.faults, key=lambda f: (not f.counted, f.id))
    for fault in order:
        bugs = by_fault.get(fault.id, [])
        title = fault.title + ("" if fault.counted else " (unsure, not counted)")
        table.add_row(fault.id, title, fault.shows_as, str(fault.records), fault.upstream or "not filed")
        if with_records:
            for bug in bugs:
                table.add_row(f"  {bug.id}", bug.what, "", "", "")
    for bug in by_fault.get("", []):  # records of a corpus without faults
        table.add_row(bug.id, ",".join(bug.passes) or "(no pass)", bug.kind, "1", bug.upstream or "")
    Console(soft_wrap=False).print(table)


def _show(wanted: str, baseline, spec: str) -> int:
    from passfuzz.findings import faults as fault_files

    bug = next((b for b in baseline.bugs if wanted in (b.id, b.fingerprint)), None)
    fault = baseline.fault(bug.fault if bug else wanted)
    if fault is None and bug is None:
        raise UsageError(f"{wanted}: no known fault, record or fingerprint of that name (passfuzz known lists them)")
    if fault is None:
        print(f"{bug.id}: a record of no triaged fault\n  passes: {','.join(bug.passes) or '(none)'}")
        return 0
    print(f"{fault.id}: {fault.title}")
    print(f"  shows as {fault.shows_as}; {'counted' if fault.counted else 'unsure, not counted'}; "
          f"upstream: {fault.upstream or 'not filed'}")
    for record in (b for b in baseline.bugs if b.fault == fault.id):
        print(f"  record {record.id}: {record.what}")
    for match in fault.matches:
        print(f"  a new finding is a variant when its signature matches /{match.signature}/"
              + (f" and its program calls {' or '.join(match.ops)}" if match.ops else ""))
    corpus_dir = Path(spec) if spec not in ("default", "none") and Path(spec).is_dir() else None
    if corpus_dir is not None:
        full = fault_files.load_one(corpus_dir / fault_files.FAULTS / f"{fault.id}.json")
        for heading, text in (("trigger", full.trigger), ("expected", full.expected), ("root cause", full.root_cause)):
            print(f"  {heading}: {text}")
        print(f"  report: {corpus_dir / fault_files.FAULTS / (fault.id + '.md')}")
    else:
        print(f"  report: corpus/faults/{fault.id}.md in passfuzz's repository")
    return 0


def _write(corpus_dir: Path, observe: bool, tvm_version: str) -> int:
    from passfuzz.findings import faults as fault_files
    from passfuzz.findings import known_bugs
    from passfuzz.findings.corpus import atomic_write
    from passfuzz.findings.environment import environment

    if not corpus_dir.is_dir():
        raise UsageError(f"--write-baseline {corpus_dir}: not a directory")
    try:
        faults = fault_files.load(corpus_dir)
    except fault_files.FaultError as exc:
        raise UsageError(str(exc)) from None
    for problem in fault_files.problems(corpus_dir):
        print(f"passfuzz known: warning: {problem}", file=sys.stderr)
    if observe:
        seen_on = environment()
        for number, fault in enumerate(faults, 1):
            print(f"passfuzz known: running {fault.script_name} ({number}/{len(faults)})", file=sys.stderr)
            faults[number - 1] = fault_files.write_observed(corpus_dir, fault,
                                                            fault_files.observe(corpus_dir, fault, seen_on))
    for fault in faults:
        fault_files.write_report(corpus_dir, fault)
    readme = corpus_dir / "README.md"
    atomic_write(readme, fault_files.with_index(readme.read_text(encoding="utf-8") if readme.is_file() else "",
                                                faults))
    baseline = known_bugs.from_corpus(corpus_dir)
    path = known_bugs.shipped_path(tvm_version)
    known_bugs.write(baseline, path, tvm_version)
    print(f"passfuzz known: wrote {counted(len(baseline.bugs), 'record')} and {counted(len(faults), 'fault')} to "
          f"{path}, {counted(len(faults), 'report')} and the index of {readme}")
    print(f"passfuzz known: {fault_files.census(faults).line()}")
    return 0

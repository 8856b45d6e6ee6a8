"""``passfuzz known``: the TVM bugs passfuzz already knows for the installed TVM release.

Those fingerprints never count as new findings (``--known-bugs`` changes that). Maintainers of
passfuzz regenerate the shipped baseline from the triaged corpus with ``--write-baseline``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from . import Parser, UsageError
from .output import counted


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="passfuzz known",
               description="List the TVM bugs passfuzz knows for the installed TVM release (its shipped baseline, "
                           "triaged from passfuzz's own corpus): a finding with one of these fingerprints is counted "
                           "as a known bug, never as a new one.")
    p.add_argument("--known-bugs", default="default", metavar="default|none|PATH",
                   help="which baseline to list: the shipped one (default), a baseline file, or a corpus directory")
    p.add_argument("--write-baseline", type=Path, metavar="CORPUS_DIR",
                   help="for passfuzz's maintainers: regenerate the shipped baseline of the installed TVM release "
                        "from a triaged corpus directory (its records and its README table)")
    return p


def run(args: argparse.Namespace) -> int:
    import tvm

    from passfuzz.findings import known_bugs

    if args.write_baseline is not None:
        if not args.write_baseline.is_dir():
            raise UsageError(f"--write-baseline {args.write_baseline}: not a directory")
        bugs = known_bugs.from_corpus(args.write_baseline)
        path = known_bugs.shipped_path(tvm.__version__)
        known_bugs.write(bugs, path, tvm.__version__)
        print(f"passfuzz known: wrote {counted(len(bugs), 'bug')} to {path}")
        return 0
    try:
        bugs = known_bugs.load(args.known_bugs, tvm.__version__)
    except known_bugs.BaselineError as exc:
        raise UsageError(str(exc)) from None
    if not bugs:
        print(f"passfuzz known: no known-bug baseline for TVM {tvm.__version__}")
        return 0
    for bug in bugs:
        where = ",".join(bug.passes) or "(no pass: the unoptimized module)"
        upstream = f" [{bug.upstream}]" if bug.upstream else ""
        print(f"{bug.id}  {where}{upstream}\n    {bug.what}")
    print(f"passfuzz known: {counted(len(bugs), 'known bug')} for TVM {known_bugs.release(tvm.__version__)}")
    return 0

"""``passfuzz passes``: what passfuzz knows of each pass of the installed TVM."""

from __future__ import annotations

import argparse

from . import Parser


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="passfuzz passes",
               description="List the passes of tvm.relax.transform with their contracts (the phases of TVM's "
                           "pipelines each belongs to, the passes that must run before it and are inserted, what "
                           "input it accepts), how they change the calling convention of main, the float tolerance "
                           "they need, and why a pass cannot be fuzzed here.")
    p.add_argument("--sources", action="store_true",
                   help="also print, under each pass, the TVM source lines its contract comes from")
    return p


def run(args: argparse.Namespace) -> int:
    from passfuzz.passes.catalogue import CATALOGUE, uncatalogued
    from passfuzz.passes.contracts import PRECONDITIONS
    from passfuzz.passes.names import builtin_pass_names

    installed = set(builtin_pass_names())
    rows = [("pass", "phases", "prerequisites", "accepts / calling convention / notes", "rtol", "fuzzable", "")]
    for name in sorted(CATALOGUE):
        info = CATALOGUE[name]
        if name not in installed:
            continue
        phases = ",".join(info.phases) + (f" -> {info.enters}" if info.enters else "")
        accepts = [PRECONDITIONS[key][0] for key in info.preconditions]
        notes = "; ".join(x for x in (*accepts, info.convention if info.convention != "same" else "", info.notes)
                          if x)
        rows.append((name, phases, ",".join(info.requires) or "-", notes or "-",
                     f"{info.rtol:g}" if info.rtol else "-", f"no: {info.skip}" if info.skip else "yes",
                     info.source))
    for name in uncatalogued():
        rows.append((name, "?", "-", "not in passfuzz's catalogue (newer TVM?)", "-", "unknown", ""))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row[:4], widths)) + f"  {row[4]:<5} {row[5]}")
        if args.sources and row[6]:
            print(f"    source: {row[6]}")
    return 0

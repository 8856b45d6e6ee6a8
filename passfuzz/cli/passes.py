"""``passfuzz passes``: what passfuzz knows of each pass of the installed TVM."""

from __future__ import annotations

import argparse

from . import Parser


def parser() -> argparse.ArgumentParser:
    return Parser(prog="passfuzz passes",
                  description="List the passes of tvm.relax.transform with the level they work at, the prerequisites "
                              "passfuzz runs before them, how they change the calling convention of main, the float "
                              "tolerance they need, and why a pass cannot be fuzzed here.")


def run(args: argparse.Namespace) -> int:
    from ..pass_catalogue import CATALOGUE, uncatalogued
    from ..passes import builtin_pass_names

    installed = set(builtin_pass_names())
    rows = [("pass", "level", "prerequisites", "calling convention / notes", "rtol", "fuzzable")]
    for name in sorted(CATALOGUE):
        info = CATALOGUE[name]
        if name not in installed:
            continue
        notes = "; ".join(x for x in (info.convention if info.convention != "same" else "", info.notes) if x)
        rows.append((name, info.level, ",".join(info.requires) or "-", notes or "-",
                     f"{info.rtol:g}" if info.rtol else "-", f"no: {info.skip}" if info.skip else "yes"))
    for name in uncatalogued():
        rows.append((name, "?", "-", "not in passfuzz's catalogue (newer TVM?)", "-", "unknown"))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row[:4], widths)) + f"  {row[4]:<5} {row[5]}")
    return 0

"""``passfuzz passes [NAME]``: what passfuzz knows of each pass of the installed TVM, as a table
that wraps to the terminal, one pass in full, or JSON."""

from __future__ import annotations

import argparse
import difflib
import json

from . import Parser, UsageError


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="passfuzz passes",
               description="List the passes of tvm.relax.transform with their contracts (the phases of TVM's "
                           "pipelines each belongs to, the passes that must run before it and are inserted, what "
                           "input it accepts), the ops each matches (what --focus auto builds programs around), how "
                           "they change the calling convention of main, the float tolerance they need, and why a "
                           "pass cannot be fuzzed here. With NAME, that pass in full, with the TVM source its "
                           "contract comes from.")
    p.add_argument("name", nargs="?", metavar="NAME", help="one pass to show in full (e.g. FoldConstant)")
    p.add_argument("--sources", action="store_true",
                   help="also show, for each pass, the TVM source lines its contract comes from")
    p.add_argument("--json", action="store_true",
                   help="print JSON instead of a table: a list of passes, or with NAME one object")
    return p


def describe(name: str, installed: set[str]) -> dict:
    """Everything passfuzz knows of pass ``name``, as plain data (the JSON output, and the table's cells)."""
    from passfuzz.passes.catalogue import CATALOGUE
    from passfuzz.passes.contracts import PRECONDITIONS

    info = CATALOGUE.get(name)
    if info is None:
        return {"name": name, "installed": name in installed, "catalogued": False,
                "notes": "not in passfuzz's catalogue (a TVM newer than the one it was read off?)"}
    return {"name": name, "installed": name in installed, "catalogued": True, "phases": list(info.phases),
            "enters": info.enters, "prerequisites": list(info.requires),
            "accepts": [PRECONDITIONS[key][0] for key in info.preconditions],
            "calling_convention": info.convention, "rtol": info.rtol, "well_formed_after": info.well_formed_after,
            "fuzzable": not info.skip, "why_not_fuzzable": info.skip, "notes": info.notes,
            "matches": list(info.matches), "matches_source": info.matches_source,
            "not_idempotent": info.not_idempotent, "source": info.source}


def _notes(entry: dict) -> str:
    parts = [*entry.get("accepts", ())]
    if entry.get("calling_convention", "same") != "same":
        parts.append(f"calling convention: {entry['calling_convention']}")
    if entry.get("rtol"):
        parts.append(f"rtol {entry['rtol']:g}")
    if entry.get("notes"):
        parts.append(entry["notes"])
    return "; ".join(parts)


def run(args: argparse.Namespace) -> int:
    from passfuzz.passes.catalogue import CATALOGUE, uncatalogued
    from passfuzz.passes.names import builtin_pass_names

    installed = set(builtin_pass_names())
    names = [name for name in sorted(CATALOGUE) if name in installed] + uncatalogued()
    if args.name is not None:
        if args.name not in names:
            close = difflib.get_close_matches(args.name, names, n=1)
            raise UsageError(f"no pass {args.name} in tvm.relax.transform"
                             + (f"; did you mean {close[0]}?" if close else " (passfuzz passes lists them)"))
        names = [args.name]
    entries = [describe(name, installed) for name in names]
    if args.json:
        print(json.dumps(entries[0] if args.name is not None else entries, indent=2))
        return 0
    from rich.table import Table

    from .output import print_rich

    if args.name is not None:
        print_rich(_one(entries[0]))
        return 0
    table = Table(title=f"{len(entries)} passes of tvm.relax.transform (passfuzz passes NAME shows one in full)",
                  show_lines=True, expand=True)
    # most names whole on 80 columns; the longest fold
    table.add_column("pass", overflow="fold", max_width=24)
    table.add_column("phases", overflow="fold", max_width=len("high-level,"))
    table.add_column("fuzzable", no_wrap=True)  # yes or no: its width is its header's
    table.add_column("details", overflow="fold", ratio=6)
    for entry in entries:
        if not entry["catalogued"]:
            table.add_row(entry["name"], "?", "unknown", entry["notes"])
            continue
        phases = ", ".join(entry["phases"]) + (f" -> {entry['enters']}" if entry["enters"] else "")
        details = [f"prerequisites: {', '.join(entry['prerequisites'])}" if entry["prerequisites"] else "",
                   f"matches: {', '.join(entry['matches'])}" if entry["matches"] else "",
                   _notes(entry), f"not fuzzable: {entry['why_not_fuzzable']}" if entry["why_not_fuzzable"] else "",
                   f"source: {entry['source']}" if args.sources else ""]
        table.add_row(entry["name"], phases, "yes" if entry["fuzzable"] else "no",
                      "\n".join(x for x in details if x) or "-")
    print_rich(table)
    return 0


def _one(entry: dict):
    """One pass in full: a field per row."""
    from rich.table import Table

    table = Table(title=entry["name"], show_header=True, show_lines=True)
    table.add_column("field", style="bold", no_wrap=True)
    table.add_column("value", overflow="fold")
    if not entry["catalogued"]:
        table.add_row("notes", entry["notes"])
        return table
    rows = [("phases", ", ".join(entry["phases"])), ("moves the module to", entry["enters"] or ""),
            ("prerequisites (inserted)", ", ".join(entry["prerequisites"])),
            ("accepts", "\n".join(entry["accepts"])), ("calling convention of main", entry["calling_convention"]),
            ("float tolerance (rtol)", f"{entry['rtol']:g}" if entry["rtol"] else "the default"),
            ("well-formed after", "yes" if entry["well_formed_after"] else "no (lowering: not checked)"),
            ("fuzzable", "yes" if entry["fuzzable"] else f"no: {entry['why_not_fuzzable']}"),
            ("notes", entry["notes"]),
            ("matches (--focus auto)", ", ".join(entry["matches"]) or "every op: no focus"),
            ("where its source names them", entry["matches_source"]),
            ("not idempotent (not checked)", entry["not_idempotent"]),
            ("contract's source", entry["source"].replace("; ", "\n"))]
    for field, value in rows:
        if value:
            table.add_row(field, value)
    return table

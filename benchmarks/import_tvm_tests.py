"""How many of the modules in TVM's own Relax tests ``--seeds`` imports, and why the rest do not,
grouped by reason; optionally side by side with an earlier measurement.

    PYTHONPATH=. python benchmarks/import_tvm_tests.py [--tests DIR] [--files GLOB] [--timeout S]
                                                      [--cache DIR] [--save FILE] [--compare FILE]

(PYTHONPATH=. so that this checkout's passfuzz is measured, not an installed one.)

Every ``test_*.py`` of DIR (by default ``/work/tvm-checkout/tests/python/relax/``, apache/tvm's
``tests/python/relax/``) goes through ``campaign.seeds.find_seeds`` as ``--seeds`` does: each file
executed, and its modules imported, in a forked child with a time limit per file (``--timeout``),
so the figures are what a user sees. A module counts once per entry function (``foo`` and
``main`` of one module are two seeds). Prints imported/total and the reasons of the rest,
normalized (names and numbers masked); ``--save`` writes every seed's outcome as JSON and
``--compare`` shows an earlier such file's counts beside these. ``--cache DIR`` keeps what each
file gave as ``--seeds`` keeps it in ``<corpus>/.seeds/`` (keyed by the file, passfuzz's version,
the source of its importer and catalogues, and TVM's): a second measurement of an unchanged
checkout reads the files back instead of executing them, and an edit of the importer executes
them all again.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
import time
from pathlib import Path

from passfuzz.campaign.seeds import FILE_TIMEOUT, find_seeds, reason_group

TESTS = Path("/work/tvm-checkout/tests/python/relax")


def reason(message: str) -> str:
    """A rejection's cause (``seeds.reason_group``) with what varies between modules masked."""
    cause = reason_group(message)
    cause = re.sub(r"parameter \w+:", "parameter _:", cause)
    cause = re.sub(r"values\[\d+\]", "values[_]", cause)
    return re.sub(r"(?<![\w.])-?\d+(\.\d+)?(e[-+]?\d+)?", "#", cause)


def measure(files: list[Path], timeout: float, cache: Path | None = None) -> dict:
    """Seed name -> {"imported": bool, "reason": str}; a file that could not be executed adds a
    warning line under the key ``"!" + path``."""
    from passfuzz.relax.importer import patterns

    patterns()  # once in this process: every child forked for a file inherits them
    found: dict = {}
    for k, path in enumerate(files):
        start = time.perf_counter()
        seeds = find_seeds([path], timeout=timeout, cache=cache)
        for seed in seeds.seeds:
            found[seed.name] = {"imported": seed.program is not None, "reason": seed.reason}
        for warning in seeds.warnings:
            found["!" + str(path)] = {"imported": False, "reason": warning}
        done = sum(s.program is not None for s in seeds.seeds)
        print(f"[{k + 1}/{len(files)}] {path.name}: {done}/{len(seeds.seeds)} "
              f"({time.perf_counter() - start:.1f} s{', cached' if seeds.cached else ''})", file=sys.stderr, flush=True)
    return found


def summary(results: dict) -> tuple[int, int, collections.Counter]:
    seeds = {name: r for name, r in results.items() if not name.startswith("!")}
    imported = sum(r["imported"] for r in seeds.values())
    reasons = collections.Counter(reason(r["reason"]) for r in seeds.values() if not r["imported"])
    return imported, len(seeds), reasons


def show(now: dict, before: dict | None, rows: int) -> None:
    imported, total, reasons = summary(now)
    line = f"imported {imported}/{total} ({100 * imported / max(total, 1):.1f}%)"
    old_reasons: collections.Counter = collections.Counter()
    if before is not None:
        old_imported, old_total, old_reasons = summary(before)
        line += f"; before: {old_imported}/{old_total} ({100 * old_imported / max(old_total, 1):.1f}%)"
    print(line)
    print(f"{'before':>7} {'now':>6}  reason" if before is not None else f"{'now':>6}  reason")
    keys = sorted(set(reasons) | set(old_reasons), key=lambda r: (-reasons[r], -old_reasons[r], r))
    for key in keys[:rows]:
        print((f"{old_reasons[key]:>7} " if before is not None else "") + f"{reasons[key]:>6}  {key}")
    if len(keys) > rows:
        rest = keys[rows:]
        print((f"{sum(old_reasons[k] for k in rest):>7} " if before is not None else "") +
              f"{sum(reasons[k] for k in rest):>6}  ({len(rest)} other reasons)")
    skipped = [r["reason"] for name, r in now.items() if name.startswith("!")]
    if skipped:
        print(f"{len(skipped)} file(s) not executed to the end:")
        for text in skipped:
            print("  " + text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=Path, default=TESTS, help="the folder of TVM's Relax tests")
    parser.add_argument("--files", default="test_*.py", help="which of its files (a glob; default: test_*.py)")
    parser.add_argument("--timeout", type=float, default=FILE_TIMEOUT,
                        help=f"seconds per file, as --seeds allows (default: {FILE_TIMEOUT:g})")
    parser.add_argument("--rows", type=int, default=30, help="reasons shown (default: 30)")
    parser.add_argument("--cache", type=Path,
                        help="a directory keeping what each file gave, read back while nothing it depends on changed")
    parser.add_argument("--save", type=Path, help="write every seed's outcome to this JSON file")
    parser.add_argument("--compare", type=Path, help="an earlier --save file to show beside")
    options = parser.parse_args()
    files = sorted(options.tests.glob(options.files))
    if not files:
        parser.error(f"{options.tests}/{options.files} matches no file")
    before = json.loads(options.compare.read_text()) if options.compare else None
    start = time.perf_counter()
    results = measure(files, options.timeout, options.cache)
    print(f"{len(files)} files in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    if options.save:
        options.save.write_text(json.dumps(results, indent=1, sort_keys=True))
    show(results, before, options.rows)


if __name__ == "__main__":
    main()

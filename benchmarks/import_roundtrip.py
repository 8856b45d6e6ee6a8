"""The importer's round trip over drawn programs: build each with relax_build, import it back with
its arguments, and compare with the importer's normal form of the original
(``passfuzz.relax.importer.canonical``; parameter ranges aside, which the module does not hold).

    PYTHONPATH=. python benchmarks/import_roundtrip.py [--examples N] [--seed N]

(PYTHONPATH=. so that this checkout's passfuzz is measured, not an installed one.)

Prints how many came back exactly, how many differed (with a sample), how many were rejected,
grouped by reason (the message without the binding's name), and the time per example.
"""

from __future__ import annotations

import argparse
import collections
import re
import time
from dataclasses import replace

from hypothesis import HealthCheck, Phase, given, seed, settings

from passfuzz.ir.program import Param
from passfuzz.relax.build import build_module
from passfuzz.relax.importer import ImportRejected, canonical, import_module, patterns
from strategies import relax_programs


def without_ranges(program):
    return replace(program, values=tuple(replace(v, lo=0, hi=0) if isinstance(v, Param) else v
                                         for v in program.values))


def reason(message: str) -> str:
    """A rejection's message with what varies between programs (names, indices, numbers) masked."""
    message = re.sub(r"binding \w+ = ", "binding _ = ", message)
    message = re.sub(r"values\[\d+\]", "values[_]", message)
    return re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "#", message)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    started = time.perf_counter()
    patterns()  # discovered once per process
    discovery = time.perf_counter() - started
    counts: collections.Counter = collections.Counter()
    rejected: collections.Counter = collections.Counter()
    differing: list = []

    @settings(max_examples=options.examples, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @seed(options.seed)
    @given(relax_programs())
    def one(program):
        counts["examples"] += 1
        try:
            imported = import_module(build_module(program), arguments=program.arguments())
        except ImportRejected as exc:
            counts["rejected"] += 1
            rejected[reason(str(exc))] += 1
            return
        if without_ranges(imported) == without_ranges(canonical(program)):
            counts["exact"] += 1
        else:
            counts["differ"] += 1
            differing.append(program)

    one()
    elapsed = time.perf_counter() - started - discovery
    print(f"{counts['examples']} programs: {counts['exact']} exact, {counts['differ']} differ, "
          f"{counts['rejected']} rejected ({elapsed / max(1, counts['examples']) * 1000:.0f} ms per example; "
          f"pattern discovery {discovery:.1f} s)")
    for message, n in rejected.most_common():
        print(f"  {n:5d}  {message}")
    if differing:
        print("first differing program:", differing[0].to_json())


if __name__ == "__main__":
    main()

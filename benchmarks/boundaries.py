"""What each oracle at the pass boundaries costs (passfuzz.judge.boundaries), side by side.

    PYTHONPATH=. python benchmarks/boundaries.py [--examples N] [--seed N] [--passes P,P]

For each pass, the same drawn programs are checked (judge.trial.check, as the fuzz loop checks an
example) under each set of boundary oracles in turn, program by program, so a change in the
machine's load falls on every set alike: none, each oracle alone, the default set, and the
default set with JSON, and with output determinism. Prints examples per second for each, its ratio to none, and
the findings each set reported (by kind and fingerprint).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from hypothesis import HealthCheck, given, seed, settings
from rich.console import Console
from rich.table import Table

from passfuzz.judge.boundaries import NO_CHECKS, BoundaryChecks
from passfuzz.judge.trial import check
from passfuzz.passes.names import resolve_list
from strategies import relax_programs

SETS = {
    "none": NO_CHECKS,
    "print round trip": BoundaryChecks(True, False, False, False),
    "JSON round trip": BoundaryChecks(False, True, False, False),
    "passes twice": BoundaryChecks(False, False, True, False),
    "default (print, passes twice)": BoundaryChecks(),
    "default + JSON": BoundaryChecks(json_round_trip=True),
    "default + outputs twice": BoundaryChecks(same_outputs=True),
}


def drawn(examples: int, run_seed: int) -> list:
    programs = []

    @seed(run_seed)
    @settings(max_examples=examples, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(relax_programs())
    def draw(program):
        programs.append(program)

    draw()
    return programs


def measure(passes: str, programs: list) -> dict[str, tuple[float, Counter]]:
    spent, found = Counter(), {name: Counter() for name in SETS}
    specs = resolve_list(passes)
    for program in programs:
        for name, checks in SETS.items():
            started = time.perf_counter()
            verdict, _ = check(program, specs, ["llvm"], 60, boundaries=checks)
            spent[name] += time.perf_counter() - started
            if verdict.finding is not None:
                found[name][f"{verdict.finding.kind} {verdict.finding.fingerprint}"] += 1
    return {name: (len(programs) / spent[name], found[name]) for name in SETS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=30, help="programs drawn per pass (default 30)")
    parser.add_argument("--seed", type=int, default=1, help="the draw's seed (default 1)")
    parser.add_argument("--passes", default="FoldConstant,LegalizeOps",
                        help="the passes, each measured on its own (default FoldConstant,LegalizeOps)")
    args = parser.parse_args()
    programs = drawn(args.examples, args.seed)
    console = Console()
    for passes in args.passes.split(","):
        figures = measure(passes, programs)
        table = Table(title=f"{passes}: {len(programs)} programs, seed {args.seed}")
        for column in ("oracles", "examples/s", "vs none", "findings"):
            table.add_column(column)
        base = figures["none"][0]
        for name, (rate, found) in figures.items():
            table.add_row(name, f"{rate:.2f}", f"{rate / base:.2f}x",
                          ", ".join(f"{key} x{count}" for key, count in found.most_common()) or "-")
        console.print(table)


if __name__ == "__main__":
    main()

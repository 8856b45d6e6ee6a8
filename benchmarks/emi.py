"""What the EMI oracle costs (passfuzz.judge.emi, strategies.emi_programs), side by side.

    PYTHONPATH=. python benchmarks/emi.py [--examples N] [--seed N] [--passes P;P]

For each pass list, programs are drawn as the fuzz loop draws them without EMI
(``relax_programs()``) and with it (``emi_programs(relax_programs())``: untaken branches mutated,
an If given to one program in four without one), and each is checked as the loop checks an
example (judge.trial.check, default boundary oracles), program by program in turn, so a change in
the machine's load falls on every column alike:

- ``without``: the drawn programs, no EMI (``--no-emi``);
- ``variants only``: the EMI programs, without the oracle (what their Ifs and mutations cost);
- ``with EMI``: the EMI programs and the oracle (``--emi``).

Prints examples per second for each, the ratio to ``without``, the share of examples the oracle
compared (those with an untaken branch to prune), and the findings (kind and fingerprint).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from hypothesis import HealthCheck, given, seed, settings
from rich.console import Console
from rich.table import Table

from passfuzz.ir.emi import pruned
from passfuzz.judge.boundaries import BoundaryChecks
from passfuzz.judge.trial import check
from passfuzz.passes.names import resolve_list
from strategies import emi_programs, relax_programs


def drawn(strategy, examples: int, run_seed: int) -> list:
    programs = []

    @seed(run_seed)
    @settings(max_examples=examples, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def draw(program):
        programs.append(program)

    draw()
    return programs[:examples]


def measure(passes: str, plain: list, variants: list) -> dict[str, tuple[float, Counter]]:
    columns = {"without": (plain, False), "variants only": (variants, False), "with EMI": (variants, True)}
    spent, found = Counter(), {name: Counter() for name in columns}
    specs = resolve_list(passes)
    for i in range(min(len(plain), len(variants))):
        for name, (programs, emi) in columns.items():
            started = time.perf_counter()
            verdict, _ = check(programs[i], specs, ["llvm"], 60, boundaries=BoundaryChecks(), emi=emi)
            spent[name] += time.perf_counter() - started
            if verdict.finding is not None:
                found[name][f"{verdict.finding.kind} {verdict.finding.fingerprint}"] += 1
    count = min(len(plain), len(variants))
    return {name: (count / spent[name], found[name]) for name in columns}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=30, help="programs drawn per column (default 30)")
    parser.add_argument("--seed", type=int, default=1, help="the draws' seed (default 1)")
    parser.add_argument("--passes", default="FoldConstant;LegalizeOps",
                        help="pass lists separated by ';', each measured on its own (default FoldConstant;LegalizeOps)")
    args = parser.parse_args()
    plain = drawn(relax_programs(), args.examples, args.seed)
    variants = drawn(emi_programs(relax_programs()), args.examples, args.seed)
    compared = sum(pruned(program) is not None for program in variants)
    console = Console()
    for passes in args.passes.split(";"):
        figures = measure(passes, plain, variants)
        table = Table(title=f"{passes}: {len(variants)} programs, seed {args.seed}; the oracle compared "
                            f"{compared} ({compared / len(variants):.0%}), the others hold no untaken branch")
        for column in ("programs", "examples/s", "vs without", "findings"):
            table.add_column(column)
        base = figures["without"][0]
        for name, (rate, found) in figures.items():
            table.add_row(name, f"{rate:.2f}", f"{rate / base:.2f}x",
                          ", ".join(f"{key} x{count}" for key, count in found.most_common()) or "-")
        console.print(table)
    console.print(f"repeat: PYTHONPATH=. python benchmarks/emi.py --examples {args.examples} --seed {args.seed} "
                  f"--passes '{args.passes}'")


if __name__ == "__main__":
    main()

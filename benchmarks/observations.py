"""What the observations (passfuzz.judge.observations) and the PassContext configuration axis cost,
side by side.

    PYTHONPATH=. python benchmarks/observations.py [--examples N] [--seed N] [--passes P,P]

For each pass, programs are drawn as ``passfuzz --passes P`` draws them (its focus and motifs,
benchmarks/variants.py's ``draw``), each with a PassContext configuration (strategies.pass_configs),
and each is checked (judge.trial.check, as the fuzz loop checks an example) under each set in
turn, program by program, so a change in the machine's load falls on every set alike: no check,
missed rewrites alone, idempotence alone, the default boundary checks (print round trip, passes
twice, idempotence, missed rewrites), and the default with the drawn configuration
(``--build config=random``). Prints examples per second for each, its ratio to none, and what each
set reported (findings and observations, by kind).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.table import Table

from passfuzz.judge.boundaries import NO_CHECKS, BoundaryChecks
from passfuzz.judge.trial import check
from passfuzz.passes.names import PassSpec, resolve_list
from passfuzz.reach.focus import resolve as resolve_focus
from passfuzz.run.builds import PLAIN_BUILD, parse_build
from strategies import pass_configs, relax_programs

MISSED_ONLY = BoundaryChecks(False, False, False, False, False, True)
IDEMPOTENCE_ONLY = BoundaryChecks(False, False, False, False, True, False)
SETS = {
    "none": (NO_CHECKS, False),
    "missed rewrites": (MISSED_ONLY, False),
    "idempotence": (IDEMPOTENCE_ONLY, False),
    "default (print, twice, idempotence, missed)": (BoundaryChecks(), False),
    "default + config=random": (BoundaryChecks(), True),
}


def drawn(name: str, examples: int, run_seed: int) -> list:
    focus = resolve_focus("auto", [PassSpec(name)]).ops
    pairs = []

    @seed(run_seed)
    @settings(max_examples=examples, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.tuples(relax_programs(focus=focus, motifs_for=(name,)), pass_configs()))
    def draw(pair):
        pairs.append(pair)

    draw()
    return pairs


def measure(name: str, pairs: list) -> dict[str, tuple[float, Counter]]:
    spent, found = Counter(), {label: Counter() for label in SETS}
    specs = resolve_list(name)
    configured = parse_build("config=random")
    for program, config in pairs:
        for label, (checks, with_config) in SETS.items():
            build = configured.with_pass_config(config) if with_config else PLAIN_BUILD
            started = time.perf_counter()
            verdict, _ = check(program, specs, ["llvm"], 60, build, boundaries=checks)
            spent[label] += time.perf_counter() - started
            if verdict.finding is not None:
                found[label][verdict.finding.kind] += 1
            for observation in verdict.observations:
                found[label][observation.kind] += 1
    return {label: (len(pairs) / spent[label], found[label]) for label in SETS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=20, help="programs drawn per pass (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="the draw's seed (default 1)")
    parser.add_argument("--passes", default="ReorderTakeAfterMatmul,FoldConstant",
                        help="the passes, each measured on its own (default ReorderTakeAfterMatmul,FoldConstant)")
    args = parser.parse_args()
    console = Console()
    for name in args.passes.split(","):
        pairs = drawn(name, args.examples, args.seed)
        figures = measure(name, pairs)
        table = Table(title=f"{name}: {len(pairs)} programs, seed {args.seed}")
        for column in ("checks", "examples/s", "vs none", "reported"):
            table.add_column(column)
        base = figures["none"][0]
        for label, (rate, found) in figures.items():
            table.add_row(label, f"{rate:.2f}", f"{rate / base:.2f}x",
                          ", ".join(f"{kind} x{count}" for kind, count in found.most_common()) or "-")
        console.print(table)


if __name__ == "__main__":
    main()

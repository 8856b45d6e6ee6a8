"""Examples and checks per hour with ``--argument-draws K`` against without, side by side in one run.

    PYTHONPATH=. python benchmarks/argument_draws.py [--examples N] [--draws K,K] [--seed N] [--passes P,P;P]

For each pass list, N programs are drawn as ``passfuzz --passes P --seed S`` draws them (the run
planned by passfuzz.campaign.plan: focus, motifs, the default boundary checks), then each program
is checked by ``judge.trial.check`` once per setting in turn (1 draw, then each K), so a change in
the machine's load falls on every setting alike. A check is one (program, pass list, arguments)
triple compared; a trial with K draws makes up to K (fewer when a draw is invalid or the trial
ended before comparing, such as a generator defect). The time of drawing the programs is added to
every setting, per example. Prints examples and checks per hour and their ratio to 1 draw, and
the findings each setting reported (kind and fingerprint; a draw's finding holds that draw).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter

from hypothesis import HealthCheck, given, seed, settings
from rich.console import Console
from rich.table import Table

from passfuzz.campaign import engine
from passfuzz.campaign.plan import RunOptions, plan
from passfuzz.cli.fuzz import parser as fuzz_parser
from passfuzz.judge.trial import check


def planned(passes: str, run_seed: int, corpus: str) -> engine.FuzzConfig:
    args = fuzz_parser().parse_args(["--passes", passes, "--seed", str(run_seed), "--corpus", corpus])
    return plan(RunOptions.of(args))


def drawn(config: engine.FuzzConfig, examples: int, run_seed: int) -> tuple[list, float]:
    """(programs, seconds spent drawing them)."""
    programs = []

    @seed(run_seed)
    @settings(max_examples=examples, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(engine.Fuzzer(config).programs())
    def draw(program):
        programs.append(program)

    started = time.perf_counter()
    draw()
    return programs, time.perf_counter() - started


def measure(config: engine.FuzzConfig, programs: list, settings_: list[int]) -> dict[int, tuple[float, int, Counter]]:
    """Per number of draws: (seconds, checks, findings)."""
    spent, checks, found = Counter(), Counter(), {k: Counter() for k in settings_}
    for program in programs:
        for draws in settings_:
            started = time.perf_counter()
            verdict, optimized = check(program, config.passes, config.targets, config.timeout, config.build,
                                       boundaries=config.boundaries, argument_draws=draws)
            spent[draws] += time.perf_counter() - started
            if optimized is not None and optimized.ok:
                checks[draws] += 1 + len(optimized.draws)
            if verdict.finding is not None:
                found[draws][f"{verdict.finding.kind} {verdict.finding.fingerprint}"] += 1
    return {k: (spent[k], checks[k], found[k]) for k in settings_}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=60, help="programs drawn per pass list (default 60)")
    parser.add_argument("--draws", default="4,8", help="the K to set beside 1, comma-separated (default 4,8)")
    parser.add_argument("--seed", type=int, default=1, help="the run's seed (default 1)")
    parser.add_argument("--passes", default="FoldConstant,ReorderTakeAfterMatmul;LegalizeOps",
                        help="pass lists separated by ';', each measured on its own "
                             "(default 'FoldConstant,ReorderTakeAfterMatmul;LegalizeOps')")
    args = parser.parse_args()
    try:
        settings_ = [1] + [int(k) for k in args.draws.split(",") if int(k) != 1]
    except ValueError:
        parser.error(f"--draws: comma-separated whole numbers, got {args.draws!r}")
    console = Console(width=120)
    for passes in args.passes.split(";"):
        with tempfile.TemporaryDirectory() as corpus:
            config = planned(passes, args.seed, corpus)
            programs, drawing = drawn(config, args.examples, args.seed)
            figures = measure(config, programs, settings_)
        table = Table(title=f"{passes}: {len(programs)} programs, seed {args.seed} "
                            f"(drawing: {1000 * drawing / len(programs):.0f} ms an example, in every row)")
        for column in ("draws", "examples/hour", "checks/hour", "examples vs 1", "checks vs 1", "findings"):
            table.add_column(column, justify="left" if column == "findings" else "right")
        base_examples = base_checks = None
        for draws, (seconds, checks, found) in figures.items():
            hours = (seconds + drawing) / 3600
            per_hour, checks_per_hour = len(programs) / hours, checks / hours
            base_examples, base_checks = base_examples or per_hour, base_checks or checks_per_hour
            table.add_row(str(draws), f"{per_hour:,.0f}", f"{checks_per_hour:,.0f}",
                          f"{per_hour / base_examples:.2f}x", f"{checks_per_hour / base_checks:.2f}x",
                          ", ".join(f"{key} x{count}" for key, count in found.most_common()) or "-")
        console.print(table)
    console.print(f"repeat: PYTHONPATH=. python benchmarks/argument_draws.py --examples {args.examples} "
                  f"--draws {args.draws} --seed {args.seed} --passes '{args.passes}'")


if __name__ == "__main__":
    main()

"""What --check-speed costs, and how often it fires on passes that do not make modules slower.

    python benchmarks/speed.py [--examples N] [--control-examples N] [--seed N]

1. Throughput: the fuzz loop (passfuzz's Fuzzer, one worker) on one seed, with and without the
   slowdown oracle, for each of FoldConstant (changes some modules: only those are timed) and
   LegalizeOps (changes every module: every example is timed). Prints examples per minute.
2. False alarms: drawn programs under LegalizeOps, whose optimized module is what tvm.compile's
   own pipeline makes of the original (it legalizes first), so its true ratio is 1: every
   example is timed, and every slowdown is a false alarm. Prints how many fired of how many timed,
   and the spread of the measured ratios.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, seed, settings

from passfuzz.campaign.engine import FuzzConfig, Fuzzer
from passfuzz.judge.trial import check
from passfuzz.passes.names import resolve_list
from passfuzz.run.speed import SpeedCheck, time_sides
from strategies import relax_programs


def examples_per_minute(passes: str, examples: int, run_seed: int, speed: SpeedCheck | None) -> float:
    with tempfile.TemporaryDirectory() as corpus:
        config = FuzzConfig(passes=resolve_list(passes), targets=["llvm"], corpus_dir=Path(corpus),
                            max_examples=examples, seed=run_seed, speed=speed)
        stats = Fuzzer(config).run()
    return 60 * stats.examples / stats.elapsed


def false_alarms(examples: int, run_seed: int) -> tuple[int, int, list[float]]:
    """(slowdowns, examples timed, measured ratios) of LegalizeOps over drawn programs."""
    passes, check_speed = resolve_list("LegalizeOps"), SpeedCheck()
    fired, timed, ratios = [0], [0], []

    @seed(run_seed)
    @settings(max_examples=examples, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(relax_programs())
    def one(program):
        verdict, optimized = check(program, passes, ["llvm"], 60)
        if verdict.finding is not None or verdict.generator_defect or verdict.incomparable or not optimized.changed:
            return
        timings = time_sides(program, passes, ["llvm"], 60, check_speed)
        if timings:
            timed[0] += 1
            fired[0] += timings["llvm"]["slower"]
            ratios.append(timings["llvm"]["ratio"])

    one()
    return fired[0], timed[0], ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=40, help="examples per throughput run (default 40)")
    parser.add_argument("--control-examples", type=int, default=100,
                        help="drawn programs for the false-alarm count (default 100)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for passes in ("FoldConstant", "LegalizeOps"):
        without = examples_per_minute(passes, args.examples, args.seed, None)
        with_speed = examples_per_minute(passes, args.examples, args.seed, SpeedCheck())
        print(f"{passes}: {without:.1f} examples/min without --check-speed, {with_speed:.1f} with "
              f"({with_speed / without:.2f}x)", flush=True)
    started = time.monotonic()
    fired, timed, ratios = false_alarms(args.control_examples, args.seed)
    quartiles = np.percentile(ratios, [5, 50, 95]) if ratios else [float("nan")] * 3
    print(f"LegalizeOps false alarms: {fired} of {timed} timed examples "
          f"(ratio 5%/50%/95%: {quartiles[0]:.2f}/{quartiles[1]:.2f}/{quartiles[2]:.2f}; "
          f"{time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()

"""Throughput of the fuzz loop against its floor, measured side by side in one run.

The fuzz loop is passfuzz's Fuzzer (generation, two forked children per example, oracle). The
floor is the least any differential fuzzer must spend on the same programs: build, apply the
passes, compile and run both modules, in process, with no generation, isolation or comparison.
The floor compiles the optimized module even when the passes left it unchanged; the loop does
not (passfuzz.run.execute reuses the original side's run), so it can beat its floor.

    python benchmarks/throughput.py [--examples N] [--passes P,...] [--seed N] [--baseline]

Prints examples per second for both and floor/loop (the share of the loop's time the floor
needs: 1.0 is a loop with no overhead, above 1 a loop that skips work the floor does).
``--baseline`` first runs the loop with its shortcuts off (every optimized module compiled and
run, no warm-up in the parent), on the same seed, so before and after are measured in one run.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from tvm import relax

from passfuzz.campaign import engine
from passfuzz.judge import trial
from passfuzz.passes.names import resolve_list
from passfuzz.portable.standalone import load, to_tvm
from passfuzz.relax.build import build_module
from passfuzz.run import execute


def floor_seconds(programs, passes) -> tuple[float, int]:
    """(seconds, sides that failed): a side that fails (a shrink run's program may be a finding's)
    costs the floor what it cost up to the failure."""
    started, failed = time.perf_counter(), 0
    for program in programs:
        for side in ("original", "optimized"):
            try:
                mod = build_module(program)
                if side == "optimized":
                    for spec in passes:
                        mod = spec.for_program(program).instantiate()(mod)
                executable, device = load(mod, "llvm")  # lifts local functions, as a side does
                vm = relax.VirtualMachine(executable, device)
                vm["main"](*[to_tvm(a) for a in program.arguments()])
            except Exception:  # noqa: BLE001 - counted, the floor goes on
                failed += 1
    return time.perf_counter() - started, failed


@contextmanager
def shortcuts_off():
    """The loop as it was before it skipped work: an optimized side the passes left unchanged is
    compiled and run again, and the parent does not warm TVM up before forking."""
    saved = execute._reusable, execute._warm_up
    execute._reusable = lambda *args: False
    execute._warm_up = lambda target: None
    try:
        yield
    finally:
        execute._reusable, execute._warm_up = saved


def fuzz_loop(passes, examples: int, seed: int):
    """(seconds, stats, the programs checked, optimized sides reused)."""
    programs, reused = [], [0]
    original_check = trial.check

    def recording_check(program, *rest, **options):
        programs.append(program)
        verdict, optimized = original_check(program, *rest, **options)
        reused[0] += bool(optimized is not None and optimized.reused)
        return verdict, optimized

    trial.check = recording_check
    try:
        with tempfile.TemporaryDirectory() as corpus_dir:
            config = engine.FuzzConfig(passes=passes, targets=["llvm"], corpus_dir=Path(corpus_dir),
                                       max_examples=examples, seed=seed)
            started = time.perf_counter()
            stats = engine.Fuzzer(config).run()
            return time.perf_counter() - started, stats, programs, reused[0]
    finally:
        trial.check = original_check


def report(label: str, seconds: float, examples: int, floor: float, note: str = "") -> None:
    print(f"{label:24s} {seconds:8.2f} s  {examples / seconds:6.2f} examples/s  floor/loop {floor / seconds:.2f}"
          f"{note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--passes", default="FoldConstant,ReorderTakeAfterMatmul")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline", action="store_true", help="also time the loop with its shortcuts off, first")
    args = parser.parse_args()
    passes = resolve_list(args.passes)

    before = None
    if args.baseline:  # first: the loop must not inherit the warm-up the run after it does
        with shortcuts_off():
            before = fuzz_loop(passes, args.examples, args.seed)
    fuzz, stats, programs, reused = fuzz_loop(passes, args.examples, args.seed)
    if stats.findings or stats.shrink_runs:
        print(f"note: {len(stats.findings)} findings; shrink runs are included in the fuzz time")
    floor, failed = floor_seconds(programs, passes)
    nodes = sum(len(p.nodes) for p in programs) / max(len(programs), 1)
    print(f"passes: {args.passes}; {stats.examples} examples (mean {nodes:.1f} nodes); "
          f"generator defects {stats.generator_defects}; {stats.fired} changed by the passes")
    if before is not None:
        same = "same programs" if before[2] == programs else "other programs (generation differed)"
        report("fuzz loop, shortcuts off", before[0], before[1].examples, floor, f"  ({same})")
    report("fuzz loop", fuzz, stats.examples, floor, f"  ({reused} optimized sides reused the original's run)")
    print(f"{'floor':24s} {floor:8.2f} s  {len(programs) / floor:6.2f} examples/s  "
          f"(build+passes+compile+run, in process; {failed} sides failed)")


if __name__ == "__main__":
    main()

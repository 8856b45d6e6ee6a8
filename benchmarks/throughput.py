"""Throughput of the fuzz loop against its floor, measured side by side in one run.

The fuzz loop is passfuzz's Fuzzer (generation, two forked children per example, oracle). The
floor is the least any differential fuzzer must spend on the same programs: build, apply the
passes, compile and run both modules, in process, with no generation, isolation or comparison.
The floor compiles the optimized module even when the passes left it unchanged; the loop does
not (passfuzz.run.execute reuses the original side's run), so it can beat its floor.

    python benchmarks/throughput.py [--examples N] [--passes P,...] [--seed N] [--baseline]
    PYTHONPATH=. python benchmarks/throughput.py --levers [--examples N] [--workers 1,2] [--draws 4,8]

Prints examples per second for both and floor/loop (the share of the loop's time the floor
needs: 1.0 is a loop with no overhead, above 1 a loop that skips work the floor does).
``--baseline`` first runs the loop with its shortcuts off (every optimized module compiled and
run, no warm-up in the parent), on the same seed, so before and after are measured in one run.

``--levers``: ``passfuzz --passes P --max-examples N --seed S --workers W`` (the run planned from
those arguments, a temporary corpus) with the throughput levers added one at a time, for each
number of workers, in one run: none (the boundary checks in a child of their own, every original
compiled, one argument set), then the boundary checks in the optimized side's child, then an exact
program's original compiled only when needed, then each number of argument draws. Prints examples
and checks per hour (a check is one program, pass list and argument set compared; shrink runs
count in the time, not in the examples) and each against the first row of its number of workers.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from contextlib import contextmanager, nullcontext
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


@contextmanager
def boundary_checks_apart():
    """The loop before the boundary checks moved into the optimized side's child: they run in a
    child of their own, which builds the module and applies the passes once more."""
    saved = trial.module_checks
    trial.module_checks = lambda *args: None
    try:
        yield
    finally:
        trial.module_checks = saved


@contextmanager
def checks_counted(path: Path):
    """Each trial appends its checks (the Program's own arguments and each draw, when the
    optimized side ran) to ``path``; forked workers inherit the wrapper and append too."""
    check = trial.check

    def counting(*args, **kwargs):
        verdict, optimized = check(*args, **kwargs)
        if optimized is not None and optimized.ok:
            descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            os.write(descriptor, f"{1 + len(optimized.draws)}\n".encode())
            os.close(descriptor)
        return verdict, optimized

    trial.check = counting
    try:
        yield
    finally:
        trial.check = check


# (label, whether the checks run in the optimized child, exact programs first, argument draws or None: each K)
LEVERS = [("none (the loop before these levers)", False, False, 1),
          ("+ boundary checks in the optimized child", True, False, 1),
          ("+ exact programs: original only when needed", True, True, 1)]


def lever_run(passes: str, examples: int, seed: int, workers: int, in_child: bool, exact_first: bool,
              draws: int) -> tuple[float, int, int, int]:
    """(seconds, examples, shrink runs, checks) of one planned run."""
    from passfuzz.campaign.parallel import fuzz_in_workers
    from passfuzz.campaign.plan import RunOptions, plan
    from passfuzz.cli.fuzz import parser as fuzz_parser

    with tempfile.TemporaryDirectory() as corpus:
        arguments = ["--passes", passes, "--max-examples", str(examples), "--seed", str(seed), "--corpus", corpus,
                     "--workers", str(workers), "--argument-draws", str(draws)]
        config = plan(RunOptions.of(fuzz_parser().parse_args(
            arguments + ([] if exact_first else ["--always-compile-original"]))))
        counted = Path(corpus) / "checks"
        with checks_counted(counted), (nullcontext() if in_child else boundary_checks_apart()):
            started = time.perf_counter()
            stats = engine.Fuzzer(config).run() if workers == 1 else fuzz_in_workers(config, workers, lambda e: None)
            seconds = time.perf_counter() - started
        checks = sum(int(line) for line in counted.read_text().split()) if counted.exists() else 0
    return seconds, stats.examples, stats.shrink_runs, checks


def levers(passes: str, examples: int, seed: int, workers: list[int], draws: list[int]) -> None:
    rows = LEVERS + [(f"+ {k} argument draws", True, True, k) for k in draws]
    print(f"passes: {passes}; {examples} examples a run, seed {seed}; load average {os.getloadavg()[0]:.1f}")
    print(f"{'workers':>7}  {'levers':48s} {'examples/hour':>13} {'checks/hour':>11} {'examples':>8} {'checks':>7}"
          f"  shrink runs")
    for count in workers:
        first = None
        for label, in_child, exact_first, k in rows:
            seconds, done, shrunk, checks = lever_run(passes, examples, seed, count, in_child, exact_first, k)
            per_hour, checks_per_hour = 3600 * done / seconds, 3600 * checks / seconds
            first = first or (per_hour, checks_per_hour)
            print(f"{count:>7}  {label:48s} {per_hour:>13,.0f} {checks_per_hour:>11,.0f} "
                  f"{per_hour / first[0]:>7.2f}x {checks_per_hour / first[1]:>6.2f}x  {shrunk}", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}; repeat: PYTHONPATH=. python benchmarks/throughput.py "
          f"--levers --examples {examples} --seed {seed} --passes {passes} --workers {','.join(map(str, workers))} "
          f"--draws {','.join(map(str, draws))}")


def report(label: str, seconds: float, examples: int, floor: float, note: str = "") -> None:
    print(f"{label:24s} {seconds:8.2f} s  {examples / seconds:6.2f} examples/s  floor/loop {floor / seconds:.2f}"
          f"{note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200, help="examples per run (default 200)")
    parser.add_argument("--passes", default="FoldConstant,ReorderTakeAfterMatmul",
                        help="the pass list (default FoldConstant,ReorderTakeAfterMatmul)")
    parser.add_argument("--seed", type=int, default=0, help="the runs' seed (default 0)")
    parser.add_argument("--baseline", action="store_true", help="also time the loop with its shortcuts off, first")
    parser.add_argument("--levers", action="store_true",
                        help="examples and checks per hour with each throughput lever added in turn (module doc)")
    parser.add_argument("--workers", default="1,2", help="with --levers: worker counts, comma-separated (default 1,2)")
    parser.add_argument("--draws", default="8", help="with --levers: argument draws to add, comma-separated (default 8)")
    args = parser.parse_args()
    if args.levers:
        try:
            workers, draws = [int(w) for w in args.workers.split(",")], [int(k) for k in args.draws.split(",")]
        except ValueError:
            parser.error("--workers and --draws take comma-separated whole numbers")
        levers(args.passes, args.examples, args.seed, workers, draws)
        return
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

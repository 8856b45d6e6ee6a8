"""Throughput of the fuzz loop against its floor, measured side by side in one run.

The fuzz loop is passfuzz's Fuzzer (generation, two forked children per example, oracle). The
floor is the least any differential fuzzer must spend on the same programs: build, apply the
passes, compile and run both modules, in process, with no generation, isolation or comparison.
The floor compiles the optimized module even when the passes left it unchanged; the loop does
not (passfuzz.run.execute reuses the original side's run), so it can beat its floor.

    python benchmarks/throughput.py [--examples N] [--passes P,...] [--seed N] [--baseline]
    PYTHONPATH=. python benchmarks/throughput.py --levers [--examples N] [--workers 1,2] [--draws 4,8]
    PYTHONPATH=. python benchmarks/throughput.py --merged K [--examples N]

Prints examples per second for both and floor/loop (the share of the loop's time the floor
needs: 1.0 is a loop with no overhead, above 1 a loop that skips work the floor does).
``--baseline`` first runs the loop with its shortcuts off (every optimized module compiled and
run, no warm-up in the parent), on the same seed, so before and after are measured in one run.

``--levers``: N programs drawn as ``passfuzz --passes P --seed S`` draws them (the run planned
from those arguments: focus, motifs, the default boundary checks), each checked by
``judge.trial.check`` with the throughput levers added one at a time, the settings in turn program
by program (so the machine's load falls on all alike): none (the boundary checks in a child of
their own, every original compiled, one argument set), then the boundary checks in the optimized
side's child, then an exact program's original compiled only when needed, then each number of
argument draws. With W workers, W forked processes each check every W-th program, side by side,
and a row's time is its slowest worker's. The time of drawing the programs is added to every row
(divided among the workers). Prints examples and checks per hour (a check is one program, pass
list and argument set compared), each against the first row of its number of workers, and examples
against the first row of the first number of workers. Shrinking
is not run: a finding's trial is timed as any other.
"""

from __future__ import annotations

import argparse
import os
import sys
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


# (label, the boundary checks in the optimized side's child, exact programs first, argument draws)
LEVERS = [("none (the loop before these levers)", False, False, 1),
          ("+ boundary checks in the optimized child", True, False, 1),
          ("+ exact programs: original only when needed", True, True, 1)]


def lever_share(config, programs: list, rows: list) -> list[tuple[float, int]]:
    """Per row: (seconds, checks) of ``trial.check`` on each program, the rows in turn program by
    program (a change in load falls on every row alike)."""
    spent, checks = [0.0] * len(rows), [0] * len(rows)
    for program in programs:
        for i, (_, in_child, exact_first, draws) in enumerate(rows):
            with nullcontext() if in_child else boundary_checks_apart():
                started = time.perf_counter()
                _, optimized = trial.check(program, config.passes, config.targets, config.timeout, config.build,
                                           boundaries=config.boundaries, argument_draws=draws,
                                           exact_first=exact_first)
                spent[i] += time.perf_counter() - started
            if optimized is not None and optimized.ok:
                checks[i] += 1 + len(optimized.draws)
    return list(zip(spent, checks))


def in_workers(config, programs: list, rows: list, workers: int) -> list[list[tuple[float, int]]]:
    """``lever_share`` of each worker's share of the programs, the workers forked and run at once."""
    if workers == 1:
        return [lever_share(config, programs, rows)]
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(workers) as pool:
        return pool.starmap(lever_share, [(config, programs[w::workers], rows) for w in range(workers)])


def levers(passes: str, examples: int, seed: int, workers: list[int], draws: list[int]) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from argument_draws import drawn, planned

    rows = LEVERS + [(f"+ {k} argument draws", True, True, k) for k in draws]
    with tempfile.TemporaryDirectory() as corpus:
        config = planned(passes, seed, corpus)
        programs, drawing = drawn(config, examples, seed)
    print(f"passes: {passes}; {len(programs)} programs drawn as `passfuzz --passes {passes} --seed {seed}` draws "
          f"them ({1000 * drawing / len(programs):.0f} ms an example, in every row); load average "
          f"{os.getloadavg()[0]:.1f}")
    print(f"{'workers':>7}  {'levers':46s} {'examples/hour':>13} {'checks/hour':>11} {'examples':>8} {'checks':>7}"
          f"  {'examples vs the first row of 1 worker':>30}")
    base = None
    for count in workers:
        shares = in_workers(config, programs, rows, count)
        first = None
        for i, (label, *_) in enumerate(rows):
            # the workers ran side by side: a row's wall time is its slowest worker's, drawing shared out
            seconds = max(share[i][0] for share in shares) + drawing / count
            checks = sum(share[i][1] for share in shares)
            per_hour, checks_per_hour = 3600 * len(programs) / seconds, 3600 * checks / seconds
            first = first or (per_hour, checks_per_hour)
            base = base or per_hour
            print(f"{count:>7}  {label:46s} {per_hour:>13,.0f} {checks_per_hour:>11,.0f} "
                  f"{per_hour / first[0]:>7.2f}x {checks_per_hour / first[1]:>6.2f}x  {per_hour / base:>29.2f}x",
                  flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}; repeat: PYTHONPATH=. python benchmarks/throughput.py "
          f"--levers --examples {examples} --seed {seed} --passes {passes} --workers {','.join(map(str, workers))} "
          f"--draws {','.join(map(str, draws))}")


def merged(passes: str, examples: int, seed: int, group: int) -> None:
    """What many programs per compile would buy: ``tvm.compile`` and VM creation of each group of
    ``group`` drawn programs as that many modules, against one module holding each program's
    functions under names of their own."""
    import tvm

    sys.path.insert(0, str(Path(__file__).parent))
    from argument_draws import drawn, planned

    with tempfile.TemporaryDirectory() as corpus:
        programs, _ = drawn(planned(passes, seed, corpus), examples, seed)
    load(build_module(programs[0]), "llvm")  # the first compile's set-up, in neither column
    apart = together = 0.0
    groups = 0
    for start in range(0, len(programs) - group + 1, group):
        modules = [build_module(program) for program in programs[start:start + group]]
        one = tvm.IRModule()
        for i, mod in enumerate(modules):
            for gv, func in mod.functions.items():
                name = f"{gv.name_hint}_{i}"
                one[name] = func.with_attr("global_symbol", name) if "global_symbol" in (func.attrs or {}) else func
        try:
            started = time.perf_counter()
            for mod in modules:
                relax.VirtualMachine(*load(mod, "llvm"))
            middle = time.perf_counter()
            relax.VirtualMachine(*load(one, "llvm"))
            ended = time.perf_counter()
        except Exception as error:  # noqa: BLE001 - a group TVM cannot compile is left out, and said
            print(f"left out a group: {type(error).__name__}: {str(error).splitlines()[0][:100]}")
            continue
        apart, together, groups = apart + middle - started, together + ended - middle, groups + 1
    print(f"{groups} groups of {group} programs: {1000 * apart / groups:.0f} ms as {group} modules, "
          f"{1000 * together / groups:.0f} ms as one ({together / apart:.2f}x)")


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
    parser.add_argument("--merged", type=int, metavar="K",
                        help="instead: compile and load time of K drawn programs as K modules against one (merged())")
    args = parser.parse_args()
    if args.merged:
        merged(args.passes, args.examples, args.seed, args.merged)
        return
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

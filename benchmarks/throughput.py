"""Throughput of the fuzz loop against its floor, measured side by side in one run.

The fuzz loop is passfuzz's Fuzzer (generation, two forked children per example, oracle). The
floor is the least any differential fuzzer must spend on the same programs: build, apply the
passes, compile and run both modules, in process, with no generation, isolation or comparison.

    python benchmarks/throughput.py [--examples N] [--passes P,...] [--seed N]

Prints examples per second for both and their ratio (fuzz loop time / floor time).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import tvm
from tvm import relax

from passfuzz import engine, trial
from passfuzz.passes import resolve_list
from passfuzz.relax_build import build_module, to_tvm


def floor_seconds(programs, passes) -> float:
    started = time.perf_counter()
    for program in programs:
        for side in ("original", "optimized"):
            mod = build_module(program)
            if side == "optimized":
                for spec in passes:
                    mod = spec.instantiate()(mod)
            vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
            vm["main"](*[to_tvm(a) for a in program.arguments()])
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--passes", default="FoldConstant,ReorderTakeAfterMatmul")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    passes = resolve_list(args.passes)

    programs = []
    original_check = trial.check

    def recording_check(program, *rest, **options):
        programs.append(program)
        return original_check(program, *rest, **options)

    trial.check = recording_check
    with tempfile.TemporaryDirectory() as corpus_dir:
        config = engine.FuzzConfig(passes=passes, targets=["llvm"], corpus_dir=Path(corpus_dir),
                                   max_examples=args.examples, seed=args.seed)
        started = time.perf_counter()
        stats = engine.Fuzzer(config).run()
        fuzz = time.perf_counter() - started
    trial.check = original_check
    if stats.findings or stats.shrink_runs:
        print(f"note: {len(stats.findings)} findings; shrink runs are included in the fuzz time")
    floor = floor_seconds(programs, passes)
    nodes = sum(len(p.nodes) for p in programs) / max(len(programs), 1)
    print(f"passes: {args.passes}; {stats.examples} examples (mean {nodes:.1f} nodes); "
          f"generator defects {stats.generator_defects}")
    print(f"fuzz loop: {fuzz:8.2f} s  {stats.examples / fuzz:6.2f} examples/s")
    print(f"floor:     {floor:8.2f} s  {len(programs) / floor:6.2f} examples/s  (build+passes+compile+run, in process)")
    print(f"ratio fuzz/floor: {fuzz / floor:.2f}")


if __name__ == "__main__":
    main()

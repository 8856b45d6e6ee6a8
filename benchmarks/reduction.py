"""Time from first sighting to saved reproducer, and how small the reproducer is, per planted bug.

Each planted bug of ``tests/planted_passes.py`` is fuzzed until it is found (``-x``, in an
empty corpus, on llvm); the time runs from the moment its first example fails to the moment the
reduced reproducer is saved, which is Hypothesis' bounded shrinking (``--shrink-time``) plus the
reducer (``--reduce-time``). Some bugs are fuzzed behind passes that change nothing, which the
reduced record must have dropped. The reduced op count is set against the hand-written minimal
one (``planted_passes.MINIMAL_OPS``); elements counts the arguments' elements (shapes are
Hypothesis' to shrink: the reducer keeps them).

    PYTHONPATH=. python benchmarks/reduction.py [--shrink-time S] [--reduce-time S] [--bugs a,b]

Prints one line per bug and the median time; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from passfuzz.campaign import engine
from passfuzz.campaign.events import Event, FindingSaved, FindingSeen
from passfuzz.passes.names import resolve_list
from tests.planted_passes import MINIMAL_OPS

PLANTED = "tests.planted_passes:"


@dataclass(frozen=True)
class Bug:
    name: str  # in tests.planted_passes
    ops: str | None = None  # --ops, so that the first sighting comes soon
    before: str = ""  # passes run before the planted one (some of them change nothing)
    seed: int = 1


BUGS = [
    Bug("permute_as_reshape", before="FoldConstant,DeadCodeElimination"),
    Bug("matmul_drop_transpose", ops="matmul,permute_dims,negative,add,exp,sum"),
    Bug("segfault_on_negative", ops="negative,abs,exp,add,permute_dims"),
    Bug("raise_always", before="Normalize,CanonicalizeBindings"),
    Bug("drop_bindings"),
    Bug("raise_after_legalize", before="Normalize,LegalizeOps,CanonicalizeBindings"),
    Bug("raise_on_if", ops="if,negative,exp,add,abs"),
    Bug("spin_forever", ops="negative,exp,add"),
]


def measure(bug: Bug, args) -> dict:
    passes = resolve_list(",".join(filter(None, [bug.before, PLANTED + bug.name])))
    times: dict[str, float] = {}
    saved: dict = {}

    def notify(event: Event) -> None:
        if isinstance(event, FindingSeen):
            times.setdefault("new", time.monotonic())
        if isinstance(event, FindingSaved):
            times.setdefault("saved", time.monotonic())
            saved["finding"], saved["program"] = event.finding, event.program

    with tempfile.TemporaryDirectory() as corpus_dir:
        config = engine.FuzzConfig(passes=passes, targets=["llvm"], corpus_dir=Path(corpus_dir),
                                   max_examples=args.max_examples, seed=bug.seed, exitfirst=True,
                                   timeout=args.timeout, shrink_seconds=args.shrink_time,
                                   reduce_seconds=args.reduce_time, ops=bug.ops.split(",") if bug.ops else None)
        started = time.monotonic()
        stats = engine.Fuzzer(config, notify).run()
    if not saved:
        return {"bug": bug.name, "found": False, "examples": stats.examples}
    return {"bug": bug.name, "found": True, "kind": saved["finding"].kind,
            "sighted": times["new"] - started, "seconds": times["saved"] - times["new"],
            "shrink_runs": stats.shrink_runs, "passes": (len(passes), len(saved["finding"].passes)),
            "ops": len(saved["program"].nodes), "minimal": MINIMAL_OPS[bug.name],
            "elements": sum(int(np.prod(p.shape)) for _, p in saved["program"].params),
            "program": saved["program"].summary()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shrink-time", type=float, default=engine.FuzzConfig.shrink_seconds)
    parser.add_argument("--reduce-time", type=float, default=engine.FuzzConfig.reduce_seconds)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--max-examples", type=int, default=500)
    parser.add_argument("--bugs", default=",".join(b.name for b in BUGS))
    args = parser.parse_args()
    chosen = [b for b in BUGS if b.name in args.bugs.split(",")]

    print(f"shrink {args.shrink_time:g} s + reduce {args.reduce_time:g} s per finding; timeout {args.timeout:g} s")
    print(f"{'bug':24} {'kind':13} {'sighted':>8} {'to saved':>9} {'runs':>5} {'passes':>7} {'ops':>4} "
          f"{'minimal':>7} {'elements':>8}  reduced program")
    seconds = []
    for bug in chosen:
        row = measure(bug, args)
        if not row["found"]:
            print(f"{bug.name:24} not found in {row['examples']} examples")
            continue
        seconds.append(row["seconds"])
        print(f"{row['bug']:24} {row['kind']:13} {row['sighted']:7.1f}s {row['seconds']:8.1f}s "
              f"{row['shrink_runs']:5d} {row['passes'][0]:>3}->{row['passes'][1]:<3} {row['ops']:4d} "
              f"{row['minimal']:7d} {row['elements']:8d}  {row['program']}", flush=True)
    if seconds:
        print(f"median time from first sighting to saved reproducer: {statistics.median(seconds):.1f} s "
              f"over {len(seconds)} bugs (max {max(seconds):.1f} s)")


if __name__ == "__main__":
    main()

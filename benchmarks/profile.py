"""Where one example's time goes in the fuzz loop, as shares of the example's time.

    PYTHONPATH=. python benchmarks/profile.py [--examples N] [--seed N] [--passes P,P;P]

Runs the fuzz loop as ``passfuzz --passes P --max-examples N --seed S`` does (the run planned by
passfuzz.campaign.plan from the same arguments, a temporary corpus) once per pass list, and
splits its time, from the inside, into:

- generation: Hypothesis drawing the Program and the engine's bookkeeping between trials
  (the run's time outside ``judge.trial.check``, less its start-up: focus, probe, warm-up);
- in each forked child (the two sides, the boundary checks' child, any other side): building the
  module, the passes (with well-formedness, hashing, the fresh build and the adapter's choice),
  ``tvm.compile``, VM creation (LLVM's JIT), the run (arguments in, outputs out), the boundary
  checks' print round trip and passes applied a second time; the child's stages are read off its
  progress marks (passfuzz.run.isolate.mark) and sent back with a note;
- fork and pipe: each child's wall time seen by the parent less what the child measured inside;
- oracle: the trial's time in the parent outside its children (numpy reference, comparisons).

Stages are split by child: "original", "optimized", "boundaries" (judge.boundaries' child) and
"other" (a probe of a reference mismatch, pipeline blame, a prefix while pinning). The shares are
of the run's time less start-up; per trial (an example or a shrink run), in milliseconds, beside them.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from contextlib import contextmanager

import tvm
from rich.console import Console
from rich.table import Table

from passfuzz.campaign import engine
from passfuzz.campaign.plan import RunOptions, plan
from passfuzz.campaign.stats import Stats
from passfuzz.cli.fuzz import parser as fuzz_parser
from passfuzz.judge import trial
from passfuzz.run import isolate

# a mark's head -> the stage it opens
STAGES = {"build": "build", "pass": "passes", "well-formed": "passes", "compile": "tvm.compile",
          "run": "run", "print": "print round trip", "repeat": "passes again", "json": "JSON round trip"}


class Profile:
    """Seconds per (child, stage), gathered in the parent; the child's clock lives in the child."""

    def __init__(self) -> None:
        self.seconds: Counter = Counter()
        self.child_kind = "other"  # which child the next fork is, set by the parent's wrappers
        self.in_child: list | None = None  # in a child: [(stage, started)], and VM seconds
        self.sides_seen: set[str] = set()  # in the current trial
        self.first_trial: float | None = None  # when the first trial started (the run's start-up before it)

    # -- in the child ---------------------------------------------------------------------------
    def start_child(self) -> None:
        self.in_child = [("setup", time.perf_counter())]
        self.vm_seconds = 0.0

    def mark(self, stage: str) -> None:
        if self.in_child is not None:
            self.in_child.append((STAGES.get(stage.split(":")[0], stage.split(":")[0]), time.perf_counter()))

    def child_totals(self) -> dict:
        ended = time.perf_counter()
        totals: Counter = Counter()
        for (stage, began), (_, until) in zip(self.in_child, self.in_child[1:] + [("", ended)]):
            totals[stage] += until - began
        if self.vm_seconds:  # VM creation happens inside the run stage
            totals["run"] -= self.vm_seconds
            totals["VM creation (JIT)"] += self.vm_seconds
        return dict(totals)


@contextmanager
def profiled(profile: Profile):
    """The loop instrumented: forks, marks and VM creation timed, the trial's parts named."""
    saved = (isolate.run_forked, isolate.mark, tvm.relax.VirtualMachine, trial.run_side, trial.boundary_verdict,
             trial.check)
    run_forked, mark, machine, run_side, boundary_verdict, check = saved

    def timed_run_forked(fn, timeout):
        def measured():
            profile.start_child()
            try:
                return fn()
            finally:
                isolate.note("profile", profile.child_totals())

        kind = profile.child_kind
        started = time.perf_counter()
        child = run_forked(measured, timeout)
        wall = time.perf_counter() - started
        inside = child.notes.get("profile", {})
        for stage, seconds in inside.items():
            profile.seconds[(kind, stage)] += seconds
        profile.seconds[(kind, "fork and pipe")] += wall - sum(inside.values())
        profile.seconds[("parent", "children")] += wall
        return child

    def timed_mark(stage):
        profile.mark(stage)
        mark(stage)

    def timed_machine(*args, **kwargs):
        started = time.perf_counter()
        try:
            return machine(*args, **kwargs)
        finally:
            profile.vm_seconds += time.perf_counter() - started

    def named_side(program, passes, *args, **kwargs):
        role = "original" if passes is None else "optimized"  # a trial's first of each; later ones are "other"
        profile.child_kind = "other" if role in profile.sides_seen else role
        profile.sides_seen.add(role)
        try:
            return run_side(program, passes, *args, **kwargs)
        finally:
            profile.child_kind = "other"

    def named_boundaries(*args, **kwargs):
        profile.child_kind = "boundaries"
        try:
            return boundary_verdict(*args, **kwargs)
        finally:
            profile.child_kind = "other"

    def timed_check(*args, **kwargs):
        profile.sides_seen = set()
        started = time.perf_counter()
        try:
            return check(*args, **kwargs)
        finally:
            profile.seconds[("parent", "trials")] += time.perf_counter() - started
            profile.first_trial = profile.first_trial or started

    isolate.run_forked, isolate.mark, tvm.relax.VirtualMachine = timed_run_forked, timed_mark, timed_machine
    trial.run_side, trial.boundary_verdict, trial.check = named_side, named_boundaries, timed_check
    try:
        yield profile
    finally:
        (isolate.run_forked, isolate.mark, tvm.relax.VirtualMachine, trial.run_side, trial.boundary_verdict,
         trial.check) = saved


def profile_run(passes: str, examples: int, seed: int) -> tuple[Profile, float, Stats, float]:
    """(profile, the run's seconds, its statistics, start-up seconds) of ``passfuzz --passes P``."""
    with tempfile.TemporaryDirectory() as corpus:
        args = fuzz_parser().parse_args(["--passes", passes, "--max-examples", str(examples), "--seed", str(seed),
                                         "--corpus", corpus])
        config = plan(RunOptions.of(args))
        with profiled(Profile()) as profile:
            started = time.perf_counter()
            stats = engine.Fuzzer(config).run()
            seconds = time.perf_counter() - started
    start_up = (profile.first_trial or started) - started
    return profile, seconds, stats, start_up


def table(passes: str, profile: Profile, seconds: float, stats: Stats, start_up: float) -> Table:
    looped, trials = seconds - start_up, stats.examples + stats.shrink_runs
    counted = dict(profile.seconds)
    trials_seconds = counted.pop(("parent", "trials"))
    children = counted.pop(("parent", "children"))
    rows = sorted(counted.items(), key=lambda item: -item[1])
    rows.append((("parent", "oracle (trial outside its children)"), trials_seconds - children))
    rows.append((("parent", "generation and engine"), looped - trials_seconds))
    out = Table(title=f"{passes}: {stats.examples} examples and {stats.shrink_runs} shrink runs in {looped:.1f} s "
                      f"after {start_up:.1f} s start-up ({3600 * trials / looped:,.0f} trials/hour)")
    for column, justify in (("child", "left"), ("stage", "left"), ("share", "right"), ("ms/trial", "right")):
        out.add_column(column, justify=justify)
    for (kind, stage), spent in sorted(rows, key=lambda item: -item[1]):
        if spent < 0.0005 * trials:  # under 0.5 ms an example: a stage this child does not have
            continue
        out.add_row(kind, stage, f"{100 * spent / looped:.1f}%", f"{1000 * spent / trials:.1f}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=100, help="examples per pass list (default 100)")
    parser.add_argument("--seed", type=int, default=1, help="the run's seed (default 1)")
    parser.add_argument("--passes", default="FoldConstant,ReorderTakeAfterMatmul;LegalizeOps",
                        help="pass lists separated by ';', each profiled in its own run "
                             "(default 'FoldConstant,ReorderTakeAfterMatmul;LegalizeOps')")
    args = parser.parse_args()
    console = Console(width=100)
    for passes in args.passes.split(";"):
        console.print(table(passes, *profile_run(passes, args.examples, args.seed)))
    console.print(f"repeat: PYTHONPATH=. python benchmarks/profile.py --examples {args.examples} --seed {args.seed} "
                  f"--passes '{args.passes}'")


if __name__ == "__main__":
    main()

"""--check-speed: the original and the optimized module timed in one child, on each target.

Only once both sides ran and matched does the engine ask this (a slower wrong result is a
wrong result first), and only when the passes changed the module or the build differs (an
unchanged module built the same way is its own original). Both modules are built, compiled and loaded in the *same* child, so the two
sides share one process, one allocator, one cache state; ``timing.compare_speed`` interleaves
their calls and judges the ratio (that module says how, and why so).

Only a plain call of ``main`` is timed (an argument dropped by a pass aside): under a changed
convention the optimized side's call includes work the original does once (a lifted weight
transform), and timing it per call would report what the pass moved on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from tvm import relax

from passfuzz.ir.program import Program
from passfuzz.passes.names import PassSpec
from passfuzz.portable import timing
from passfuzz.portable.standalone import load, to_tvm
from passfuzz.relax.build import build_module

from . import isolate
from .builds import PLAIN_BUILD, Build
from .calling import Adapter, choose_adapter
from .targets import needs_fresh_process


@dataclass(frozen=True)
class SpeedCheck:
    """What --check-speed times and when it calls a module slower (timing's defaults)."""

    threshold: float = timing.THRESHOLD  # optimized / original beyond which it is a slowdown
    alpha: float = timing.ALPHA
    min_pairs: int = timing.MIN_PAIRS
    max_pairs: int = timing.MAX_PAIRS
    max_seconds: float = timing.MAX_SECONDS  # per target of one example
    sample_seconds: float = timing.SAMPLE_SECONDS

    def arguments(self) -> dict:
        """compare_speed's keyword arguments."""
        return {"threshold": self.threshold, "alpha": self.alpha, "min_pairs": self.min_pairs,
                "max_pairs": self.max_pairs, "max_seconds": self.max_seconds, "sample_seconds": self.sample_seconds}


def timeable(adapter: Adapter) -> bool:
    """Is the optimized side called as the original is (main, the same arguments but dropped ones)?"""
    return adapter.transform is None and adapter.slots is None and not adapter.adjoint


def _time_both(program: Program, passes: Sequence[PassSpec], targets: Sequence[str], build: Build,
               check: SpeedCheck) -> dict:
    """In the child: per target, compare_speed's result of the optimized module against the
    original; {} when the optimized side's call cannot be timed like the original's."""
    isolate.mark("build")
    original = build_module(program)
    optimized = build_module(program)
    for spec in passes:
        optimized = spec.for_program(program).instantiate()(optimized)
    adapter = choose_adapter(build_module(program), optimized, program.num_input, program.symbol_values())
    if adapter is None or not timeable(adapter):
        return {}
    results = {}
    for target in targets:
        isolate.mark(f"compile:{target}")
        original_executable, device = load(original, target)
        optimized_executable, _ = load(optimized, target, build.as_dict())
        isolate.mark(f"time:{target}")
        args = [to_tvm(a, device) for a in program.arguments()]
        optimized_args = adapter.passed(args)
        original_vm = relax.VirtualMachine(original_executable, device)
        optimized_vm = relax.VirtualMachine(optimized_executable, device)

        def run_original():
            original_vm["main"](*args)
            device.sync()  # a GPU kernel is done when synchronised, not when launched

        def run_optimized():
            optimized_vm["main"](*optimized_args)
            device.sync()

        results[target] = timing.compare_speed(run_original, run_optimized, **check.arguments())
    return results


def time_sides(program: Program, passes: Sequence[PassSpec], targets: Sequence[str], timeout: float,
               check: SpeedCheck, build: Build = PLAIN_BUILD) -> dict[str, dict]:
    """Per target, how the optimized module's speed compares with the original's (timing's dict);
    {} when they were not timed: a changed calling convention, or a child that failed (both
    sides ran before, so a failure here is no finding of its own)."""
    limit = timeout + check.max_seconds * len(targets)  # compiling both, then timing each target
    if needs_fresh_process(targets):
        child = isolate.run_fresh(_time_both, (program, list(passes), list(targets), build, check), limit)
    else:
        child = isolate.run_forked(lambda: _time_both(program, passes, targets, build, check), limit)
    return child.value if child.status == "ok" else {}

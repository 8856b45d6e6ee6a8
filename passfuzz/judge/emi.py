"""The EMI oracle (equivalence modulo inputs): a Program and its twin whose untaken If branches are
pruned (passfuzz.ir.emi) compute the same values on the Program's arguments, so after the same
passes their outputs must be bit-identical. An ``emi-mismatch`` is a pass whose result on the live
code depends on code that never runs: a rewrite an analysis of the whole function enables, a value
carried out of the untaken branch, a rounding the differential oracle's tolerance would hide.

The two unoptimized modules are compared first. Both sides already matched numpy (the Program's
by the reference oracle, and the twin computes the same reference by construction), so a
difference there is no generator defect: TVM's own build compiles the live code differently for
what the dead code holds. It blames no pass, and is saved and listed apart like a reference
mismatch. After the passes, a difference blames the shortest prefix of them that shows it.

Outputs are compared on CPU targets only, bit for bit, as ``nondeterministic-output``'s are; a
build that schedules each kernel by what it drew or tuned (``schedule=random``, ``tune=N``) is not
judged, since the twin's kernels would get schedules of their own.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from passfuzz.ir.emi import pruned
from passfuzz.ir.program import Program
from passfuzz.passes.names import PassSpec
from passfuzz.run.builds import Build
from passfuzz.run.execute import Outcome, run_side

from .boundaries import cpu_targets
from .finding import new_finding
from .oracle import Verdict, pin_to_prefix

EMI_MISMATCH = "emi-mismatch"


def judged_under(build: Build) -> bool:
    """Does the build compile both modules' shared kernels alike?"""
    return build.schedule is None and build.tune is None


def emi_verdict(program: Program, passes: Sequence[PassSpec], original: Outcome, optimized: Outcome,
                targets: Sequence[str], timeout: float, build: Build) -> Verdict:
    """An ``emi-mismatch`` finding of an example whose sides matched, or Verdict() (module doc).
    The twin failing where the Program ran tells nothing this oracle is about: no verdict."""
    twin, cpu = pruned(program), cpu_targets(targets)
    if twin is None or not cpu or not judged_under(build):
        return Verdict()
    twin_original = run_side(twin, None, cpu, timeout)
    if not twin_original.ok:
        return Verdict()
    unoptimized = _difference(original, twin_original, cpu)
    if unoptimized:
        target, what, difference = unoptimized
        return Verdict(new_finding(EMI_MISMATCH, (), f"{what} differ",
                                   f"the unoptimized module's {difference}", f"run:{target}", targets=(target,)))

    def after(end: int) -> tuple[Verdict, None]:
        variant = optimized if end == len(passes) else \
            run_side(program, passes[:end], cpu, timeout, build, original=original)
        twin_optimized = run_side(twin, passes[:end], cpu, timeout, build, original=twin_original)
        found = _difference(variant, twin_optimized, cpu) if variant.ok and twin_optimized.ok else None
        if not found:
            return Verdict(), None
        target, what, difference = found
        return Verdict(new_finding(EMI_MISMATCH, passes[:end], f"{what} differ",
                                   f"after {passes[end - 1].text}, the module's {difference}", f"run:{target}",
                                   build=build, targets=(target,))), None

    verdict, _ = after(len(passes))
    if verdict.finding is None:
        return verdict
    return pin_to_prefix(verdict, None, range(0 if build.text else 1, len(passes)), after)[0]


def _difference(variant: Outcome, twin: Outcome, targets: Sequence[str]) -> tuple[str, str, str] | None:
    """(target, what differs: 'output count', 'shape', 'dtype' or 'values', a description), or None
    when every output on ``targets`` is bit-identical."""
    for target in targets:
        a, b = variant.outputs.get(target, []), twin.outputs.get(target, [])
        if len(a) != len(b):
            return target, "output count", f"{len(a)} outputs become {len(b)} with its untaken branches pruned"
        for i, (x, y) in enumerate(zip(a, b)):
            head = f"output {i} ({x.dtype}, shape {x.shape}) on {target}"
            if x.shape != y.shape or x.dtype != y.dtype:
                what = "shape" if x.shape != y.shape else "dtype"
                return target, what, f"{head} becomes {y.dtype}, shape {y.shape} with its untaken branches pruned"
            if x.size and x.tobytes() != y.tobytes():
                bad = (np.ascontiguousarray(x).view(np.uint8).reshape(x.size, -1)
                       != np.ascontiguousarray(y).view(np.uint8).reshape(y.size, -1)).any(axis=1)
                where = tuple(int(k) for k in np.unravel_index(int(np.argmax(bad)), x.shape))
                return target, "values", (f"{head} changes with its untaken branches pruned: {int(bad.sum())} of "
                                          f"{x.size} elements differ in their bits, first at {list(where)}: "
                                          f"{x[where].item()!r} as drawn, {y[where].item()!r} pruned")
    return None

"""One trial: both sides of one example, run and judged.

The original side is held against the numpy reference and across targets, the optimized side
against the original (oracle.judge, or Gradient's own oracle), a finding pinned to the shortest
prefix of the passes (and of a drawn schedule's steps) that shows it, and, with --check-speed, the
sides timed. The engine runs a trial per example and per shrink candidate; replay, the reduce
command and the benchmarks run the same trial.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Sequence

import numpy as np

from passfuzz.ir.argument_draws import argument_variants
from passfuzz.ir.catalogue.base import NO_REFERENCE
from passfuzz.ir.graph import analyse, evaluate, output_leaves
from passfuzz.ir.program import Program
from passfuzz.passes.contracts import sequence_violation
from passfuzz.passes.names import PassSpec
from passfuzz.run.builds import PLAIN_BUILD, Build
from passfuzz.run.execute import Outcome, run_side
from passfuzz.run.speed import SpeedCheck, time_sides
from passfuzz.run.targets import drawable_dtypes

from . import gradient
from .boundaries import BoundaryChecks, boundary_verdict, module_checks
from .emi import emi_verdict
from .finding import keyed_as_misuse
from .observations import missed_rewrites
from .oracle import (
    Verdict,
    judge,
    pin_to_prefix,
    pipeline_verdict,
    probe_program,
    reference_verdict,
    slowdown_verdict,
    target_verdict,
)
from .pipeline_blame import blame_pipeline

# While shrinking, a side may take this many times as long as the unoptimized side took before it
# counts as hung (never less than the floor, never more than --timeout): a candidate that still
# hangs then costs seconds, not the whole --timeout.
SHRINK_TIMEOUT_FACTOR = 10.0
SHRINK_TIMEOUT_FLOOR = 3.0


def shrink_timeout(original_seconds: float, timeout: float) -> float:
    return min(timeout, max(SHRINK_TIMEOUT_FLOOR, SHRINK_TIMEOUT_FACTOR * original_seconds))


def check(program: Program, passes: Sequence[PassSpec], targets: Sequence[str],
          timeout: float, build: Build = PLAIN_BUILD, shrinking: bool = False,
          speed: SpeedCheck | None = None,
          boundaries: BoundaryChecks | None = None, argument_draws: int = 1,
          emi: bool = False, exact_first: bool = False) -> tuple[Verdict, Outcome | None]:
    """Run both sides of one example and judge them. The original side is first held against
    the numpy reference, then across targets; if it disagrees, that is the verdict (no pass is
    judged on a suspect original); if it fails to build or run, a pass of TVM's build pipeline
    is blamed when one can be (passfuzz.judge.pipeline_blame), else it is a generator defect. A finding
    that no single pass's stage explains (a wrong result, a compile or run failure) is pinned to
    the shortest prefix of the passes that shows the same kind, so the finding names the first
    bad pass; with a non-plain build the empty prefix counts too (the build alone may be at
    fault). ``shrinking``: every later side gets ``shrink_timeout``. ``speed``: when the sides
    match and the passes changed the module (or the build differs), time both (passfuzz.run.speed);
    a slowdown is pinned to the shortest prefix that shows it too. ``boundaries``: when the sides
    match, the oracles at every pass boundary (passfuzz.judge.boundaries), before the timing, and the
    observations of what the passes left undone (passfuzz.judge.observations: ``Verdict.observations``).
    ``argument_draws``: with N > 1, each compiled side also runs N - 1 other arguments
    (passfuzz.ir.argument_draws), compared as the Program's own are once those matched; the first
    draw that does not match is checked again as a trial of its own, and its verdict, carrying
    that draw's Program (``Verdict.program``), is the example's. ``emi``: when the sides match, the
    Program against its twin with the untaken If branches pruned (passfuzz.judge.emi), after the
    boundary oracles. ``exact_first``: for a Program whose outputs are all exact, the optimized side
    runs first and, when it matches numpy bit for bit, the original is not compiled
    (``_exact_first_applies`` says when that is sound); not while shrinking."""
    started = time.monotonic()
    # Gradient's oracle compares no outputs of the two sides: no draws for it
    draws = argument_draws > 1 and not gradient.involved(passes)
    variants = argument_variants(program, argument_draws - 1) if draws else []
    # the boundary oracles' checks of each module run in the optimized side's child (judge.boundaries),
    # except while shrinking: there most candidates show a wrong result, which they would only slow down
    observer = module_checks(program, passes, boundaries, timeout) if boundaries is not None and not shrinking \
        else None
    first = None  # the optimized side, when run before the original
    # not while shrinking: a candidate mostly shows the finding, so the original is needed anyway,
    # and a side that hangs would wait the whole --timeout instead of the shrink timeout
    if exact_first and not shrinking and _exact_first_applies(program, passes, targets, speed, boundaries, emi):
        first = run_side(program, passes, targets, timeout, build, variants=variants, observer=observer)
        if _matches_exactly(program, variants, first, targets[0]):
            # numpy's outputs, which the optimized side's equal bit for bit, stand for the original's
            stand_in = Outcome("ok", "done", outputs=first.outputs, draws=first.draws)
            return _judged(program, passes, targets, timeout, build, shrinking, speed, boundaries, emi, variants,
                           stand_in, first, _evaluated(program))

    def at_draw(draw: int) -> tuple[Verdict, Outcome | None] | None:
        return _draw_trial(variants[draw], passes, targets, timeout, build, shrinking, speed, boundaries)

    original = run_side(program, None, targets, timeout, variants=variants)
    if shrinking:
        timeout = shrink_timeout(time.monotonic() - started, timeout)
    if original.failed_draw is not None:  # its own arguments ran; a draw's did not
        if (shown := at_draw(original.failed_draw)) is not None:
            return shown
        variants, original = [], run_side(program, None, targets, timeout)
    if not original.ok:  # a pass of TVM's build pipeline, or the generator, is at fault
        # a dtype a target cannot compute at all (run.targets.UNSUPPORTED_DTYPES; a seed may hold one) fails
        # there as a known limit, not a fault of that target: the generator's, as on the first target
        comparable = targets if _computable(program, targets) else ()
        return pipeline_verdict(original, blame_pipeline(program, original, targets, timeout), comparable), None
    reference = reference_verdict(program, original)
    if reference.finding is not None:  # name the op whose value disagrees first
        probe = run_side(probe_program(program), None, targets, timeout)
        reference = reference_verdict(program, original, probe)
    if reference.finding is not None or reference.generator_defect:
        return reference, None
    across = target_verdict(program, original)  # a codegen bug of one target, before any pass
    if across.finding is not None:  # name the op whose value the targets disagree on first
        across = target_verdict(program, original, probe=run_side(probe_program(program), None, targets, timeout))
        return across, None
    if gradient.involved(passes):  # its own oracle: gradients against finite differences
        return gradient.check(program, passes, targets, timeout, build)
    optimized = first or run_side(program, passes, targets, timeout, build, original=original, variants=variants,
                                  observer=observer)
    if optimized.failed_draw is not None:
        if (shown := at_draw(optimized.failed_draw)) is not None:
            return shown
        variants, optimized = [], run_side(program, passes, targets, timeout, build, original=original,
                                           observer=observer)
    expected = _evaluated(program)  # says which side is wrong when the two differ
    return _judged(program, passes, targets, timeout, build, shrinking, speed, boundaries, emi, variants, original,
                   optimized, expected)


def _computable(program: Program, targets: Sequence[str]) -> bool:
    """Whether every target of ``targets`` computes every dtype ``program`` holds."""
    held = tuple(sorted({info.dtype for info in analyse(program, check_values=False) if getattr(info, "dtype", None)}))
    return drawable_dtypes(targets, held) == held


def _judged(program: Program, passes: Sequence[PassSpec], targets: Sequence[str], timeout: float, build: Build,
            shrinking: bool, speed: SpeedCheck | None, boundaries: BoundaryChecks | None, emi: bool,
            variants: Sequence[Program], original: Outcome, optimized: Outcome,
            expected) -> tuple[Verdict, Outcome | None]:
    """The trial once both sides ran: the optimized side judged against the original, then the
    draws, the prefix pinning, the boundary oracles, EMI and the timing (``check``)."""

    verdict = judge(program, passes, original, optimized, _with_records(build, optimized), expected)
    if verdict == Verdict():
        for draw, variant in enumerate(variants):
            if not _draw_matches(variant, passes, original, optimized, draw, build) \
                    and (shown := _draw_trial(variant, passes, targets, timeout, build, shrinking, speed,
                                              boundaries)) is not None:
                return shown
    finding = verdict.finding
    if finding is not None and not finding.stage.startswith(("pass:", "well-formed:")):
        def on_prefix(end: int) -> tuple[Verdict, Outcome]:
            # with tune=N the prefix's kernels are tuned anew: its records are its own
            shorter = run_side(program, passes[:end], targets, timeout, build, original=original)
            return judge(program, passes[:end], original, shorter, _with_records(build, shorter), expected), shorter

        verdict, optimized = pin_to_prefix(verdict, optimized, range(0 if build.text else 1, len(passes)), on_prefix)
        verdict, optimized = _blame_schedule(program, original, verdict, optimized, targets, timeout, build,
                                             expected)
        verdict, optimized = _blame_chosen_schedules(program, original, verdict, optimized, targets, timeout,
                                                     build, expected)
        verdict, optimized = _blame_pass_config(program, original, verdict, optimized, targets, timeout, build,
                                                expected)
        return _contract_checked(verdict, optimized), optimized
    # Only where the sides agree: a pass error or an ill-formed module is the finding, and a module
    # that is ill-formed also fails to print back, which would name one fault twice.
    observed: tuple = ()  # what the passes left undone (passfuzz.judge.observations), told beside the verdict
    if boundaries is not None and verdict.finding is None and not verdict.generator_defect:
        if boundaries.missed_rewrites:
            observed = missed_rewrites(program, passes, optimized)
        at_boundaries = boundary_verdict(program, passes, original, optimized, targets, timeout, build, boundaries)
        observed += at_boundaries.observations
        if at_boundaries.finding is not None:
            return dataclasses.replace(_contract_checked(at_boundaries, optimized), observations=observed), optimized
    if emi and verdict == Verdict():
        modulo_inputs = emi_verdict(program, passes, original, optimized, targets, timeout, build)
        if modulo_inputs.finding is not None:
            return dataclasses.replace(_contract_checked(modulo_inputs, optimized), observations=observed), optimized
    if speed is not None and verdict == Verdict() and (optimized.changed or build.text):
        slow = slowdown_verdict(passes, time_sides(program, passes, targets, timeout, speed, build), build)
        if slow.finding is not None:
            def timed_prefix(end: int) -> tuple[Verdict, Outcome]:
                timings = time_sides(program, passes[:end], targets, timeout, speed, build)
                return slowdown_verdict(passes[:end], timings, build), optimized

            slow, _ = pin_to_prefix(slow, optimized, range(0 if build.text else 1, len(passes)), timed_prefix)
        return dataclasses.replace(_contract_checked(slow, optimized), observations=observed), optimized
    return dataclasses.replace(_contract_checked(verdict, optimized), observations=observed), optimized


def _draw_trial(variant: Program, passes: Sequence[PassSpec], targets: Sequence[str], timeout: float, build: Build,
                shrinking: bool, speed: SpeedCheck | None,
                boundaries: BoundaryChecks | None) -> tuple[Verdict, Outcome | None] | None:
    """The trial of one argument draw's Program, when it shows something; None when it is clean."""
    verdict, outcome = check(variant, passes, targets, timeout, build, shrinking, speed, boundaries)
    return None if verdict == Verdict() else (dataclasses.replace(verdict, program=variant), outcome)


def _evaluated(program: Program):
    """The numpy reference's outputs, flattened, floating-point warnings silenced."""
    with np.errstate(all="ignore"):
        return evaluate(program)


def _exact_first_applies(program: Program, passes: Sequence[PassSpec], targets: Sequence[str],
                         speed: SpeedCheck | None, boundaries: BoundaryChecks | None, emi: bool) -> bool:
    """May the optimized side stand alone when it matches numpy bit for bit? When every output is
    exact (judged bit for bit, and numpy computes it exactly: ir.catalogue.base), so an original
    that matches numpy, as the reference oracle asks, equals it; on one target (nothing to hold
    across); and when nothing else needs the original's own run: not Gradient's oracle, EMI, the
    timing, nor a second run of the outputs. What is lost: an original that does not match numpy
    or fails to compile where the passes' module does (a reference mismatch or a pipeline finding
    the passes hide); the examples the passes leave unchanged still compile the original."""
    if len(targets) != 1 or emi or speed is not None or gradient.involved(passes) \
            or (boundaries is not None and boundaries.same_outputs):
        return False
    return all(info.exact for _, info in output_leaves(program, analyse(program, check_values=False)))


def _matches_exactly(program: Program, variants: Sequence[Program], side: Outcome, target: str) -> bool:
    """Did ``side`` run, on the Program's arguments and every draw's, to outputs bit-identical to numpy's?
    Not where numpy computes no value (an opaque kernel's): there the original is needed."""
    if not side.ok or side.failed_draw is not None or len(side.draws) != len(variants):
        return False
    runs = [(program, side.outputs.get(target))] + [(v, d.get(target)) for v, d in zip(variants, side.draws)]
    for of, outputs in runs:
        try:
            expected = _evaluated(of)
        except Exception:  # noqa: BLE001 - a reference that raises: the full trial says what it is
            return False
        if outputs is None or len(outputs) != len(expected) or any(
                a is NO_REFERENCE or a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes()
                for a, b in zip(expected, outputs)):
            return False
    return True


def _draw_matches(variant: Program, passes: Sequence[PassSpec], original: Outcome, optimized: Outcome, draw: int,
                  build: Build) -> bool:
    """Do both sides' outputs on one argument draw hold as the Program's own did: the original
    against numpy and across targets, the optimized side against the original?"""
    if draw >= len(original.draws) or draw >= len(optimized.draws):
        return True  # not run on this side (a side that stopped after its passes reuses the original's)
    at_draw = dataclasses.replace(original, outputs=original.draws[draw], draws=())
    optimized_at_draw = dataclasses.replace(optimized, outputs=optimized.draws[draw], draws=())
    if reference_verdict(variant, at_draw) != Verdict() or target_verdict(variant, at_draw) != Verdict():
        return False
    with np.errstate(all="ignore"):
        expected = evaluate(variant)
    return judge(variant, passes, at_draw, optimized_at_draw, _with_records(build, optimized_at_draw),
                 expected) == Verdict()


def _blame_schedule(program: Program, original: Outcome, verdict: Verdict, optimized: Outcome,
                    targets: Sequence[str], timeout: float, build: Build, expected) -> tuple[Verdict, Outcome]:
    """With a drawn schedule, the finding of the first prefix of its steps that shows the same
    kind (replayed step by step): its last step is the primitive to blame, and the empty prefix
    blames the passes or the build, not the schedule."""
    steps, passes = build.schedule_steps, verdict.finding.passes

    def on_prefix(end: int) -> tuple[Verdict, Outcome]:
        shorter_build = build.with_schedule(steps[:end])
        shorter = run_side(program, passes, targets, timeout, shorter_build)
        return judge(program, passes, original, shorter, shorter_build, expected), shorter

    return pin_to_prefix(verdict, optimized, range(len(steps)), on_prefix)


def _with_records(build: Build, optimized: Outcome) -> Build:
    """The build a finding of ``optimized`` names: with what its tuning chose (tune=N)."""
    return build.with_tune_records(optimized.tune_records) if build.tune is not None else build


def _blame_chosen_schedules(program: Program, original: Outcome, verdict: Verdict, optimized: Outcome,
                            targets: Sequence[str], timeout: float, build: Build, expected) -> tuple[Verdict, Outcome]:
    """With tune=N or dlight=random, the finding blames the chosen schedules only if the kernels
    scheduled by default (untuned, dlight's default rules) do not show the same kind; if they
    do, the passes or the rest of the build are to blame."""
    finding = verdict.finding
    if not finding.tune_records and finding.dlight_rules is None:
        return verdict, optimized
    default = build.default_schedules
    plain = run_side(program, finding.passes, targets, timeout, default)
    plain_verdict = judge(program, finding.passes, original, plain, default, expected)
    if plain_verdict.finding is not None and plain_verdict.finding.kind == finding.kind:
        return plain_verdict, plain
    return verdict, optimized


def _blame_pass_config(program: Program, original: Outcome, verdict: Verdict, optimized: Outcome,
                       targets: Sequence[str], timeout: float, build: Build, expected) -> tuple[Verdict, Outcome]:
    """With config=random, the finding blames the drawn PassContext configuration only if the build
    without it does not show the same kind; if it does, the passes or the rest of the build are to blame."""
    finding = verdict.finding
    if not finding.pass_config:
        return verdict, optimized
    without = dataclasses.replace(build, config=None, pass_config=())
    side = run_side(program, finding.passes, targets, timeout, without)
    shown = judge(program, finding.passes, original, side, without, expected)
    if shown.finding is not None and shown.finding.kind == finding.kind:
        return shown, side
    return verdict, optimized


def _contract_checked(verdict: Verdict, optimized: Outcome) -> Verdict:
    """The verdict, its finding marked outside-contract when a pass up to the failure ran outside
    its contract: out of its pipeline phase (known from the pass list), or on a module it does not
    accept (seen by the child before the pass ran). A pass after the failure does not count: a
    print round trip failing after LazyGetInput is LazyGetInput's, whatever a later pass is handed."""
    finding = verdict.finding
    if finding is None or not finding.passes:
        return verdict
    at = optimized.outside_contract_at
    after_the_failure = at is not None and at >= len(finding.passes)
    broken = sequence_violation(finding.passes) or ("" if after_the_failure else optimized.outside_contract)
    return dataclasses.replace(verdict, finding=keyed_as_misuse(finding, broken)) if broken else verdict



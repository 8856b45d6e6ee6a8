"""Observations: what a pass left undone. Never a bug: saved apart, never shrunk as one, never
stopping ``-x``, never failing the exit status.

- ``missed-rewrite``: a pass that received the module as built (no pass before it changed it)
  returned it unchanged (structurally equal), though the Program holds a form of its pattern that
  promises a rewrite (passfuzz.passes.variants, ``Variant.promises_rewrite``: the detector's
  condition is the pass's whole condition, read in TVM's source). Checked for passes named with
  their default arguments, inside their contracts. One fingerprint per pass and form; it costs no
  child: the optimized side already says which passes changed the module.
- ``not-idempotent``: a pass applied once more to its own output changes it again. Checked in the
  boundary child (passfuzz.judge.boundaries), for the passes the catalogue expects idempotent
  (those without ``PassInfo.not_idempotent``). One fingerprint per pass and where the two modules
  differ. A pass that raises or crashes on its own output is a bug, not an observation: the
  boundary check reports the pass-error or crash of the sequence with that pass repeated, which
  the optimized side then shows as any other failing pass.

``still_observed`` checks an observation again in a child, without compiling (a build and the
passes): what the engine's light reduction of one asks of each candidate.
"""

from __future__ import annotations

from collections.abc import Sequence

import tvm_ffi

from passfuzz.ir.program import Node, Program
from passfuzz.passes.contracts import sequence_violation
from passfuzz.passes.names import PassSpec
from passfuzz.passes.variants import promised_rewrites
from passfuzz.relax.build import build_module
from passfuzz.run import isolate
from passfuzz.run.execute import Outcome

from .finding import Finding, new_finding

MISSED_REWRITE = "missed-rewrite"
NOT_IDEMPOTENT = "not-idempotent"
# What a light reduction of one observation may take (each candidate is a fork, a build and the passes).
REDUCE_SECONDS = 5.0


def untouched(passes: Sequence[PassSpec], optimized: Outcome) -> list[PassSpec]:
    """The passes that received the module as built: those before the first that changed it."""
    fired = set(optimized.fired)
    kept = []
    for spec in passes:
        if spec.text in fired:
            break
        kept.append(spec)
    return kept


def missed_rewrites(program: Program, passes: Sequence[PassSpec], optimized: Outcome) -> tuple[Finding, ...]:
    """A ``missed-rewrite`` observation per pass that left the module as built, with its default
    arguments, and per form of its pattern the Program holds that promises a rewrite. None when the
    passes did not all run or ran outside their contracts."""
    if optimized.status != "ok" or optimized.outside_contract or sequence_violation(passes) or _splits_blocks(program):
        return ()
    found = []
    for spec in untouched(passes, optimized):
        if spec.args or spec.kwargs:  # the promise is for the pass as TVM's pipelines call it
            continue
        for variant in promised_rewrites(program, spec.name):
            found.append(new_finding(MISSED_REWRITE, (spec,), variant.name,
                                     f"{spec.text} left the module unchanged, though it holds {variant.name}: "
                                     f"{variant.branch} ({variant.source})", f"missed:{spec.text}"))
    return tuple(found)


def _splits_blocks(program: Program) -> bool:
    """Does ``main`` hold an If? It ends the dataflow block before it, and the patterns passes match
    (and the detectors read off the Program) do not reach across blocks: two parallel matmuls an
    If's blocks keep apart are no group CombineParallelMatmul could combine."""
    return any(isinstance(value, Node) and value.op == "if" for value in program.values)


def missed_form(finding: Finding) -> str:
    """The form (variant name) a ``missed-rewrite`` observation is about: its signature's detail."""
    return finding.signature.rsplit(" | ", 1)[-1]


def still_observed(program: Program, passes: Sequence[PassSpec], observation: Finding, timeout: float = 30.0) -> bool:
    """Does ``program`` under ``passes`` (their last one the observed pass) still show ``observation``?
    Checked in a forked child: a pass may crash."""
    if not passes or passes[-1].text != observation.passes[-1].text:
        return False  # a reduction that drops the observed pass shows nothing of it
    if observation.kind == MISSED_REWRITE:
        form = missed_form(observation)
        if _splits_blocks(program) or form not in {v.name for v in promised_rewrites(program, passes[-1].name)}:
            return False  # the form is gone: the pass has nothing it must rewrite
        check = _unchanged
    else:
        check = _changes_again
    child = isolate.run_forked(lambda: check(program, passes), timeout)
    return child.status == "ok" and bool(child.value)


def _unchanged(program: Program, passes: Sequence[PassSpec]) -> bool:
    """In a child: do all ``passes`` leave the module as built?"""
    mod = build_module(program)
    for spec in passes:
        mod = spec.for_program(program).instantiate()(mod)
    return bool(tvm_ffi.structural_equal(mod, build_module(program)))


def _changes_again(program: Program, passes: Sequence[PassSpec]) -> bool:
    """In a child: does the last pass, applied once more to the module ``passes`` give, change it?"""
    mod = build_module(program)
    for spec in passes:
        mod = spec.for_program(program).instantiate()(mod)
    once = tvm_ffi.structural_hash(mod)
    again = passes[-1].for_program(program).instantiate()(mod)
    return tvm_ffi.structural_hash(again) != once

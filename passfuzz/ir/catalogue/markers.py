"""Markers and print: ops that compute no new value.

``start_checkpoint`` and ``end_checkpoint`` bound a stage of the forward computation that
Gradient recomputes in the backward pass instead of keeping (TVM's
``test_transform_gradient_checkpoint.py``); LegalizeOps makes each of them its operand, so a
module holding them compiles as it is. Both type rules take a variable only (Gradient checks the
same), so ``relax_build`` binds a constant operand first (``OpDef.var_operands``). Only imports
hold them (see ``marker``).

``print`` is an effect (``program.EFFECTS``): its value is none, nothing reads it, and it stays
though no output needs it, in main, outside dataflow blocks of a function built impure
(``graph.check_effects``). The child running a side writes it to /dev/null: what it prints is not
compared. Only imports hold it (TVM's tests of ConvertToDataflow, CanonicalizeBindings and
EliminateCommonSubexpr write one to split or fence dataflow blocks).
"""

from __future__ import annotations

import numpy as np

from .base import Chooser, OpDef, OpError, Sketch, TupleInfo, ValueInfo, pick, require


def _identity_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and not attrs, "a marker takes one operand and no attributes")
    return args[0]


def marker(name: str, relax_name: str, notes: str) -> OpDef:
    """An op whose value is its operand's, marked for the passes that read ``relax_name``."""

    def emit(R, args, attrs):
        target = R.op
        for part in relax_name.split("."):
            target = getattr(target, part)
        return target(args[0])

    def propose(sketch: Sketch, choose: Chooser) -> None:  # the importer's forms only (drawn=False)
        sketch.add(name, [pick(sketch, choose, lambda info: True)])

    # Not drawn: FoldConstant (and BindParams) replace a marked variable by its constant and the
    # marker's type rule then raises, a TVM fault (corpus/faults/checkpoint-marker-refuses-constant-
    # operand.json); drawn, nearly every FoldConstant run would stop on it again. Imported modules
    # hold the markers, and a seeded run reports what a pass does to them.
    return OpDef(name, _identity_infer, emit, lambda args, at: np.array(args[0], copy=True), propose,
                 lambda info: True, notes, var_operands=True, drawn=False)


START_CHECKPOINT = marker("start_checkpoint", "grad.start_checkpoint",
                          "R.grad.start_checkpoint: the identity, marking the input of a stage Gradient recomputes")
END_CHECKPOINT = marker("end_checkpoint", "grad.end_checkpoint",
                        "R.grad.end_checkpoint: the identity, marking the output of a stage Gradient recomputes")


def _print_infer(args: list, attrs: dict) -> TupleInfo:
    text = attrs.get("format")
    require(isinstance(text, str) and set(attrs) == {"format"}, "print takes a format string")
    try:
        text.format(*[""] * len(args))  # relax.run.print formats each value rendered as a string
    except (IndexError, KeyError, ValueError, TypeError) as exc:
        raise OpError(f"format {text!r} does not take {len(args)} values: {exc}") from None
    return TupleInfo(())


PRINT = OpDef(
    "print", _print_infer, lambda R, args, at: R.op.print(*args, format=at["format"]), lambda args, at: (),
    None, lambda info: False, takes_tuples=True,
    notes="R.print(values..., format=...): an effect, imported only; its value is none")

OPS = [START_CHECKPOINT, END_CHECKPOINT, PRINT]

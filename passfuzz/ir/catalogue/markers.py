"""Markers: ops that tell a pass something about a value and compute the identity.

``start_checkpoint`` and ``end_checkpoint`` bound a stage of the forward computation that
Gradient recomputes in the backward pass instead of keeping (TVM's
``test_transform_gradient_checkpoint.py``); LegalizeOps makes each of them its operand, so a
module holding them compiles as it is. Both type rules take a variable only (Gradient checks the
same), so ``relax_build`` binds a constant operand first (``OpDef.var_operands``).
"""

from __future__ import annotations

import numpy as np

from .base import Chooser, OpDef, Sketch, ValueInfo, pick, require


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

    def propose(sketch: Sketch, choose: Chooser) -> None:
        sketch.add(name, [pick(sketch, choose, lambda info: True)])

    return OpDef(name, _identity_infer, emit, lambda args, at: np.array(args[0], copy=True), propose,
                 lambda info: True, notes, var_operands=True)


START_CHECKPOINT = marker("start_checkpoint", "grad.start_checkpoint",
                          "R.grad.start_checkpoint: the identity, marking the input of a stage Gradient recomputes")
END_CHECKPOINT = marker("end_checkpoint", "grad.end_checkpoint",
                        "R.grad.end_checkpoint: the identity, marking the output of a stage Gradient recomputes")

OPS = [START_CHECKPOINT, END_CHECKPOINT]

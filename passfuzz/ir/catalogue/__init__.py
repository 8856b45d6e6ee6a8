"""The op catalogue: every op passfuzz can generate, each defined once (see base.OpDef).

``OPS`` is ordered simplest first; the strategies draw from it in this order, so shrinking moves
toward the ops at its front. Adding an op is adding one OpDef to one of the family modules.
"""

from __future__ import annotations

from typing import Sequence

from . import (
    creation,
    elementwise,
    functions,
    indexing,
    kernels,
    layout,
    linalg,
    markers,
    nn,
    quantize,
    reduction,
    scan,
    shapes,
    structure,
)
from .base import (
    DTYPES,
    FLOATS,
    INTS,
    RTOL,
    Chooser,
    OpDef,
    OpError,
    Sketch,
    TupleInfo,
    ValueInfo,
    is_float,
    is_int,
    leaves,
    unbounded,
)

OPS: list[OpDef] = [*elementwise.OPS, *functions.OPS, *layout.OPS, *creation.OPS, *reduction.OPS, *scan.OPS,
                    *linalg.OPS, *nn.OPS, *quantize.OPS, *indexing.OPS, *shapes.OPS, *structure.OPS,
                    *markers.OPS, *kernels.OPS]
BY_NAME: dict[str, OpDef] = {op.name: op for op in OPS}
assert len(BY_NAME) == len(OPS), "an op is defined twice"


def infer_application(name: str, args: Sequence[int], infos: Sequence, attrs: dict):
    """The facts of op ``name`` applied to the values ``args`` (indices into ``infos``): the one
    check of a node, in a Program or in a function body; OpError for anything invalid."""
    op = BY_NAME.get(name)
    if op is None:
        raise OpError(f"unknown op {name!r}")
    if any(not 0 <= a < len(infos) for a in args):
        raise OpError("operand refers to a later or missing value")
    operands = [infos[a] for a in args]
    if any(isinstance(i, TupleInfo) and not i.items for i in operands):
        raise OpError("reads a print's value, which is none")
    if not op.takes_tuples and any(isinstance(i, TupleInfo) for i in operands):
        raise OpError("takes no tuple operand")
    if not op.takes_shapes and any(getattr(i, "shape_value", False) for i in operands):
        raise OpError("takes no R.Shape operand")
    try:
        result = op.infer(operands, dict(attrs))
    except (KeyError, TypeError, IndexError, ValueError) as exc:
        if isinstance(exc, OpError):
            raise
        raise OpError(f"bad attributes: {type(exc).__name__}: {exc}") from None
    # computed from an opaque kernel's floats: no bound either (ValueInfo.bounded)
    if any(not leaf.bounded for info in operands for leaf in leaves(info)):
        return unbounded(result)
    return result

__all__ = ["OPS", "BY_NAME", "infer_application", "DTYPES", "FLOATS", "INTS", "RTOL", "Chooser", "OpDef", "OpError", "Sketch",
           "ValueInfo", "is_float", "is_int"]

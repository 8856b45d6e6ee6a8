"""The op catalogue: every op passfuzz can generate, each defined once (see base.OpDef).

``OPS`` is ordered simplest first; the strategies draw from it in this order, so shrinking moves
toward the ops at its front. Adding an op is adding one OpDef to one of the family modules.
"""

from __future__ import annotations

from . import creation, elementwise, functions, indexing, layout, linalg, nn, reduction, scan, shapes
from .base import DTYPES, FLOATS, INTS, RTOL, Chooser, OpDef, OpError, Sketch, ValueInfo, is_float, is_int

OPS: list[OpDef] = [*elementwise.OPS, *functions.OPS, *layout.OPS, *creation.OPS, *reduction.OPS, *scan.OPS,
                    *linalg.OPS, *nn.OPS, *indexing.OPS, *shapes.OPS]
BY_NAME: dict[str, OpDef] = {op.name: op for op in OPS}
assert len(BY_NAME) == len(OPS), "an op is defined twice"

__all__ = ["OPS", "BY_NAME", "DTYPES", "FLOATS", "INTS", "RTOL", "Chooser", "OpDef", "OpError", "Sketch",
           "ValueInfo", "is_float", "is_int"]

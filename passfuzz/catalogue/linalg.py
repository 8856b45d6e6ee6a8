"""Matrix multiplication: 2-D, batched, and with broadcast batch dims."""

from __future__ import annotations

import numpy as np

from .base import (NUMERIC, Chooser, OpDef, Sketch, ValueInfo, broadcast, checked, is_int, operand, pick, probe,
                   require, valid)

def _matmul_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 2 and not attrs, "matmul takes two operands")
    a, b = args
    require(a.dtype == b.dtype and a.dtype in NUMERIC, "matmul needs one numeric dtype (bool fails in codegen)")
    require(a.rank >= 2 and b.rank >= 2, "matmul operands are drawn with rank >= 2")
    require(a.shape[-1] == b.shape[-2], f"matmul inner dims differ: {a.shape} @ {b.shape}")
    batch = broadcast(a.shape[:-2], b.shape[:-2])
    k = a.shape[-1]
    products = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    lo, hi = k * min(min(products), 0), k * max(max(products), 0)
    return checked(batch + (a.shape[-2], b.shape[-1]), a.dtype, lo, hi, a.exact and b.exact and is_int(a.dtype))


def _accepts(info: ValueInfo) -> bool:  # a fresh (k, 4) right operand would do
    return info.dtype in NUMERIC and info.rank >= 2 and \
        valid(_matmul_infer, [info, probe(info, shape=(info.shape[-1], 4))])


def _matmul_propose(sketch: Sketch, choose: Chooser) -> None:
    lhs = pick(sketch, choose, _accepts)
    a = sketch.infos[lhs]
    k, batch = a.shape[-1], a.shape[:-2]
    n = choose.integer(1, 4)
    shapes = [(k, n), batch + (k, n)] + ([(1,) + batch[1:] + (k, n)] if batch else [(2, k, n)])
    if choose.boolean():
        rhs = operand(sketch, choose, shapes, a.dtype, -4, 4, accept=lambda b: valid(_matmul_infer, [a, b]))
    else:  # a weight whose columns a take selects: the pattern ReorderTakeAfterMatmul rewrites
        m = choose.integer(1, 4)
        shape = choose.choice([(k, m), batch + (k, m)])
        weight = sketch.add_param(shape, a.dtype, -4, 4, "weight")
        columns = sketch.add_const((n,), "int64", 0, m - 1)
        # A positive axis: ReorderTakeAfterMatmul matches axis=1, not the equivalent axis=-1.
        rhs = sketch.add("take", [weight, columns], {"axis": len(shape) - 1})
    sketch.add("matmul", [lhs, rhs])


MATMUL = OpDef("matmul", _matmul_infer, lambda R, args, at: R.op.matmul(*args),
               lambda args, at: np.matmul(*args).astype(args[0].dtype), _matmul_propose, _accepts)

OPS = [MATMUL]

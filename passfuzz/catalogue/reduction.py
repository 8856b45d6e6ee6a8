"""Reductions (sum, mean, max) with axis/keepdims, and softmax."""

from __future__ import annotations

from typing import Callable

import numpy as np

from .base import (FLOATS, NUMERIC, Chooser, OpDef, Sketch, ValueInfo, checked, is_int, normalize_axis, pick,
                   require, valid)


def _reduced_axes(x: ValueInfo, axis) -> list[int]:
    if axis is None:
        return list(range(x.rank))
    require(isinstance(axis, list) and axis, "axis must be a non-empty list or None")
    axes = [normalize_axis(a, x.rank) for a in axis]
    require(len(set(axes)) == len(axes), "repeated axis")
    return axes


def reduction(name: str, ref: Callable, dtypes: tuple[str, ...], scale_by_count: bool, keeps_exact: bool) -> OpDef:
    """``scale_by_count``: the range grows with the number of reduced elements (sum)."""

    def accepts(info: ValueInfo) -> bool:  # reducing every axis is the widest case
        return info.dtype in dtypes and info.rank >= 1 and valid(infer, [info], {"axis": None, "keepdims": False})

    def infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
        require(len(args) == 1 and set(attrs) == {"axis", "keepdims"}, f"{name} takes axis and keepdims")
        (x,) = args
        require(x.dtype in dtypes and x.rank >= 1, f"{name} needs a {'/'.join(dtypes)} tensor of rank >= 1")
        axes = _reduced_axes(x, attrs["axis"])
        keep = bool(attrs["keepdims"])
        shape = [1 if i in axes else d for i, d in enumerate(x.shape) if keep or i not in axes]
        count = int(np.prod([x.shape[i] for i in axes])) if scale_by_count else 1
        lo, hi = min(x.lo, x.lo * count), max(x.hi, x.hi * count)
        return checked(shape, x.dtype, lo, hi, x.exact and (keeps_exact or is_int(x.dtype)))

    def propose(sketch: Sketch, choose: Chooser) -> None:
        x = pick(sketch, choose, accepts)
        rank = sketch.infos[x].rank
        axis = None
        if choose.boolean():
            axis = sorted({choose.integer(-rank, rank - 1) % rank for _ in range(choose.integer(1, rank))})
        sketch.add(name, [x], {"axis": axis, "keepdims": choose.boolean()})

    def reference(args, attrs):
        (x,) = args
        axis = None if attrs["axis"] is None else tuple(attrs["axis"])
        return np.asarray(ref(x, axis=axis, keepdims=attrs["keepdims"])).astype(x.dtype)

    def emit(R, args, attrs):
        return getattr(R.op, name)(args[0], axis=attrs["axis"], keepdims=attrs["keepdims"])

    return OpDef(name, infer, emit, reference, propose, accepts)


SUM = reduction("sum", np.sum, NUMERIC, scale_by_count=True, keeps_exact=False)
MEAN = reduction("mean", np.mean, FLOATS, scale_by_count=False, keeps_exact=False)
MAX = reduction("max", np.max, NUMERIC, scale_by_count=False, keeps_exact=True)


def _softmax_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and set(attrs) == {"axis"}, "softmax takes one operand and an axis")
    (x,) = args
    require(x.dtype in FLOATS and x.rank >= 1, "softmax needs a float tensor of rank >= 1")
    normalize_axis(attrs["axis"], x.rank)
    return checked(x.shape, x.dtype, 0.0, 1.0, False)


def _softmax_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, lambda i: i.dtype in FLOATS and i.rank >= 1)
    rank = sketch.infos[x].rank
    sketch.add("softmax", [x], {"axis": choose.choice([-1, *range(rank - 1)])})


def _softmax_reference(args, attrs):
    x = args[0].astype("float64")
    e = np.exp(x - x.max(axis=attrs["axis"], keepdims=True))
    return (e / e.sum(axis=attrs["axis"], keepdims=True)).astype(args[0].dtype)


SOFTMAX = OpDef("softmax", _softmax_infer, lambda R, args, at: R.op.nn.softmax(args[0], axis=at["axis"]),
                _softmax_reference, _softmax_propose, lambda i: i.dtype in FLOATS and i.rank >= 1)

OPS = [SUM, MAX, MEAN, SOFTMAX]

"""Scans and orderings: cumulative sums and products, sort, argsort, topk.

All five are left over by LegalizeOps and lowered by ``backend.DispatchSortScan`` inside
``tvm.compile``, so a pass run after a manual LegalizeOps still meets them as Relax ops.

Orderings and exactness: the sorted values (sort, topk values) move by at most the largest
change of any input, so sorting inexact floats keeps the values within their rounding error and
is allowed; the indices (argsort, topk indices) are discrete and need exact operands. Ties keep
the lower index first, ascending and descending alike (stable sort), as measured on llvm.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .base import (
    NUMERIC,
    Chooser,
    OpDef,
    Sketch,
    ValueInfo,
    checked,
    is_float_array,
    is_int,
    normalize_axis,
    pick,
    require,
    smooth,
    valid,
    whole_tuple,
)
from .reduction import product_bounds

# sort and argsort fail at run time for int8/uint8 ("Unsupported input dtype"); topk works. On
# bfloat16 all three return wrong values (TVM bug; excluded).
SORTABLE = ("float32", "float16", "int32", "int64")
TOPK_DTYPES = ("float32", "float16", "int32", "int64", "int8", "uint8")
INDEX_DTYPES = ("int32", "int64")

# -- cumsum / cumprod ----------------------------------------------------------------------------


def _scan_length(x: ValueInfo, axis) -> tuple[int, tuple[int, ...]]:
    """(length of the scanned axis, result shape); axis None scans the flattened tensor."""
    if axis is None:
        return x.size, (x.size,)
    return x.shape[normalize_axis(axis, x.rank)], x.shape


def scan(name: str, ufunc: np.ufunc, bounds: Callable[[float, float, list[int]], tuple[float, float]],
         identity: int) -> OpDef:
    """A cumulative op; ``bounds(lo, hi, counts)`` is the range of combining k elements for
    every k in counts (the prefixes an output element may hold)."""

    def infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
        require(len(args) == 1 and set(attrs) == {"axis", "exclusive"}, f"{name} takes axis and exclusive")
        (x,) = args
        require(x.dtype in NUMERIC and x.rank >= 1, f"{name} needs a numeric tensor of rank >= 1 (bool fails)")
        n, shape = _scan_length(x, attrs["axis"])
        counts = list(range(0, n)) if attrs["exclusive"] else list(range(1, n + 1))
        lo, hi = bounds(x.lo, x.hi, counts)
        return checked(shape, x.dtype, lo, hi, x.exact and is_int(x.dtype))

    def options(info: ValueInfo) -> list[dict]:
        axes = [None, *range(info.rank), *range(-info.rank, 0)]
        return [{"axis": a, "exclusive": e} for a in axes for e in (False, True)
                if valid(infer, [info], {"axis": a, "exclusive": e})]

    accepts = lambda info: info.dtype in NUMERIC and info.rank >= 1 and bool(options(info))  # noqa: E731

    def propose(sketch: Sketch, choose: Chooser) -> None:
        x = pick(sketch, choose, accepts)
        sketch.add(name, [x], choose.choice(options(sketch.infos[x])))

    def reference(args, attrs):
        x = args[0]
        axis = attrs["axis"]
        if axis is None:
            x, axis = x.reshape(-1), 0
        wide = x.astype("float64" if is_float_array(x) else "int64")
        out = ufunc.accumulate(wide, axis=axis)
        if attrs["exclusive"]:
            head = np.full_like(np.take(out, [0], axis=axis), identity)
            out = np.concatenate([head, np.take(out, np.arange(out.shape[axis] - 1), axis=axis)], axis=axis)
        return out.astype(args[0].dtype)

    def emit(R, args, attrs):
        return getattr(R.op, name)(args[0], axis=attrs["axis"], exclusive=attrs["exclusive"])

    return OpDef(name, infer, emit, reference, propose, accepts,
                 notes="axis=None scans the flattened tensor. exclusive=True shifts by one and starts at "
                       f"{identity}. The output keeps the input dtype (no promotion); prefixes that could "
                       "overflow are never drawn.")


def _sum_bounds(lo: float, hi: float, counts: list[int]) -> tuple[float, float]:
    return min(k * lo for k in counts), max(k * hi for k in counts)


CUMSUM = smooth(scan("cumsum", np.add, _sum_bounds, 0))
CUMPROD = scan("cumprod", np.multiply, product_bounds, 1)

# -- sort / argsort ---------------------------------------------------------------------------------


def _stable_argsort(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Stable argsort; descending keeps equal elements in ascending index order, as Relax does."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    return n - 1 - np.flip(np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)


def _order_axis(x: ValueInfo, attrs: dict, dtypes: tuple[str, ...], name: str) -> int:
    require(x.dtype in dtypes and x.rank >= 1, f"{name} needs a {'/'.join(dtypes)} tensor of rank >= 1")
    require(isinstance(attrs["descending" if "descending" in attrs else "largest"], bool), "flag must be a bool")
    return normalize_axis(attrs["axis"], x.rank)


def _sort_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and set(attrs) == {"axis", "descending"}, "sort takes axis and descending")
    (x,) = args
    _order_axis(x, attrs, SORTABLE, "sort")
    return checked(x.shape, x.dtype, x.lo, x.hi, x.exact)  # inexact floats: see the module docstring


def _argsort_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and set(attrs) == {"axis", "descending", "dtype"}, "argsort takes axis, descending, dtype")
    (x,) = args
    axis = _order_axis(x, attrs, SORTABLE, "argsort")
    require(attrs["dtype"] in INDEX_DTYPES, "argsort's dtype must be int32 or int64")
    require(x.exact, "argsort of inexact floats could reorder near-ties on a legal rounding difference")
    return checked(x.shape, attrs["dtype"], 0, x.shape[axis] - 1, True)


def _sortable(info: ValueInfo) -> bool:
    return info.dtype in SORTABLE and info.rank >= 1


def _axis_choice(choose: Chooser, rank: int) -> int:
    return choose.choice([-1, *range(rank), *range(-rank, -1)])


def _sort_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _sortable)
    sketch.add("sort", [x], {"axis": _axis_choice(choose, sketch.infos[x].rank), "descending": choose.boolean()})


def _argsort_accepts(info: ValueInfo) -> bool:
    return _sortable(info) and info.exact


def _argsort_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _argsort_accepts)
    sketch.add("argsort", [x], {"axis": _axis_choice(choose, sketch.infos[x].rank), "descending": choose.boolean(),
                                "dtype": choose.choice(INDEX_DTYPES)})


def _sort_reference(args, attrs):
    (x,) = args
    return np.take_along_axis(x, _stable_argsort(x, attrs["axis"], attrs["descending"]), attrs["axis"])


SORT = OpDef("sort", _sort_infer, lambda R, args, at: R.op.sort(args[0], axis=at["axis"], descending=at["descending"]),
             _sort_reference, _sort_propose, _sortable,
             notes="int8/uint8 (and bool) fail at run time: 'Unsupported input dtype'. Not drawn.")
ARGSORT = OpDef(
    "argsort", _argsort_infer,
    lambda R, args, at: R.op.argsort(args[0], axis=at["axis"], descending=at["descending"], dtype=at["dtype"]),
    lambda args, at: _stable_argsort(args[0], at["axis"], at["descending"]).astype(at["dtype"]),
    _argsort_propose, _argsort_accepts,
    notes="Stable: ties keep the lower index first, also when descending (numpy has no descending "
          "argsort; the reference flips). Output int32 by default. int8/uint8 fail at run time.")

# -- topk ---------------------------------------------------------------------------------------------


def _topk_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and set(attrs) == {"k", "axis", "largest", "dtype", "index"},
            "topk takes k, axis, largest, dtype and index")
    (x,) = args
    axis = _order_axis(x, attrs, TOPK_DTYPES, "topk")
    k, index = attrs["k"], attrs["index"]
    require(isinstance(k, int) and 1 <= k <= x.shape[axis], f"k={k} out of range for axis length {x.shape[axis]}")
    require(attrs["dtype"] in INDEX_DTYPES, "topk's index dtype must be int32 or int64")
    require(index in (0, 1), "index must be 0 (values) or 1 (indices)")
    shape = list(x.shape)
    shape[axis] = k
    if index == 0:
        return checked(shape, x.dtype, x.lo, x.hi, x.exact)  # inexact floats: see the module docstring
    require(x.exact, "topk indices of inexact floats could change on a legal rounding difference")
    return checked(shape, attrs["dtype"], 0, x.shape[axis] - 1, True)


_topk_accepts = lambda info: info.dtype in TOPK_DTYPES and info.rank >= 1  # noqa: E731 - values always work


def _topk_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _topk_accepts)
    info = sketch.infos[x]
    axis = _axis_choice(choose, info.rank)
    attrs = {"k": choose.integer(1, info.shape[axis]), "axis": axis, "largest": choose.choice([True, False]),
             "dtype": choose.choice(INDEX_DTYPES), "index": choose.choice([0, 1] if info.exact else [0])}
    sketch.add("topk", [x], attrs)


def _topk_reference(args, attrs):
    (x,) = args
    axis, k = attrs["axis"], attrs["k"]
    order = np.take(_stable_argsort(x, axis, attrs["largest"]), np.arange(k), axis=axis)
    if attrs["index"] == 1:
        return order.astype(attrs["dtype"])
    return np.take_along_axis(x, order, axis)


TOPK = OpDef(
    "topk", _topk_infer,
    lambda R, args, at: R.TupleGetItem(R.op.topk(args[0], at["k"], axis=at["axis"], ret_type="both",
                                                 largest=at["largest"], dtype=at["dtype"]), at["index"]),
    _topk_reference, _topk_propose, _topk_accepts,
    notes="One node is topk(ret_type='both') followed by TupleGetItem(index): 0 the values, 1 the "
          "indices. Values come largest first (largest=True) or smallest first; ties keep the lower "
          "index first. Indices int32 by default.")

OPS = [CUMSUM, CUMPROD, SORT, ARGSORT, TOPK, whole_tuple(TOPK, 2)]

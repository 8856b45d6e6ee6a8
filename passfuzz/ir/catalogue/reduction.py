"""Reductions with axis/keepdims (sum, prod, max, min, mean, std, variance, argmax, argmin),
softmax and log_softmax."""

from __future__ import annotations

import itertools
import math
from typing import Callable

import numpy as np

from .base import (
    FLOATS,
    NUMERIC,
    ROUNDING,
    RTOL,
    Chooser,
    OpDef,
    OpError,
    Sketch,
    ValueInfo,
    checked,
    is_int,
    normalize_axis,
    pick,
    require,
    smooth,
    valid,
)


def _reduced_axes(x: ValueInfo, axis) -> list[int]:
    if axis is None:
        return list(range(x.rank))
    require(isinstance(axis, list) and axis, "axis must be a non-empty list or None")
    axes = [normalize_axis(a, x.rank) for a in axis]
    require(len(set(axes)) == len(axes), "repeated axis")
    return axes


def _axis_options(rank: int) -> list[list[int] | None]:
    """Every way to choose reduced axes: None (all) first, then the subsets, smallest first."""
    return [None, *([list(c) for k in range(1, rank + 1) for c in itertools.combinations(range(rank), k)])]


def power_bounds(lo: float, hi: float, n: int) -> tuple[float, float]:
    """The range of a product of ``n`` factors each in [lo, hi]. The product is multilinear, so
    its extremes lie at the vertices of the box: ``j`` factors at lo and ``n - j`` at hi. The
    magnitude is monotone in ``j`` and the sign follows j's parity, so the extremes are among
    j = 0, 1, n - 1, n (the ends of each parity), which keeps a real network's product over a
    whole tensor (n in the millions) as cheap as a small one."""
    if n * math.log10(max(abs(lo), abs(hi), 1.0)) > 300:  # past float64, and past every dtype
        raise OpError(f"a product of {n} factors in [{lo:g}, {hi:g}] may overflow")
    values = [lo ** j * hi ** (n - j) for j in sorted({0, 1, n - 1, n}) if 0 <= j <= n]
    return min(values), max(values)


def product_bounds(lo: float, hi: float, counts) -> tuple[float, float]:
    """The union of ``power_bounds`` over ``counts`` (0 factors: the empty product 1)."""
    ranges = [power_bounds(lo, hi, k) if k else (1.0, 1.0) for k in counts]
    return min(r[0] for r in ranges), max(r[1] for r in ranges)


def reduction(name: str, ref: Callable, dtypes: tuple[str, ...], scale_by_count: bool, keeps_exact: bool, *,
              bounds: Callable[[ValueInfo, int], tuple[float, float]] | None = None, notes: str = "") -> OpDef:
    """``scale_by_count``: the range grows with the number of reduced elements (sum).
    ``bounds(x, count)``: the result range, instead of the rule ``scale_by_count`` selects; it
    may raise OpError (e.g. for an intermediate that would overflow). ``keeps_exact``: a float
    result is exact when its operand is (integer results are always exact)."""

    def infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
        require(len(args) == 1 and set(attrs) == {"axis", "keepdims"}, f"{name} takes axis and keepdims")
        (x,) = args
        require(x.dtype in dtypes and x.rank >= 1, f"{name} needs a {'/'.join(dtypes)} tensor of rank >= 1")
        axes = _reduced_axes(x, attrs["axis"])
        keep = bool(attrs["keepdims"])
        shape = [1 if i in axes else d for i, d in enumerate(x.shape) if keep or i not in axes]
        count = int(np.prod([x.shape[i] for i in axes]))
        if bounds is not None:
            lo, hi = bounds(x, count)
        else:
            count = count if scale_by_count else 1
            lo, hi = min(x.lo, x.lo * count), max(x.hi, x.hi * count)
        return checked(shape, x.dtype, lo, hi, x.exact and (keeps_exact or is_int(x.dtype)))

    def accepts(info: ValueInfo) -> bool:  # some choice of axes is valid
        return info.dtype in dtypes and info.rank >= 1 and \
            any(valid(infer, [info], {"axis": axis, "keepdims": False}) for axis in _axis_options(info.rank))

    def propose(sketch: Sketch, choose: Chooser) -> None:
        x = pick(sketch, choose, accepts)
        info = sketch.infos[x]
        axis = choose.choice([a for a in _axis_options(info.rank)
                              if valid(infer, [info], {"axis": a, "keepdims": False})])
        if axis is not None and choose.boolean():  # negative axes, as models often write them
            axis = [a - info.rank for a in axis]
        sketch.add(name, [x], {"axis": axis, "keepdims": choose.boolean()})

    def reference(args, attrs):
        (x,) = args
        axis = None if attrs["axis"] is None else tuple(attrs["axis"])
        return np.asarray(ref(x, axis=axis, keepdims=attrs["keepdims"])).astype(x.dtype)

    def emit(R, args, attrs):
        return getattr(R.op, name)(args[0], axis=attrs["axis"], keepdims=attrs["keepdims"])

    return OpDef(name, infer, emit, reference, propose, accepts, notes, symbolic=True)


def _prod_bounds(x: ValueInfo, count: int) -> tuple[float, float]:
    # Any accumulation order forms partial products of every size up to count: check them all.
    checked((), x.dtype, *product_bounds(x.lo, x.hi, range(1, count + 1)), True)
    return power_bounds(x.lo, x.hi, count)


def _mean_bounds(x: ValueInfo, count: int) -> tuple[float, float]:
    checked((), x.dtype, min(x.lo, x.lo * count), max(x.hi, x.hi * count), True)  # the sum, in x's dtype
    return x.lo, x.hi


def _variance_bounds(x: ValueInfo, count: int) -> tuple[float, float]:
    """Relax computes mean((x - mean(x))**2) (two passes). The declared bound is the magnitude
    squared, the size of E[x**2], not the tighter (hi - lo)**2 / 4: the tolerance scales with
    the bound, and a legal rewrite to E[x**2] - E[x]**2 cancels with an error of that size."""
    _mean_bounds(x, count)
    width = x.hi - x.lo
    checked((), x.dtype, 0.0, count * width * width, True)  # sum of squared deviations
    return 0.0, x.magnitude ** 2


def _std_bounds(x: ValueInfo, count: int) -> tuple[float, float]:
    _variance_bounds(x, count)
    return 0.0, x.magnitude


def _std_ref(x, axis, keepdims):
    return np.std(x.astype("float64"), axis=axis, keepdims=keepdims)


def _var_ref(x, axis, keepdims):
    return np.var(x.astype("float64"), axis=axis, keepdims=keepdims)


def _mean_ref(x, axis, keepdims):
    return np.mean(x.astype("float64"), axis=axis, keepdims=keepdims)


SUM = smooth(reduction("sum", np.sum, NUMERIC, scale_by_count=True, keeps_exact=False))
PROD = reduction("prod", np.prod, NUMERIC, scale_by_count=False, keeps_exact=False, bounds=_prod_bounds,
                 notes="Integer products that could overflow (any partial product) are never drawn.")
MEAN = smooth(reduction("mean", _mean_ref, FLOATS, scale_by_count=False, keeps_exact=False, bounds=_mean_bounds,
                 notes="Integer mean uses integer arithmetic in Relax (not drawn). The sum is accumulated in "
                       "the operand's dtype, so its range is checked too."))
MAX = reduction("max", np.max, NUMERIC, scale_by_count=False, keeps_exact=True)
MIN = reduction("min", np.min, NUMERIC, scale_by_count=False, keeps_exact=True)
VARIANCE = smooth(reduction("variance", _var_ref, FLOATS, scale_by_count=False, keeps_exact=False, bounds=_variance_bounds,
                     notes="Population variance (ddof=0). Integer variance uses integer arithmetic in Relax "
                           "(not drawn). The bound is magnitude**2, not the tight one (see _variance_bounds)."))
STD = reduction("std", _std_ref, FLOATS, scale_by_count=False, keeps_exact=False, bounds=_std_bounds,
                notes="Population std (ddof=0), sqrt of Relax's two-pass variance. Integer std uses integer "
                      "arithmetic in Relax (not drawn).")

# -- argmax / argmin ----------------------------------------------------------------------------


# bool fails in LLVM codegen; bfloat16 fails to compile (TVM bug, see catalogue/excluded.py).
ARG_DTYPES = ("float32", "float16", "float64", "int32", "int64", "int8", "uint8")


def arg_reduction(name: str, ref: Callable, largest: bool) -> OpDef:
    """argmax/argmin: one axis (int) or None (all), int64 indices; float operands must be exact.

    TVM starts the reduction at the dtype's lowest (argmax) or highest (argmin) value with index
    -1 and replaces it only on a strict improvement, so a row that holds nothing but that value
    gives index -1 (e.g. argmax of an all-zero uint8 row), where numpy gives 0. Such operands are
    drawn anyway, with -1 in the result's range so that nothing downstream indexes with it: the
    reference oracle reports the bug. Floats never reach the dtype's extremes (FLOAT_LIMIT)."""

    def infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
        require(len(args) == 1 and set(attrs) == {"axis", "keepdims"}, f"{name} takes axis and keepdims")
        (x,) = args
        require(x.dtype in ARG_DTYPES and x.rank >= 1, f"{name} needs a numeric tensor of rank >= 1 (not bool, "
                                                       "not bfloat16)")
        require(x.exact, f"{name} of inexact floats could flip on a legal rounding difference")
        low = 0
        if is_int(x.dtype):
            info = np.iinfo(x.dtype)
            low = -1 if (x.lo <= info.min if largest else x.hi >= info.max) else 0  # TVM's -1 (see above)
        keep = bool(attrs["keepdims"])
        if attrs["axis"] is None:
            return checked([1] * x.rank if keep else [], "int64", low, x.size - 1, True)
        axis = normalize_axis(attrs["axis"], x.rank)
        shape = [1 if i == axis else d for i, d in enumerate(x.shape) if keep or i != axis]
        return checked(shape, "int64", low, x.shape[axis] - 1, True)

    def accepts(info: ValueInfo) -> bool:
        return info.dtype in ARG_DTYPES and info.rank >= 1 and valid(infer, [info], {"axis": None, "keepdims": False})

    def propose(sketch: Sketch, choose: Chooser) -> None:
        x = pick(sketch, choose, accepts)
        rank = sketch.infos[x].rank
        axis = choose.choice([None, *range(rank), *range(-rank, 0)])
        sketch.add(name, [x], {"axis": axis, "keepdims": choose.boolean()})

    def reference(args, attrs):
        return np.asarray(ref(args[0], axis=attrs["axis"], keepdims=attrs["keepdims"])).astype("int64")

    def emit(R, args, attrs):
        return getattr(R.op, name)(args[0], axis=attrs["axis"], keepdims=attrs["keepdims"])

    return OpDef(name, infer, emit, reference, propose, accepts,
                 notes="Ties give the first index, as in numpy. Output int64. A row holding only the "
                       "dtype's lowest (argmax) or highest (argmin) value gives -1 in TVM 0.27 (a bug; drawn).")


ARGMAX = arg_reduction("argmax", np.argmax, largest=True)
ARGMIN = arg_reduction("argmin", np.argmin, largest=False)

# -- softmax / log_softmax ---------------------------------------------------------------------


def _softmax_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and set(attrs) == {"axis"}, "softmax takes one operand and an axis")
    (x,) = args
    require(x.dtype in FLOATS and x.rank >= 1, "softmax needs a float tensor of rank >= 1")
    normalize_axis(attrs["axis"], x.rank)
    # An inexact operand may differ by its rounding slack after a legal rewrite (a reassociated
    # matmul chain); softmax passes that difference on to its [0, 1] output, whose tolerance
    # does not grow with the operand's magnitude (as in attention's scores).
    require(x.exact or ROUNDING[x.dtype] * x.magnitude <= RTOL[x.dtype] / 2,
            f"softmax of an inexact operand up to {x.magnitude:g} is too sensitive to rounding in {x.dtype}")
    return checked(x.shape, x.dtype, 0.0, 1.0, False)


def _softmax_accepts(info: ValueInfo) -> bool:
    return info.dtype in FLOATS and info.rank >= 1 and valid(_softmax_infer, [info], {"axis": -1})


def _softmax_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _softmax_accepts)
    rank = sketch.infos[x].rank
    sketch.add("softmax", [x], {"axis": choose.choice([-1, *range(rank - 1)])})


def _softmax_reference(args, attrs):
    x = args[0].astype("float64")
    e = np.exp(x - x.max(axis=attrs["axis"], keepdims=True))
    return (e / e.sum(axis=attrs["axis"], keepdims=True)).astype(args[0].dtype)


SOFTMAX = smooth(OpDef("softmax", _softmax_infer, lambda R, args, at: R.op.nn.softmax(args[0], axis=at["axis"]),
                 _softmax_reference, _softmax_propose, _softmax_accepts))


def _log_softmax_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    """x - max - log(sum(exp(x - max))) lies in [lo - hi - log(n), 0]. The declared lower bound
    is widened to the operand's magnitude: the tolerance scales with the bound, and a legal
    reassociation x - (max + lse) rounds at the size of x."""
    require(len(args) == 1 and set(attrs) == {"axis"}, "log_softmax takes one operand and an axis")
    (x,) = args
    require(x.dtype in FLOATS and x.rank >= 1, "log_softmax needs a float tensor of rank >= 1")
    n = x.shape[normalize_axis(attrs["axis"], x.rank)]
    return checked(x.shape, x.dtype, -(max(x.hi - x.lo, x.magnitude) + math.log(n)), 0.0, False)


def _log_softmax_accepts(info: ValueInfo) -> bool:
    return info.dtype in FLOATS and info.rank >= 1 and valid(_log_softmax_infer, [info], {"axis": -1})


def _log_softmax_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _log_softmax_accepts)
    info = sketch.infos[x]
    axes = [a for a in [-1, *range(info.rank - 1)] if valid(_log_softmax_infer, [info], {"axis": a})]
    sketch.add("log_softmax", [x], {"axis": choose.choice(axes)})


def _log_softmax_reference(args, attrs):
    x = args[0].astype("float64")
    shifted = x - x.max(axis=attrs["axis"], keepdims=True)
    return (shifted - np.log(np.exp(shifted).sum(axis=attrs["axis"], keepdims=True))).astype(args[0].dtype)


LOG_SOFTMAX = smooth(OpDef("log_softmax", _log_softmax_infer,
                    lambda R, args, at: R.op.nn.log_softmax(args[0], axis=at["axis"]),
                    _log_softmax_reference, _log_softmax_propose, _log_softmax_accepts))

def _median_ref(x, axis, keepdims):
    """The lower median: the element at (n - 1) // 2 of the n reduced elements, sorted."""
    axes = tuple(range(x.ndim)) if axis is None else tuple(a % x.ndim for a in axis)
    moved = np.moveaxis(x, axes, tuple(range(-len(axes), 0)))
    flat = moved.reshape(moved.shape[:moved.ndim - len(axes)] + (-1,))
    result = np.sort(flat, axis=-1)[..., (flat.shape[-1] - 1) // 2]
    if keepdims:
        result = np.expand_dims(result, tuple(sorted(axes)))
    return result


_MEDIAN_DTYPES = ("float32", "int64")
_ANY_MEDIAN = reduction("median", _median_ref, _MEDIAN_DTYPES, scale_by_count=False, keeps_exact=True)


def _median_infer(args, attrs):
    # Over several axes TVM 0.27 types the result a tensor but returns a tuple, and over all axes
    # with keepdims the shape is wrong (see excluded.py): one axis only.
    require(attrs.get("axis") is not None and len(attrs["axis"]) == 1, "median reduces exactly one axis")
    return _ANY_MEDIAN.infer(args, attrs)


def _median_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _median_accepts)
    axis = choose.integer(-sketch.infos[x].rank, sketch.infos[x].rank - 1)
    sketch.add("median", [x], {"axis": [axis], "keepdims": choose.boolean()})


def _median_accepts(info: ValueInfo) -> bool:
    return info.dtype in _MEDIAN_DTYPES and info.rank >= 1


MEDIAN = OpDef(
    "median", _median_infer,
    # R.median over one axis returns (values, indices); only the values are drawn: with ties the
    # index may be any of the tied elements.
    lambda R, args, at: R.TupleGetItem(R.op.median(args[0], axis=at["axis"], keepdims=at["keepdims"]), 0),
    _ANY_MEDIAN.reference, _median_propose, _median_accepts,
    notes="the lower median (numpy averages the two middle values); Relax returns (values, indices) and only "
          "the values are drawn")

OPS = [SUM, MAX, MIN, MEAN, PROD, ARGMAX, ARGMIN, VARIANCE, STD, SOFTMAX, LOG_SOFTMAX, MEDIAN]

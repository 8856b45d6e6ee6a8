"""Index ops: take, gather_elements, gather_nd, scatter_elements, one_hot.

Their indices are valid by construction, also when the graph computes them: an index interval
must lie inside the axis it addresses for *every* argument in the declared ranges, because none
of these ops checks bounds (an index slightly out of range reads garbage, a large one segfaults).
``propose`` takes indices, in order of simplicity, from an in-range integer value of the graph, a
new constant or parameter drawn in range, an integer value of the graph routed through a ``clip``,
or an exact float value cast to int64 and clipped (a routing table computed by the model).

The one exception is ``take`` in mode "clip" or "wrap", which defines every index: there any
integer value is a valid index (routed through nothing).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from passfuzz.ir.program import numpy_dtype

from .base import (
    DTYPES,
    FLOATS,
    INTS,
    NUMERIC,
    Chooser,
    OpDef,
    Sketch,
    ValueInfo,
    checked,
    is_float,
    is_int,
    normalize_axis,
    operand,
    pick,
    probe,
    representable,
    require,
    signed_axis,
    smooth,
    valid,
)

_INDEX_DTYPES = ("int64", "int32")  # the dtypes of fresh index operands
_SIGNED = ("int32", "int64", "int8")


def _in_axis(indices: ValueInfo, last: int, what: str) -> None:
    require(0 <= indices.lo and indices.hi <= last,
            f"{what} range [{indices.lo:g}, {indices.hi:g}] may leave [0, {last}] (no bounds check: undefined)")


def _index_operand(sketch: Sketch, choose: Chooser, last: int, shape_ok: Callable[[tuple[int, ...]], bool],
                   fresh_shape: Callable[[], tuple[int, ...]], dtypes: tuple[str, ...] = INTS,
                   fresh_dtypes: tuple[str, ...] = _INDEX_DTYPES) -> int:
    """An integer operand of one of ``dtypes`` whose every element is in [0, last] and whose shape
    satisfies ``shape_ok``: an in-range value of the graph, a new constant or parameter (of
    ``fresh_shape()``), a value of the graph clipped into range, or an exact float value cast to
    int64 and clipped (only when int64 is among ``dtypes``)."""
    in_range = sketch.candidates(lambda i: i.dtype in dtypes and shape_ok(i.shape) and 0 <= i.lo and i.hi <= last)
    ints = sketch.candidates(lambda i: i.dtype in dtypes and shape_ok(i.shape))
    floats = sketch.candidates(lambda i: i.dtype in FLOATS and i.exact and shape_ok(i.shape)) \
        if "int64" in dtypes else []
    source = choose.choice([*in_range, "const", "param", *(["clip"] if ints else []), *(["cast"] if floats else [])])
    if source in ("const", "param"):
        shape, dtype = fresh_shape(), choose.choice(list(fresh_dtypes))
        if source == "const":
            return sketch.add_const(shape, dtype, 0, last)
        return sketch.add_param(shape, dtype, 0, last, "input")
    if source == "clip":
        return sketch.add("clip", [choose.choice(ints)], {"min": 0, "max": last})
    if source == "cast":
        as_int = sketch.add("astype", [choose.choice(floats)], {"dtype": "int64"})
        return sketch.add("clip", [as_int], {"min": 0, "max": last})
    return source


def _small_shape(choose: Chooser, max_rank: int = 2) -> tuple[int, ...]:
    return tuple(choose.integer(1, 3) for _ in range(choose.integer(0, max_rank)))


# -- take -------------------------------------------------------------------------------------

TAKE_MODES = ("fast", "clip", "wrap")


def _take_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 2 and "axis" in attrs and set(attrs) <= {"axis", "mode"},
            "take takes (data, indices), an axis and optionally a mode")
    data, indices = args
    mode = attrs.get("mode", "fast")  # programs saved before modes existed mean "fast"
    require(mode in TAKE_MODES, f"take mode {mode!r} is not one of {TAKE_MODES}")
    require(data.rank >= 1, "take needs data of rank >= 1")
    axis = normalize_axis(attrs["axis"], data.rank)
    require(indices.dtype in INTS, "take's indices must be integers")
    if mode == "fast":
        _in_axis(indices, data.shape[axis] - 1, "indices")
    shape = data.shape[:axis] + indices.shape + data.shape[axis + 1:]
    return checked(shape, data.dtype, data.lo, data.hi, data.exact)


def _take_propose(sketch: Sketch, choose: Chooser) -> None:
    """Mode "fast" takes indices from ``_index_operand``; modes "clip" and "wrap" take any integer
    value of the graph as it is, a new constant or parameter drawn partly out of range, or an
    exact float value cast to int64."""
    data = pick(sketch, choose, lambda i: i.rank >= 1)
    info = sketch.infos[data]
    axis = choose.integer(0, info.rank - 1)
    last = info.shape[axis] - 1
    small = lambda shape: len(shape) <= 2  # noqa: E731
    mode = choose.choice(TAKE_MODES)
    if mode == "fast":
        indices = _index_operand(sketch, choose, last, small, lambda: _small_shape(choose))
    else:
        ints = sketch.candidates(lambda i: i.dtype in INTS and small(i.shape))
        floats = sketch.candidates(lambda i: i.dtype in FLOATS and i.exact and small(i.shape))
        source = choose.choice([*ints, "const", "param", *(["cast"] if floats else [])])
        if source in ("const", "param"):
            shape, dtype = _small_shape(choose), choose.choice(list(_INDEX_DTYPES))
            lo, hi = choose.choice([(-8, 8), (-2 * last - 3, 2 * last + 3), (-2**31, 2**31 - 1)])
            indices = sketch.add_const(shape, dtype, lo, hi) if source == "const" else \
                sketch.add_param(shape, dtype, lo, hi, "input")
        elif source == "cast":
            indices = sketch.add("astype", [choose.choice(floats)], {"dtype": "int64"})
        else:
            indices = source
    axis = signed_axis(choose, axis, info.rank)
    attrs = {"axis": axis} if mode == "fast" and choose.boolean() else {"axis": axis, "mode": mode}
    sketch.add("take", [data, indices], attrs)


def _take_reference(args: list[np.ndarray], attrs: dict) -> np.ndarray:
    data, indices = args
    axis, mode = attrs["axis"], attrs.get("mode", "fast")
    if mode == "wrap":
        # numpy's own mode="wrap" loops |index| / n times: hopeless for an index near 2**62
        return np.take(data, np.mod(indices.astype(np.int64), data.shape[axis]), axis=axis)
    return np.take(data, indices, axis=axis, mode="clip" if mode == "clip" else "raise")


# Smooth: linear in its data; its integer indices are a constant of a loss program (Gradient
# differentiates float parameters only), so finite differences never move them.
TAKE = smooth(OpDef("take", _take_infer,
             lambda R, args, at: R.op.take(args[0], args[1], axis=at["axis"], mode=at.get("mode", "fast")),
             _take_reference, _take_propose, lambda i: i.rank >= 1,
             notes="mode='fast' (the default, and the meaning of a missing mode) checks no bounds: an index out "
                   "of range reads garbage or segfaults and a negative one is not wrapped, so fast indices are "
                   "in range by construction. mode='clip' clamps to [0, n-1]; mode='wrap' takes the index "
                   "modulo n (numpy 'wrap'); both define every index. mode='nan' is not drawn. The index may "
                   "be an R.Prim scalar parameter (``index: T.int64``), as TVM's tests write one.",
             takes_prims=True))

# -- take_backward: the gradient of take (relax.grad) -------------------------------------------


def _take_backward_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    """(output_grad, x, indices), axis: TVM's kernel (legalize_ops/grad.py) adds output_grad's
    slices into zeros at the indices, which it reads unchecked and takes 1-D, and handles a
    non-negative axis only. A slice named k times sums k elements: the result is exact only for
    one index."""
    require(len(args) == 3 and set(attrs) == {"axis"}, "take_backward takes (output_grad, x, indices) and axis")
    grad, x, indices = args
    require(x.dtype in FLOATS and grad.dtype == x.dtype, "take_backward takes float x and output_grad of one dtype")
    axis = attrs["axis"]
    require(isinstance(axis, int) and not isinstance(axis, bool) and 0 <= axis < x.rank,
            "take_backward takes a non-negative axis of x (TVM's kernel compares it as written)")
    require(indices.dtype in INTS and indices.rank == 1, "take_backward's indices are a 1-D integer tensor")
    require(0 <= indices.lo and indices.hi <= x.shape[axis] - 1,
            f"operand 2 (indices) must lie in [0, {x.shape[axis] - 1}] (the kernel reads them unchecked)")
    require(grad.shape == x.shape[:axis] + indices.shape + x.shape[axis + 1:],
            "output_grad has take's result shape")
    k = indices.shape[0]
    return checked(x.shape, x.dtype, min(0.0, k * grad.lo), max(0.0, k * grad.hi), grad.exact and k == 1)


def _take_backward_ref(args, attrs):
    grad, x, indices = args
    out = np.zeros(x.shape, "float64")
    moved = np.moveaxis(out, attrs["axis"], 0)  # a view: np.add.at sums repeated indices in order
    np.add.at(moved, indices.astype("int64"), np.moveaxis(grad.astype("float64"), attrs["axis"], 0))
    return out.astype(x.dtype)


def _take_backward_accepts(info: ValueInfo) -> bool:
    return info.dtype in FLOATS and info.rank >= 1


def _take_backward_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _take_backward_accepts)
    info = sketch.infos[x]
    axis = choose.integer(0, info.rank - 1)
    indices = _index_operand(sketch, choose, info.shape[axis] - 1, lambda s: len(s) == 1,
                             lambda: (choose.integer(1, 4),))
    shape = info.shape[:axis] + sketch.infos[indices].shape + info.shape[axis + 1:]
    grad = operand(sketch, choose, [shape], info.dtype, -4.0, 4.0)
    sketch.add("take_backward", [grad, x, indices], {"axis": axis})


TAKE_BACKWARD = OpDef(
    "take_backward", _take_backward_infer,
    lambda R, args, at: R.op.grad.take_backward(*args, axis=at["axis"]),
    _take_backward_ref, _take_backward_propose, _take_backward_accepts,
    notes="The gradient of take at output_grad: zeros of x's shape with output_grad's slices added at the "
          "indices (a repeated index sums). 1-D in-range indices and a non-negative axis only: TVM's kernel "
          "reads the indices unchecked and handles no other form.")

# -- gather_elements ----------------------------------------------------------------------------


def _gather_elements_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 2 and set(attrs) == {"axis"}, "gather_elements takes (data, indices) and an axis")
    data, indices = args
    require(data.rank >= 1, "gather_elements needs data of rank >= 1")
    axis = normalize_axis(attrs["axis"], data.rank)
    require(indices.dtype in _SIGNED, "gather_elements' indices must be signed integers (TVM rejects uint8)")
    require(indices.rank == data.rank, "gather_elements' indices must have the rank of data")
    require(all(i <= d for k, (i, d) in enumerate(zip(indices.shape, data.shape)) if k != axis),
            "gather_elements' indices may not exceed data off the axis")
    _in_axis(indices, data.shape[axis] - 1, "indices")
    return checked(indices.shape, data.dtype, data.lo, data.hi, data.exact)


def _gather_elements_propose(sketch: Sketch, choose: Chooser) -> None:
    data = pick(sketch, choose, lambda i: i.rank >= 1)
    info = sketch.infos[data]
    axis = choose.integer(0, info.rank - 1)

    def shape_ok(shape: tuple[int, ...]) -> bool:
        return len(shape) == info.rank and 1 <= shape[axis] <= 4 and \
            all(s <= d for k, (s, d) in enumerate(zip(shape, info.shape)) if k != axis)

    def fresh() -> tuple[int, ...]:  # data's shape off the axis, or (shrinking toward it) less
        return tuple(choose.integer(1, 4) if k == axis else d - choose.integer(0, d - 1)
                     for k, d in enumerate(info.shape))

    indices = _index_operand(sketch, choose, info.shape[axis] - 1, shape_ok, fresh, dtypes=_SIGNED)
    sketch.add("gather_elements", [data, indices], {"axis": signed_axis(choose, axis, info.rank)})


def _gather_elements_reference(args: list[np.ndarray], attrs: dict) -> np.ndarray:
    data, indices = args
    axis = attrs["axis"] % data.ndim
    # indices may be smaller than data off the axis: out[i][j] = data[i][indices[i][j]] (axis 1)
    crop = tuple(slice(None) if k == axis else slice(0, s) for k, s in enumerate(indices.shape))
    return np.take_along_axis(data[crop], indices.astype(np.int64), axis=axis)


GATHER_ELEMENTS = OpDef("gather_elements", _gather_elements_infer,
                        lambda R, args, at: R.op.gather_elements(args[0], args[1], axis=at["axis"]),
                        _gather_elements_reference, _gather_elements_propose, lambda i: i.rank >= 1,
                        notes="No bounds check (a negative index is not wrapped); indices in range by construction. "
                              "Off the axis, indices may be smaller than data (ONNX GatherElements).")

# -- gather_nd ----------------------------------------------------------------------------------


def _gather_nd_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 2 and set(attrs) == {"batch_dims"}, "gather_nd takes (data, indices) and batch_dims")
    data, indices = args
    b = attrs["batch_dims"]
    require(b in (0, 1) and not isinstance(b, bool), "gather_nd: batch_dims must be 0 or 1")
    require(indices.dtype == "int64", "gather_nd's indices must be int64 (TVM rejects other dtypes)")
    require(indices.rank >= b + 1, "gather_nd's indices need the batch dims and the index tuple")
    require(indices.shape[:b] == data.shape[:b], "gather_nd: batch dims of data and indices differ")
    k = indices.shape[-1]
    require(1 <= k <= data.rank - b, f"gather_nd: index tuple of length {k} for data of rank {data.rank}")
    _in_axis(indices, min(data.shape[b:b + k]) - 1, "indices")
    shape = indices.shape[:-1] + data.shape[b + k:]
    return checked(shape, data.dtype, data.lo, data.hi, data.exact)


def _gather_nd_propose(sketch: Sketch, choose: Chooser) -> None:
    """The index tuple addresses dims b..b+k-1 of data; one interval bounds all its components,
    so they are kept below the smallest of those dims."""
    data = pick(sketch, choose, lambda i: i.rank >= 1)
    info = sketch.infos[data]
    b = choose.integer(0, 1) if info.rank >= 2 else 0
    k = choose.integer(1, info.rank - b)
    last = min(info.shape[b:b + k]) - 1
    lead = info.shape[:b]
    shape_ok = lambda s: b + 1 <= len(s) <= b + 3 and s[:b] == lead and s[-1] == k  # noqa: E731
    fresh = lambda: lead + _small_shape(choose, 2 - b) + (k,)  # noqa: E731
    indices = _index_operand(sketch, choose, last, shape_ok, fresh, dtypes=("int64",), fresh_dtypes=("int64",))
    sketch.add("gather_nd", [data, indices], {"batch_dims": b})


def _gather_nd_reference(args: list[np.ndarray], attrs: dict) -> np.ndarray:
    data, indices = args
    b, k = attrs["batch_dims"], indices.shape[-1]
    coords = tuple(indices[..., j] for j in range(k))
    if b:
        batch = np.arange(data.shape[0]).reshape((data.shape[0],) + (1,) * (indices.ndim - 2))
        coords = (np.broadcast_to(batch, indices.shape[:-1]),) + coords
    return np.asarray(data[coords])


GATHER_ND = OpDef("gather_nd", _gather_nd_infer,
                  lambda R, args, at: R.op.gather_nd(args[0], args[1], batch_dims=at["batch_dims"]),
                  _gather_nd_reference, _gather_nd_propose, lambda i: i.rank >= 1,
                  notes="ONNX GatherND: the last dim of indices is the index tuple (topi puts it first; the "
                        "legalization transposes). Indices must be int64. No bounds check; in range by "
                        "construction.")

# -- scatter_elements ---------------------------------------------------------------------------

SCATTER_REDUCTIONS = ("update", "add", "mul", "min", "max")


def _scatter_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 3 and set(attrs) == {"axis", "reduction"},
            "scatter_elements takes (data, indices, updates), an axis and a reduction")
    data, indices, updates = args
    reduction = attrs["reduction"]
    require(reduction in SCATTER_REDUCTIONS, f"scatter_elements reduction {reduction!r} not supported")
    require(data.rank >= 1, "scatter_elements needs data of rank >= 1")
    axis = normalize_axis(attrs["axis"], data.rank)
    require(data.dtype in (DTYPES if reduction == "update" else NUMERIC),
            f"scatter_elements with reduction {reduction} does not support {data.dtype}")
    require(updates.dtype == data.dtype, "scatter_elements' updates must have data's dtype")
    require(indices.dtype in INTS, "scatter_elements' indices must be integers")
    require(indices.shape == updates.shape, "scatter_elements' indices and updates must share a shape")
    # Off the axis, indices may be smaller than data (ONNX). TVM 0.27's topi then addresses data
    # with the indices' strides and writes to the wrong places: drawn anyway, so that the
    # reference oracle shows the bug (corpus reference-mismatch-*; see catalogue/excluded.py).
    require(indices.rank == data.rank and all(i <= d for k, (i, d) in enumerate(zip(indices.shape, data.shape))
                                              if k != axis),
            "scatter_elements' indices may not exceed data off the axis")
    m = indices.shape[axis]  # updates that may land on one element
    # Duplicate indices along the axis make "update" depend on the order of the writes, and
    # nothing bounds duplicates but a single index per line.
    require(reduction != "update" or m == 1, "scatter_elements 'update' with more than one index per line "
                                             "may write one element twice (order-dependent)")
    _in_axis(indices, data.shape[axis] - 1, "indices")
    exact = data.exact and updates.exact
    if reduction == "update":
        lo, hi = min(data.lo, updates.lo), max(data.hi, updates.hi)
    elif reduction == "min":
        lo, hi = min(data.lo, updates.lo), data.hi
    elif reduction == "max":
        lo, hi = data.lo, max(data.hi, updates.hi)
    elif reduction == "add":
        lo, hi = data.lo + m * min(0.0, updates.lo), data.hi + m * max(0.0, updates.hi)
        exact = is_int(data.dtype)
    else:  # mul: data times the product of up to m updates
        bound = data.magnitude * max(1.0, updates.magnitude) ** m
        nonneg = data.lo >= 0 and updates.lo >= 0
        lo, hi = (0.0 if nonneg else -bound), bound
        exact = is_int(data.dtype)
    return checked(data.shape, data.dtype, lo, hi, exact)


def _scatter_fresh(dtype: str, reduction: str) -> tuple[float, float]:
    if dtype == "bool":
        return 0, 1
    return (-2, 2) if reduction == "mul" else (-4, 4)


def _scatter_accepts(info: ValueInfo) -> bool:
    return info.rank >= 1 and info.dtype in DTYPES  # "update" with one index per line always works


def _scatter_propose(sketch: Sketch, choose: Chooser) -> None:
    data = pick(sketch, choose, _scatter_accepts)
    info = sketch.infos[data]
    axis = choose.integer(0, info.rank - 1)
    last = info.shape[axis] - 1

    def probes(reduction: str, m: int) -> list[ValueInfo]:
        shape = info.shape[:axis] + (m,) + info.shape[axis + 1:]
        return [info, ValueInfo(shape, "int64", 0, last), probe(info, *_scatter_fresh(info.dtype, reduction), shape)]

    options = [(r, m) for r in SCATTER_REDUCTIONS for m in ((1,) if r == "update" else (1, 2, 3, 4))
               if valid(_scatter_infer, probes(r, m), {"axis": axis, "reduction": r})]
    reduction = choose.choice(sorted({r for r, _ in options}, key=SCATTER_REDUCTIONS.index))
    m = choose.choice([m for r, m in options if r == reduction])
    attrs = {"axis": axis, "reduction": reduction}
    shape = tuple(m if k == axis else choose.choice([d, *range(1, d)]) for k, d in enumerate(info.shape))
    indices = _index_operand(sketch, choose, last, lambda s: s == shape, lambda: shape)
    index_info = sketch.infos[indices]
    updates = operand(sketch, choose, [shape], info.dtype, *_scatter_fresh(info.dtype, reduction),
                      accept=lambda u: valid(_scatter_infer, [info, index_info, u], attrs))
    sketch.add("scatter_elements", [data, indices, updates], {**attrs, "axis": signed_axis(choose, axis, info.rank)})


def _scatter_reference(args: list[np.ndarray], attrs: dict) -> np.ndarray:
    data, indices, updates = args
    axis, reduction = attrs["axis"] % data.ndim, attrs["reduction"]
    out = data.copy()
    for pos in np.ndindex(*indices.shape):  # C order: along each line in increasing k, as topi does
        target = pos[:axis] + (int(indices[pos]),) + pos[axis + 1:]
        u = updates[pos]
        if reduction == "update":
            out[target] = u
        elif reduction == "add":
            out[target] = out[target] + u
        elif reduction == "mul":
            out[target] = out[target] * u
        elif reduction == "min":
            out[target] = min(out[target], u)
        else:
            out[target] = max(out[target], u)
    return out


SCATTER_ELEMENTS = OpDef(
    "scatter_elements", _scatter_infer,
    lambda R, args, at: R.op.scatter_elements(args[0], args[1], args[2], axis=at["axis"], reduction=at["reduction"]),
    _scatter_reference, _scatter_propose, _scatter_accepts,
    notes="ONNX ScatterElements. No bounds check (TVM wraps a negative index once; never relied on). "
          "'update' with duplicate indices is order-dependent, so it is drawn with one index per line; "
          "add/mul/min/max accumulate in index order. bool supports only 'update'. 'mean' is not drawn. "
          "Off the axis, indices may be smaller than data; TVM 0.27 then writes to the wrong places (a bug).")

# -- one_hot ------------------------------------------------------------------------------------

_ONE_HOT_VALUES = {"float": [1.0, 0.0, -1.0, 2.5, 0.5], "int": [1, 0, -1, 3, 7], "uint8": [1, 0, 3, 7],
                   "bool": [1, 0]}


def _one_hot_value_ok(dtype: str, value) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if is_float(dtype):
        return representable(dtype, value, value) and float(numpy_dtype(dtype).type(value)) == value
    return isinstance(value, int) and representable(dtype, value, value)


_ONE_HOT_DTYPES = ("float32", "int64", "float16", "bool", "bfloat16", "float64")


def _one_hot_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and set(attrs) == {"depth", "axis", "on_value", "off_value", "dtype"},
            "one_hot takes indices, depth, axis, on_value, off_value and dtype")
    (indices,) = args
    depth, axis, dtype = attrs["depth"], attrs["axis"], attrs["dtype"]
    on, off = attrs["on_value"], attrs["off_value"]
    require(indices.dtype in INTS, "one_hot's indices must be integers")
    require(isinstance(depth, int) and not isinstance(depth, bool) and depth >= 1, "one_hot needs depth >= 1")
    require(isinstance(axis, int) and not isinstance(axis, bool) and -1 <= axis <= indices.rank,
            f"one_hot axis {axis} must be in [-1, {indices.rank}] (other negative axes fail in TVM)")
    # TVMScript prints int32/int8/uint8 prim values untyped and parses them back as int64, so
    # a reproducer of such a one_hot would not parse (catalogue/excluded.py).
    require(dtype in _ONE_HOT_DTYPES, f"one_hot with {dtype} values does not survive TVMScript")
    require(_one_hot_value_ok(dtype, on) and _one_hot_value_ok(dtype, off),
            f"on/off values {on!r}, {off!r} must be exactly representable in {dtype}")
    # TVM gives an out-of-range index an all-off row, but Relax does not define it: never relied on.
    _in_axis(indices, depth - 1, "indices")
    at = indices.rank if axis == -1 else axis
    shape = indices.shape[:at] + (depth,) + indices.shape[at:]
    lo, hi = (min(on, off), max(on, off)) if depth > 1 else (on, on)
    return checked(shape, dtype, lo, hi, True)


def _one_hot_propose(sketch: Sketch, choose: Chooser) -> None:
    depth = choose.integer(1, 4)
    indices = _index_operand(sketch, choose, depth - 1, lambda s: len(s) <= 2, lambda: _small_shape(choose))
    rank = sketch.infos[indices].rank
    dtype = choose.choice(list(_ONE_HOT_DTYPES))
    values = _ONE_HOT_VALUES["float" if is_float(dtype) else dtype if dtype in ("uint8", "bool") else "int"]
    on = choose.choice(values)
    off = choose.choice([v for v in values if v != on] if choose.boolean() else values)
    axis = choose.choice([-1, *range(rank + 1)])
    sketch.add("one_hot", [indices], {"depth": depth, "axis": axis, "on_value": on, "off_value": off,
                                      "dtype": dtype})


def _one_hot_emit(R, args, at):
    from tvm import tirx  # the prim values carry the output dtype (a Python float would make it float64)
    imm = tirx.FloatImm if is_float(at["dtype"]) else tirx.IntImm
    on, off = (R.prim_value(imm(at["dtype"], at[k])) for k in ("on_value", "off_value"))
    return R.op.one_hot(args[0], on, off, at["depth"], at["axis"])


def _one_hot_reference(args: list[np.ndarray], attrs: dict) -> np.ndarray:
    (indices,) = args
    depth, axis = attrs["depth"], attrs["axis"]
    at = indices.ndim if axis == -1 else axis
    hot = np.expand_dims(indices.astype(np.int64), at) == \
        np.arange(depth).reshape((depth,) + (1,) * (indices.ndim - at))
    dtype = numpy_dtype(attrs["dtype"])
    return np.where(hot, np.array(attrs["on_value"]).astype(dtype), np.array(attrs["off_value"]).astype(dtype))


ONE_HOT = OpDef("one_hot", _one_hot_infer, _one_hot_emit, _one_hot_reference, _one_hot_propose,
                lambda i: True,  # indices are found or made by propose, whatever the graph holds
                notes="The output dtype is the on/off prim values' dtype (Python floats would give float64, so "
                      "typed prim values are emitted). An out-of-range index gives an all-off row in TVM; "
                      "indices stay in range by construction. axis=-1 appends the new dim; other negative "
                      "axes fail in TVM.")

OPS = [TAKE, TAKE_BACKWARD, GATHER_ELEMENTS, GATHER_ND, ONE_HOT, SCATTER_ELEMENTS]

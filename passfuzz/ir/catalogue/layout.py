"""Data-movement ops: they rearrange elements and never change a value, so exactness survives.
collapse_sum_to and collapse_sum_like, the sums that undo a broadcast, live here too."""

from __future__ import annotations

import itertools

import numpy as np

from .base import (
    NUMERIC,
    Chooser,
    OpDef,
    OpError,
    Sketch,
    TupleInfo,
    ValueInfo,
    checked,
    is_float_array,
    is_int,
    normalize_axis,
    operand,
    pick,
    require,
    signed_axis,
    smooth,
    valid,
)

_rank1 = lambda info: info.rank >= 1  # noqa: E731


def _same(x: ValueInfo, shape) -> ValueInfo:
    return checked(shape, x.dtype, x.lo, x.hi, x.exact)


def _fresh_range(x: ValueInfo) -> tuple[float, float]:
    return (0, 1) if x.dtype == "bool" else (-4, 4)


# -- permute_dims ---------------------------------------------------------------------------

def _permute_infer(args, attrs):
    (x,) = args
    axes = attrs["axes"]
    if axes is None:
        return _same(x, x.shape[::-1])
    require(sorted(normalize_axis(a, x.rank) for a in axes) == list(range(x.rank)), f"{axes} is not a permutation")
    return _same(x, [x.shape[a] for a in axes])


def _permute_propose(sketch: Sketch, choose: Chooser) -> None:
    """axes=None (reverse), an arbitrary permutation, the identity, or the permutations models
    write: the last two axes swapped behind the batch axes, or the batch axis moved to the end."""
    x = pick(sketch, choose, _rank1)
    rank = sketch.infos[x].rank
    axes = None
    if choose.boolean():
        kinds = ["random", "identity", *(["swap_last", "batch_last"] if rank >= 2 else [])]
        kind = choose.choice(kinds)
        if kind == "random":
            remaining, axes = list(range(rank)), []
            while remaining:
                axes.append(remaining.pop(choose.integer(0, len(remaining) - 1)))
        elif kind == "identity":
            axes = list(range(rank))
        elif kind == "swap_last":
            axes = [*range(rank - 2), rank - 1, rank - 2]
        else:
            axes = [*range(1, rank), 0]
        if choose.boolean():  # negative axes, as models often write them
            axes = [a - rank for a in axes]
    sketch.add("permute_dims", [x], {"axes": axes})


PERMUTE_DIMS = smooth(OpDef("permute_dims", _permute_infer, lambda R, args, at: R.op.permute_dims(args[0], at["axes"]),
                     lambda args, at: np.transpose(args[0], at["axes"]), _permute_propose, _rank1,
                     notes="axes=None reverses the axes, as numpy.transpose does."))

# -- reshape ----------------------------------------------------------------------------------


def _reshape_infer(args, attrs):
    """``shape`` holds positive dims and at most one -1, which takes what the others leave."""
    (x,) = args
    shape = list(attrs["shape"])
    require(all(isinstance(d, int) and (d >= 1 or d == -1) for d in shape) and shape.count(-1) <= 1,
            "reshape needs positive static dims and at most one -1")
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        require(x.size % known == 0, f"cannot reshape {x.shape} to {shape}")
        shape[shape.index(-1)] = x.size // known
    require(int(np.prod(shape, dtype=np.int64)) == x.size, f"cannot reshape {x.shape} to {shape}")
    return _same(x, shape)


def _prime_factors(n: int) -> list[int]:
    factors, p = [], 2
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    return factors


def _reshape_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, lambda i: True)
    rank = choose.integer(1, 4)
    shape = [1] * rank
    for factor in _prime_factors(sketch.infos[x].size):
        shape[choose.integer(0, rank - 1)] *= factor
    if choose.boolean():  # let Relax infer one dim
        shape[choose.integer(0, rank - 1)] = -1
    sketch.add("reshape", [x], {"shape": shape})


RESHAPE = smooth(OpDef("reshape", _reshape_infer, lambda R, args, at: R.op.reshape(args[0], at["shape"]),
                lambda args, at: np.reshape(args[0], at["shape"]), _reshape_propose, lambda i: True,
                notes="One dim may be -1 (inferred), as in numpy."))

# -- expand_dims / squeeze ------------------------------------------------------------------------


def _expand_axes(attrs, rank: int) -> list[int]:
    """expand_dims' axes (an int or a list of distinct ints), normalized in the result's rank,
    which counts one new dim per axis (as numpy.expand_dims reads a tuple)."""
    axis = attrs["axis"]
    axes = axis if isinstance(axis, list) else [axis]
    require(len(axes) >= 1, "expand_dims needs an axis")
    out = [normalize_axis(a, rank + len(axes)) for a in axes]
    require(len(set(out)) == len(out), f"expand_dims axes {axis} repeat a dim")
    return out


def _expand_infer(args, attrs):
    (x,) = args
    axes = _expand_axes(attrs, x.rank)
    dims = iter(x.shape)
    return _same(x, [1 if k in axes else next(dims) for k in range(x.rank + len(axes))])


def _expand_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, lambda i: i.rank < 4)
    rank = sketch.infos[x].rank
    if rank < 3 and choose.boolean():  # several new dims at once, as TVM's tests write them
        new = choose.integer(2, 4 - rank)
        axes: list[int] = []
        while len(axes) < new:
            axes.append(choose.choice([k for k in range(rank + new) if k not in axes]))
        sketch.add("expand_dims", [x], {"axis": [a - rank - new if choose.boolean() else a for a in axes]})
        return
    sketch.add("expand_dims", [x], {"axis": choose.integer(-rank - 1, rank)})


EXPAND_DIMS = smooth(OpDef("expand_dims", _expand_infer, lambda R, args, at: R.op.expand_dims(args[0], at["axis"]),
                    lambda args, at: np.expand_dims(args[0], tuple(_expand_axes(at, args[0].ndim))),
                    _expand_propose, lambda i: i.rank < 4,
                    notes="axis is an int or a list of distinct ints, each counted in the result's rank."))


def _squeeze_infer(args, attrs):
    (x,) = args
    axis = attrs["axis"]
    if axis is None:
        return _same(x, [d for d in x.shape if d != 1])
    axes = {normalize_axis(a, x.rank) for a in axis}
    require(all(x.shape[a] == 1 for a in axes), "squeeze of a dim that is not 1")
    return _same(x, [d for i, d in enumerate(x.shape) if i not in axes])


def _squeeze_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, lambda i: 1 in i.shape)
    ones = [i for i, d in enumerate(sketch.infos[x].shape) if d == 1]
    sketch.add("squeeze", [x], {"axis": choose.choice([None, *([k] for k in ones)])})


SQUEEZE = OpDef("squeeze", _squeeze_infer, lambda R, args, at: R.op.squeeze(args[0], at["axis"]),
                lambda args, at: np.squeeze(args[0], None if at["axis"] is None else tuple(at["axis"])),
                _squeeze_propose, lambda i: 1 in i.shape)

# -- concat / split --------------------------------------------------------------------------------


def _concat_parts(args) -> list[ValueInfo]:
    """concat's tensors: its operands, or the items of its one tuple operand (TVM's tests
    concatenate a tuple parameter or a split's parts as they are)."""
    parts = list(args[0].items) if len(args) == 1 and isinstance(args[0], TupleInfo) else list(args)
    require(bool(parts) and all(isinstance(p, ValueInfo) for p in parts), "concat takes tensors or a tuple of them")
    return parts


def _concat_infer(args, attrs):
    args = _concat_parts(args)
    x = args[0]
    require(x.rank >= 1, "concat needs rank >= 1")
    axis = normalize_axis(attrs["axis"], x.rank)
    for other in args[1:]:
        require(other.dtype == x.dtype and other.rank == x.rank, "concat operands must share dtype and rank")
        require(all(a == b for i, (a, b) in enumerate(zip(x.shape, other.shape)) if i != axis),
                "concat operands must agree off the axis")
    shape = list(x.shape)
    shape[axis] = sum(a.shape[axis] for a in args)
    return checked(shape, x.dtype, min(a.lo for a in args), max(a.hi for a in args), all(a.exact for a in args))


def _concat_axes(info) -> list[int]:
    """The axes a tuple's items concatenate along."""
    items = [i for i in info.items if isinstance(i, ValueInfo)]
    return [a for a in range(items[0].rank if items else 0) if valid(_concat_infer, [info], {"axis": a})]


def _concat_propose(sketch: Sketch, choose: Chooser) -> None:
    if choose.boolean():  # one tuple operand: an existing tuple, or a split's parts put back together
        tuples = sketch.candidates(lambda i: isinstance(i, TupleInfo) and bool(_concat_axes(i)), tuples=True)
        if tuples:
            t = choose.choice(tuples)
        elif sketch.candidates(_splittable):
            x = pick(sketch, choose, _splittable)
            t = sketch.add("split_tuple", [x], _split_attrs(sketch.infos[x].shape, choose))
        else:
            t = None
        if t is not None:
            sketch.add("concat", [t], {"axis": choose.choice(_concat_axes(sketch.infos[t]))})
            return
    first = pick(sketch, choose, _rank1)
    x = sketch.infos[first]
    axis = choose.integer(0, x.rank - 1)
    shapes = [x.shape[:axis] + (d,) + x.shape[axis + 1:] for d in range(1, 5)]
    args = [first, operand(sketch, choose, shapes, x.dtype, *_fresh_range(x))]
    if choose.boolean():
        args.append(operand(sketch, choose, shapes, x.dtype, *_fresh_range(x)))
    sketch.add("concat", args, {"axis": signed_axis(choose, axis, x.rank)})


def _concat_emit(R, args, at):
    whole = len(args) == 1 and isinstance(args[0].ty, R.TupleType)
    return R.op.concat(args[0] if whole else args, axis=at["axis"])


def _concat_ref(args, at):
    parts = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    return np.concatenate(parts, axis=at["axis"])


CONCAT = smooth(OpDef("concat", _concat_infer, _concat_emit, _concat_ref, _concat_propose,
                      lambda i: bool(_concat_axes(i)) if isinstance(i, TupleInfo) else _rank1(i),
                      notes="The operands one by one, or one tuple of them (a tuple parameter, a split's parts).",
                      takes_tuples=True))


def _split_parts(x: ValueInfo, attrs) -> tuple[int, list[int]]:
    """The split axis and the length of each part. ``sections`` (an int) splits into equal
    parts; ``indices`` (a list of split points, strictly increasing inside the axis) splits
    there, as numpy.split does. Exactly one of the two is given."""
    require(x.rank >= 1, "split needs rank >= 1")
    axis = normalize_axis(attrs["axis"], x.rank)
    length = x.shape[axis]
    require(("sections" in attrs) != ("indices" in attrs), "split takes either sections or indices")
    if "sections" in attrs:
        sections = attrs["sections"]
        require(isinstance(sections, int) and not isinstance(sections, bool) and sections >= 2
                and _sections_fill(length, sections),
                "sections must be >= 2 (one section gives a tensor, not a tuple) and leave no part empty")
        part = -(-length // sections)
        return axis, [part] * (sections - 1) + [length - part * (sections - 1)]
    points = attrs["indices"]
    require(isinstance(points, list) and len(points) >= 1 and all(isinstance(p, int) for p in points),
            "indices must be a non-empty list of ints")
    bounds = [0, *points, length]
    require(all(a < b for a, b in zip(bounds, bounds[1:])),
            "split points must increase strictly inside the axis (no empty part)")
    return axis, [b - a for a, b in zip(bounds, bounds[1:])]


def _sections_fill(length: int, sections: int) -> bool:
    """Does Relax's split of ``length`` into ``sections`` (parts of ceil(length / sections), the
    last one the rest) leave every part non-empty? 10 in 3 gives 4, 4, 2; 4 in 3 gives 2, 2, 0."""
    return -(-length // sections) * (sections - 1) < length


def _split_points(length: int, attrs: dict) -> list[int]:
    """Where numpy.split cuts for the attributes: the points, or the sections' starts."""
    if "indices" in attrs:
        return attrs["indices"]
    part = -(-length // attrs["sections"])
    return [part * k for k in range(1, attrs["sections"])]


def _split_infer(args, attrs):
    (x,) = args
    axis, parts = _split_parts(x, attrs)
    index = attrs["index"]
    require(isinstance(index, int) and 0 <= index < len(parts), "index out of range")
    shape = list(x.shape)
    shape[axis] = parts[index]
    return _same(x, shape)


_splittable = lambda info: any(d >= 2 for d in info.shape)  # noqa: E731


def _split_attrs(shape: tuple[int, ...], choose: Chooser) -> dict:
    """Where to split a value of ``shape``: split points or a dividing section count, and the axis."""
    axis = choose.choice([a for a, d in enumerate(shape) if d >= 2])
    if choose.boolean():
        inner = list(range(1, shape[axis]))
        how = {"indices": sorted({choose.choice(inner) for _ in range(choose.integer(1, len(inner)))})}
    else:
        how = {"sections": choose.choice([s for s in range(2, shape[axis] + 1) if _sections_fill(shape[axis], s)])}
    return {**how, "axis": signed_axis(choose, axis, len(shape))}


def _split_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _splittable)
    attrs = _split_attrs(sketch.infos[x].shape, choose)
    parts = len(attrs["indices"]) + 1 if "indices" in attrs else attrs["sections"]
    sketch.add("split", [x], {**attrs, "index": choose.integer(0, parts - 1)})


def _split_how(attrs):
    return attrs["indices"] if "indices" in attrs else attrs["sections"]


SPLIT = smooth(OpDef(  # linear
    "split", _split_infer,
    lambda R, args, at: R.TupleGetItem(R.op.split(args[0], _split_how(at), axis=at["axis"]), at["index"]),
    lambda args, at: np.split(args[0], _split_points(args[0].shape[at["axis"]], at), axis=at["axis"])[at["index"]],
    _split_propose, _splittable,
    notes="One node is split followed by TupleGetItem(index). Relax splits uneven sections by ceiling "
          "(length 10 in 3 gives 4, 4, 2; 4 in 3 gives 2, 2, 0): only counts leaving no part empty are drawn. "
          "Split points "
          "(attribute indices) split as numpy.split does; empty parts are never drawn."))


def _split_tuple_infer(args, attrs):
    (x,) = args
    require(set(attrs) in ({"sections", "axis"}, {"indices", "axis"}), "split_tuple takes sections or indices, and axis")
    axis, parts = _split_parts(x, attrs)
    return TupleInfo(tuple(_same(x, x.shape[:axis] + (part,) + x.shape[axis + 1:]) for part in parts))


def _split_tuple_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _splittable)
    sketch.add("split_tuple", [x], _split_attrs(sketch.infos[x].shape, choose))


# The whole tuple, as TVM's tests return or pass it (``gv = R.split(x, 2, axis=1); return gv``).
# ``split`` (one part) is its composite with tuple_get_item, which the importer reads as pieces.
SPLIT_TUPLE = OpDef(
    "split_tuple", _split_tuple_infer, lambda R, args, at: R.op.split(args[0], _split_how(at), axis=at["axis"]),
    lambda args, at: tuple(np.split(args[0], _split_points(args[0].shape[at["axis"]], at), axis=at["axis"])),
    _split_tuple_propose, _splittable,
    notes="R.split's tuple of every part (split takes one part); the same sections and points as split.")

# -- strided_slice / broadcast_to ----------------------------------------------------------------


def _slice_length(dim: int, b, e, s) -> int:
    """The length of one sliced axis. A positive stride needs 0 <= begin < end <= dim; a
    negative one needs 0 <= begin < dim and an end below begin: 0 <= end, or end = -(dim + 1),
    which both Relax and numpy read as "through index 0" (end = -1 would mean dim - 1)."""
    require(all(isinstance(v, int) and not isinstance(v, bool) for v in (b, e, s)) and s != 0,
            "begin, end and stride must be ints, stride non-zero")
    if s > 0:
        # begin >= end with a positive stride fails in LegalizeOps instead of giving an empty tensor.
        require(0 <= b < e <= dim, "slice bounds out of range")
        return -(-(e - b) // s)
    last = -1 if e == -(dim + 1) else e
    require(0 <= b < dim and -1 <= last < b and (last >= 0 or e == -(dim + 1)),
            "negative-stride slice bounds out of range")
    return -(-(b - last) // -s)


def _strides(attrs) -> list:
    """strided_slice's strides: None (TVMScript's form without them) is a stride of 1 per axis."""
    return [1] * len(attrs["axes"]) if attrs["strides"] is None else attrs["strides"]


def _slice_infer(args, attrs):
    (x,) = args
    axes, begin, end, strides = attrs["axes"], attrs["begin"], attrs["end"], _strides(attrs)
    require(len(axes) == len(begin) == len(end) == len(strides) >= 1, "axes, begin, end, strides must match")
    normalized = [normalize_axis(a, x.rank) for a in axes]
    require(len(set(normalized)) == len(normalized), "repeated axis")
    shape = list(x.shape)
    for a, b, e, s in zip(normalized, begin, end, strides):
        shape[a] = _slice_length(x.shape[a], b, e, s)
    return _same(x, shape)


def _slice_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _rank1)
    shape = sketch.infos[x].shape
    axes = [choose.integer(0, len(shape) - 1)]
    if len(shape) >= 2 and choose.boolean():
        axes.append(choose.choice([a for a in range(len(shape)) if a != axes[0]]))
    attrs = {"axes": axes, "begin": [], "end": [], "strides": []}
    for axis in axes:
        dim = shape[axis]
        if choose.boolean():  # backwards
            begin = choose.integer(0, dim - 1)
            end = choose.choice([-(dim + 1), *range(begin)])
            stride = -choose.integer(1, 2)
        else:
            begin = choose.integer(0, dim - 1)
            end = choose.integer(begin + 1, dim)
            stride = choose.integer(1, 2)
        attrs["begin"].append(begin)
        attrs["end"].append(end)
        attrs["strides"].append(stride)
    if set(attrs["strides"]) == {1} and choose.boolean():
        attrs["strides"] = None
    sketch.add("strided_slice", [x], attrs)


def _slice_reference(args, attrs):
    index = [slice(None)] * args[0].ndim
    for a, b, e, s in zip(attrs["axes"], attrs["begin"], attrs["end"], _strides(attrs)):
        index[a] = slice(b, e, s)
    return args[0][tuple(index)]


STRIDED_SLICE = OpDef(
    "strided_slice", _slice_infer,
    lambda R, args, at: R.op.strided_slice(args[0], at["axes"], at["begin"], at["end"], at["strides"]),
    _slice_reference, _slice_propose, _rank1,
    notes="strides None is a stride of 1 on every axis. begin >= end with a positive stride fails in LegalizeOps instead of giving an empty tensor; never "
          "drawn. A negative end counts from the back (-1 is dim - 1) in both Relax and numpy, so a "
          "negative-stride slice through index 0 ends at -(dim + 1).")


def _broadcast_infer(args, attrs):
    (x,) = args
    shape = tuple(attrs["shape"])
    require(len(shape) >= x.rank and all(isinstance(d, int) and d >= 1 for d in shape), "bad target shape")
    tail = shape[len(shape) - x.rank:] if x.rank else ()
    require(all(a in (1, b) for a, b in zip(x.shape, tail)), f"{x.shape} does not broadcast to {shape}")
    return _same(x, shape)


def _broadcast_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, lambda i: i.rank < 4)
    shape = [choose.integer(2, 3) if d == 1 and choose.boolean() else d for d in sketch.infos[x].shape]
    if choose.boolean() or not shape:
        shape.insert(0, choose.integer(1, 3))
    sketch.add("broadcast_to", [x], {"shape": shape})


BROADCAST_TO = smooth(OpDef("broadcast_to", _broadcast_infer, lambda R, args, at: R.op.broadcast_to(args[0], at["shape"]),
                     lambda args, at: np.broadcast_to(args[0], at["shape"]).copy(), _broadcast_propose,
                     lambda i: i.rank < 4))

# -- flatten / flip / repeat / tile / stack -------------------------------------------------------


def _flatten_infer(args, attrs):
    require(len(args) == 1 and not attrs, "flatten takes one operand and no attributes")
    (x,) = args
    return _same(x, (x.size,))


FLATTEN = OpDef("flatten", _flatten_infer, lambda R, args, at: R.op.flatten(args[0]),
                lambda args, at: np.reshape(args[0], (-1,)),
                lambda sketch, choose: sketch.add("flatten", [pick(sketch, choose, lambda i: True)]),
                lambda i: True, notes="A 0-d tensor flattens to shape (1,).")


def _batch_flatten_infer(args, attrs):
    require(len(args) == 1 and not attrs, "batch_flatten takes one operand and no attributes")
    (x,) = args
    require(x.rank >= 2, "batch_flatten needs rank >= 2 (nn.cc, InferTypeBatchFlatten)")
    return _same(x, (x.shape[0], int(np.prod(x.shape[1:], dtype=np.int64))))


_batch_flattenable = lambda i: i.rank >= 2  # noqa: E731

BATCH_FLATTEN = smooth(OpDef(  # linear
    "batch_flatten", _batch_flatten_infer, lambda R, args, at: R.op.nn.batch_flatten(args[0]),
    lambda args, at: np.reshape(args[0], (args[0].shape[0], -1)),
    lambda sketch, choose: sketch.add("batch_flatten", [pick(sketch, choose, _batch_flattenable)]),
    _batch_flattenable, notes="R.nn.batch_flatten: (N, ...) to (N, product of the rest); rank 2 or more."))


def _flip_infer(args, attrs):
    require(len(args) == 1 and set(attrs) == {"axis"}, "flip takes one operand and an axis")
    (x,) = args
    require(x.rank >= 1, "flip needs rank >= 1")
    normalize_axis(attrs["axis"], x.rank)
    return _same(x, x.shape)


def _flip_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _rank1)
    rank = sketch.infos[x].rank
    sketch.add("flip", [x], {"axis": choose.choice([*range(rank), *range(-rank, 0)])})


FLIP = OpDef("flip", _flip_infer, lambda R, args, at: R.op.flip(args[0], at["axis"]),
             lambda args, at: np.flip(args[0], at["axis"]), _flip_propose, _rank1,
             notes="One axis (an int), not numpy's tuple or None.")


def _repeat_infer(args, attrs):
    """``axis=None`` flattens first, as numpy.repeat does; Relax rejects a 0-d operand."""
    require(len(args) == 1 and set(attrs) == {"repeats", "axis"}, "repeat takes repeats and axis")
    (x,) = args
    repeats, axis = attrs["repeats"], attrs["axis"]
    require(x.rank >= 1, "repeat of a 0-d tensor fails in Relax")
    require(isinstance(repeats, int) and not isinstance(repeats, bool) and repeats >= 1, "repeats must be >= 1")
    if axis is None:
        return _same(x, (x.size * repeats,))
    axis = normalize_axis(axis, x.rank)
    shape = list(x.shape)
    shape[axis] *= repeats
    return _same(x, shape)


def _repeat_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _rank1)
    rank = sketch.infos[x].rank
    sketch.add("repeat", [x], {"repeats": choose.integer(1, 3),
                               "axis": choose.choice([None, *range(rank), *range(-rank, 0)])})


REPEAT = OpDef("repeat", _repeat_infer, lambda R, args, at: R.op.repeat(args[0], at["repeats"], axis=at["axis"]),
               lambda args, at: np.repeat(args[0], at["repeats"], axis=at["axis"]), _repeat_propose, _rank1,
               notes="repeats is one int (no per-element list). A 0-d operand fails in Relax (never drawn).")


def _tile_infer(args, attrs):
    """numpy.tile semantics: the shorter of shape and repeats is padded with leading 1s."""
    require(len(args) == 1 and set(attrs) == {"repeats"}, "tile takes repeats")
    (x,) = args
    repeats = attrs["repeats"]
    require(isinstance(repeats, list) and all(isinstance(r, int) and not isinstance(r, bool) and r >= 1
                                              for r in repeats), "repeats must be a list of ints >= 1")
    rank = max(x.rank, len(repeats))
    shape = (1,) * (rank - x.rank) + x.shape
    reps = [1] * (rank - len(repeats)) + repeats
    return _same(x, [d * r for d, r in zip(shape, reps)])


def _tile_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, lambda i: i.rank < 4)
    rank = sketch.infos[x].rank
    repeats = [choose.integer(1, 3) for _ in range(choose.integer(1 if rank == 0 else 0, rank + 1))]
    sketch.add("tile", [x], {"repeats": repeats})


TILE = OpDef("tile", _tile_infer, lambda R, args, at: R.op.tile(args[0], at["repeats"]),
             lambda args, at: np.tile(args[0], at["repeats"]), _tile_propose, lambda i: i.rank < 4)


def _stack_infer(args, attrs):
    require(len(args) >= 1 and set(attrs) == {"axis"}, "stack takes operands and an axis")
    x = args[0]
    require(all(a.dtype == x.dtype and a.shape == x.shape for a in args), "stack operands must share shape and dtype")
    axis = normalize_axis(attrs["axis"], x.rank + 1)
    return checked(x.shape[:axis] + (len(args),) + x.shape[axis:], x.dtype, min(a.lo for a in args),
                   max(a.hi for a in args), all(a.exact for a in args))


def _stack_propose(sketch: Sketch, choose: Chooser) -> None:
    first = pick(sketch, choose, lambda i: i.rank < 4)
    x = sketch.infos[first]
    args = [first, operand(sketch, choose, [x.shape], x.dtype, *_fresh_range(x))]
    if choose.boolean():
        args.append(operand(sketch, choose, [x.shape], x.dtype, *_fresh_range(x)))
    sketch.add("stack", args, {"axis": choose.integer(-x.rank - 1, x.rank)})


STACK = OpDef("stack", _stack_infer, lambda R, args, at: R.op.stack(args, axis=at["axis"]),
              lambda args, at: np.stack(args, axis=at["axis"]), _stack_propose, lambda i: i.rank < 4)

# -- collapse_sum_to / collapse_sum_like ---------------------------------------------------------


def _collapse(x: ValueInfo, target: tuple[int, ...]) -> ValueInfo:
    """Sum ``x`` down to ``target``, a shape that broadcasts to ``x``'s. Floats become inexact
    (unless nothing is summed); integer sums are checked against overflow like reduction.sum:
    every partial sum of k elements lies in [k*lo, k*hi], inside the range of the full sum."""
    require(x.dtype in NUMERIC, f"collapse_sum does not support {x.dtype} (bool fails in LLVM codegen)")
    require(len(target) <= x.rank and all(isinstance(d, int) and d >= 1 for d in target),
            f"{target} is not a shape {x.shape} collapses to")
    tail = x.shape[x.rank - len(target):]
    require(all(t in (1, d) for t, d in zip(target, tail)), f"{target} does not broadcast to {x.shape}")
    count = x.size // int(np.prod(target, dtype=np.int64))
    lo, hi = min(x.lo, x.lo * count), max(x.hi, x.hi * count)
    return checked(target, x.dtype, lo, hi, x.exact and (count == 1 or is_int(x.dtype)))


def _collapse_targets(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Shapes ``shape`` collapses to: each suffix, with any of its dims set to 1 (small ranks only)."""
    out = []
    for k in range(len(shape) + 1):
        tail = shape[k:]
        for mask in itertools.product([False, True], repeat=len(tail)):
            out.append(tuple(1 if m else d for m, d in zip(mask, tail)))
    return list(dict.fromkeys(out))


def _collapse_to_infer(args, attrs):
    require(len(args) == 1 and set(attrs) == {"shape"}, "collapse_sum_to takes one operand and a shape")
    return _collapse(args[0], tuple(attrs["shape"]))


def _collapse_accepts(info: ValueInfo) -> bool:
    return info.dtype in NUMERIC  # collapsing to its own shape sums nothing, so it is always valid


def _collapse_to_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _collapse_accepts)
    info = sketch.infos[x]
    shapes = [s for s in _collapse_targets(info.shape) if valid(_collapse_to_infer, [info], {"shape": list(s)})]
    sketch.add("collapse_sum_to", [x], {"shape": list(choose.choice(shapes))})


def _collapse_reference(x: np.ndarray, target: tuple[int, ...]) -> np.ndarray:
    lead = x.ndim - len(target)
    axes = tuple(range(lead)) + tuple(lead + i for i, t in enumerate(target) if t == 1 and x.shape[lead + i] != 1)
    wide = x.astype("float64" if is_float_array(x) else "int64")  # no overflow by construction
    return np.sum(wide, axis=axes).reshape(target).astype(x.dtype)


COLLAPSE_SUM_TO = OpDef(
    "collapse_sum_to", _collapse_to_infer, lambda R, args, at: R.op.collapse_sum_to(args[0], at["shape"]),
    lambda args, at: _collapse_reference(args[0], tuple(at["shape"])), _collapse_to_propose, _collapse_accepts,
    notes="The sum that undoes a broadcast to the operand's shape; accumulates in the operand's dtype.")


def _collapse_like_infer(args, attrs):
    require(len(args) == 2 and not attrs, "collapse_sum_like takes (data, target) and no attributes")
    return _collapse(args[0], args[1].shape)


def _collapse_like_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _collapse_accepts)
    info = sketch.infos[x]
    shapes = [s for s in _collapse_targets(info.shape) if valid(_collapse_to_infer, [info], {"shape": list(s)})]
    target = operand(sketch, choose, shapes, info.dtype, *_fresh_range(info))
    sketch.add("collapse_sum_like", [x, target])


COLLAPSE_SUM_LIKE = OpDef(
    "collapse_sum_like", _collapse_like_infer, lambda R, args, at: R.op.collapse_sum_like(args[0], args[1]),
    lambda args, at: _collapse_reference(args[0], args[1].shape), _collapse_like_propose, _collapse_accepts,
    notes="collapse_sum_to the second operand's shape; its values and dtype do not matter.")

# -- layout_transform -------------------------------------------------------------------------
# The index map is plain data: one expression per output axis, each an int, ["var", k] (input
# axis k) or [op, a, b] with op one of + - * // % (floor division and modulo, as TIR's); its
# variables are int64 unless ``index_dtype`` says int32.

_INDEX_OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
              "//": lambda a, b: a // b, "%": lambda a, b: a % b}
MAX_MAPPED = 1 << 20  # elements an index map is checked on, one by one


def index_value(expr, indices):
    """An index map expression on ``indices``: ints or int arrays (numpy's // and % floor, as
    TIR's do) or TIR variables (the operators build TIR's FloorDiv and FloorMod)."""
    if isinstance(expr, bool) or not isinstance(expr, (int, list)):
        raise OpError(f"bad index expression {expr!r}")
    if isinstance(expr, int):
        return expr
    if expr[0] == "var" and len(expr) == 2:
        require(isinstance(expr[1], int) and 0 <= expr[1] < len(indices), f"no input axis {expr[1]}")
        return indices[expr[1]]
    require(expr[0] in _INDEX_OPS and len(expr) == 3, f"bad index expression {expr!r}")
    return _INDEX_OPS[expr[0]](index_value(expr[1], indices), index_value(expr[2], indices))


def _mapped(shape, index_map) -> tuple[list, tuple[int, ...]]:
    """Each element's output position (one array per output axis) and the output shape. The map
    must be a bijection of the input's elements onto a box from 0: padding, whose elements TVM
    leaves to any value, is not drawn, and a divisor must not be zero."""
    require(isinstance(index_map, list) and index_map, "an index map has at least one output axis")
    require(0 < int(np.prod(shape)) <= MAX_MAPPED, "the tensor is too large to check its index map on")
    indices = list(np.indices(shape, dtype="int64"))
    with np.errstate(divide="raise"):
        try:
            positions = [np.broadcast_to(index_value(e, indices), shape) for e in index_map]
        except FloatingPointError:
            raise OpError("the index map divides by zero") from None
    require(all(p.min() >= 0 for p in positions), "the index map maps below zero")
    out = tuple(int(p.max()) + 1 for p in positions)
    flat = np.ravel_multi_index([p.ravel() for p in positions], out)
    require(int(np.prod(out)) == int(np.prod(shape)) and np.unique(flat).size == flat.size,
            f"the index map does not rearrange {list(shape)} onto {list(out)} one to one (padding)")
    return positions, out


def _layout_transformable(info) -> bool:
    # bool: tvm.compile fails (excluded.py)
    return info.rank >= 1 and info.dtype != "bool"


def _layout_transform_infer(args, attrs):
    (x,) = args
    require(_layout_transformable(x), "layout_transform of a scalar or of bools")
    require(attrs.get("pad_value") is None or isinstance(attrs["pad_value"], (int, float)), "bad pad_value")
    require(attrs.get("index_dtype", "int64") in ("int32", "int64"), "index_dtype is int32 or int64")
    _, out = _mapped(x.shape, attrs["index_map"])
    return _same(x, out)


def _layout_transform_reference(args, attrs):
    (x,) = args
    positions, out = _mapped(x.shape, attrs["index_map"])
    result = np.empty(out, dtype=x.dtype)
    result[tuple(positions)] = x
    return result


def _layout_transform_emit(R, args, attrs):
    from tvm.tirx import IndexMap

    exprs = attrs["index_map"]
    # relax.op.layout_transform's index dtype for a Python function is int64; TVM's tests also write int32
    index_map = IndexMap.from_func(lambda *axes: tuple(index_value(e, axes) for e in exprs), ndim=args[0].ty.ndim,
                                   index_dtype=attrs.get("index_dtype", "int64"))
    return R.op.layout_transform(args[0], index_map, pad_value=attrs.get("pad_value"))


def _layout_transform_propose(sketch: Sketch, choose: Chooser) -> None:
    """The layouts models move to: the axes permuted, and one axis split by a factor, its outer
    part in place and its inner part last (NCHW to NCHW4c)."""
    x = pick(sketch, choose, _layout_transformable)
    shape = sketch.infos[x].shape
    remaining, order = list(range(len(shape))), []
    while remaining:
        order.append(remaining.pop(choose.integer(0, len(remaining) - 1)))
    index_map: list = [["var", k] for k in order]
    splittable = [k for k, d in enumerate(shape) if any(d % f == 0 for f in range(2, d))]
    if splittable and choose.boolean():
        k = choose.choice(splittable)
        factor = choose.choice([f for f in range(2, shape[k]) if shape[k] % f == 0])
        index_map[order.index(k)] = ["//", ["var", k], factor]
        index_map.append(["%", ["var", k], factor])
    sketch.add("layout_transform", [x], {"index_map": index_map, "pad_value": None})


LAYOUT_TRANSFORM = OpDef(
    "layout_transform", _layout_transform_infer, _layout_transform_emit, _layout_transform_reference,
    _layout_transform_propose, _layout_transformable,
    notes="index_map as plain data, one expression per output axis; only maps that rearrange the "
          "elements one to one (no padding)")

OPS = [RESHAPE, PERMUTE_DIMS, EXPAND_DIMS, SQUEEZE, CONCAT, SPLIT, SPLIT_TUPLE, STRIDED_SLICE, BROADCAST_TO, FLATTEN, FLIP,
       REPEAT, TILE, STACK, COLLAPSE_SUM_TO, COLLAPSE_SUM_LIKE, LAYOUT_TRANSFORM, BATCH_FLATTEN]

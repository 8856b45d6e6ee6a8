"""Data-movement ops: they rearrange elements and never change a value, so exactness survives."""

from __future__ import annotations

import numpy as np

from .base import (Chooser, OpDef, Sketch, ValueInfo, checked, normalize_axis, operand, pick, require)

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
    x = pick(sketch, choose, _rank1)
    rank = sketch.infos[x].rank
    axes = None
    if choose.boolean():
        remaining, axes = list(range(rank)), []
        while remaining:
            axes.append(remaining.pop(choose.integer(0, len(remaining) - 1)))
    sketch.add("permute_dims", [x], {"axes": axes})


PERMUTE_DIMS = OpDef("permute_dims", _permute_infer, lambda R, args, at: R.op.permute_dims(args[0], at["axes"]),
                     lambda args, at: np.transpose(args[0], at["axes"]), _permute_propose, _rank1,
                     notes="axes=None reverses the axes, as numpy.transpose does.")

# -- reshape ----------------------------------------------------------------------------------


def _reshape_infer(args, attrs):
    (x,) = args
    shape = attrs["shape"]
    require(all(isinstance(d, int) and d >= 1 for d in shape), "reshape needs positive static dims")
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
    sketch.add("reshape", [x], {"shape": shape})


RESHAPE = OpDef("reshape", _reshape_infer, lambda R, args, at: R.op.reshape(args[0], at["shape"]),
                lambda args, at: np.reshape(args[0], at["shape"]), _reshape_propose, lambda i: True)

# -- expand_dims / squeeze ------------------------------------------------------------------------


def _expand_infer(args, attrs):
    (x,) = args
    axis = normalize_axis(attrs["axis"], x.rank + 1)
    return _same(x, x.shape[:axis] + (1,) + x.shape[axis:])


def _expand_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, lambda i: i.rank < 4)
    rank = sketch.infos[x].rank
    sketch.add("expand_dims", [x], {"axis": choose.integer(-rank - 1, rank)})


EXPAND_DIMS = OpDef("expand_dims", _expand_infer, lambda R, args, at: R.op.expand_dims(args[0], at["axis"]),
                    lambda args, at: np.expand_dims(args[0], at["axis"]), _expand_propose, lambda i: i.rank < 4)


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


def _concat_infer(args, attrs):
    require(len(args) >= 1, "concat needs operands")
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


def _concat_propose(sketch: Sketch, choose: Chooser) -> None:
    first = pick(sketch, choose, _rank1)
    x = sketch.infos[first]
    axis = choose.integer(0, x.rank - 1)
    shapes = [x.shape[:axis] + (d,) + x.shape[axis + 1:] for d in range(1, 5)]
    args = [first, operand(sketch, choose, shapes, x.dtype, *_fresh_range(x))]
    if choose.boolean():
        args.append(operand(sketch, choose, shapes, x.dtype, *_fresh_range(x)))
    sketch.add("concat", args, {"axis": axis})


CONCAT = OpDef("concat", _concat_infer, lambda R, args, at: R.op.concat(args, axis=at["axis"]),
               lambda args, at: np.concatenate(args, axis=at["axis"]), _concat_propose, _rank1)


def _split_infer(args, attrs):
    (x,) = args
    require(x.rank >= 1, "split needs rank >= 1")
    axis = normalize_axis(attrs["axis"], x.rank)
    sections, index = attrs["sections"], attrs["index"]
    require(isinstance(sections, int) and sections >= 2 and x.shape[axis] % sections == 0,
            "sections must be >= 2 (one section gives a tensor, not a tuple) and divide the axis")
    require(isinstance(index, int) and 0 <= index < sections, "index out of range")
    shape = list(x.shape)
    shape[axis] //= sections
    return _same(x, shape)


_splittable = lambda info: any(d >= 2 for d in info.shape)  # noqa: E731


def _split_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _splittable)
    shape = sketch.infos[x].shape
    axis = choose.choice([a for a, d in enumerate(shape) if d >= 2])
    sections = choose.choice([s for s in range(2, shape[axis] + 1) if shape[axis] % s == 0])
    sketch.add("split", [x], {"sections": sections, "axis": axis, "index": choose.integer(0, sections - 1)})


SPLIT = OpDef(
    "split", _split_infer,
    lambda R, args, at: R.TupleGetItem(R.op.split(args[0], at["sections"], axis=at["axis"]), at["index"]),
    lambda args, at: np.split(args[0], at["sections"], axis=at["axis"])[at["index"]],
    _split_propose, _splittable,
    notes="One node is split followed by TupleGetItem(index). Relax splits uneven sections by ceiling "
          "(length 4 in 3 gives 2, 2, 0), so only dividing section counts are drawn.")

# -- strided_slice / broadcast_to ----------------------------------------------------------------


def _slice_infer(args, attrs):
    (x,) = args
    axes, begin, end, strides = attrs["axes"], attrs["begin"], attrs["end"], attrs["strides"]
    require(len(axes) == len(begin) == len(end) == len(strides) >= 1, "axes, begin, end, strides must match")
    shape = list(x.shape)
    for a, b, e, s in zip(axes, begin, end, strides):
        a = normalize_axis(a, x.rank)
        require(isinstance(s, int) and s >= 1 and 0 <= b < e <= x.shape[a], "slice bounds out of range")
        shape[a] = -(-(e - b) // s)
    return _same(x, shape)


def _slice_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _rank1)
    shape = sketch.infos[x].shape
    axis = choose.integer(0, len(shape) - 1)
    begin = choose.integer(0, shape[axis] - 1)
    end = choose.integer(begin + 1, shape[axis])
    sketch.add("strided_slice", [x], {"axes": [axis], "begin": [begin], "end": [end],
                                      "strides": [choose.integer(1, 2)]})


def _slice_reference(args, attrs):
    index = [slice(None)] * args[0].ndim
    for a, b, e, s in zip(attrs["axes"], attrs["begin"], attrs["end"], attrs["strides"]):
        index[a] = slice(b, e, s)
    return args[0][tuple(index)]


STRIDED_SLICE = OpDef(
    "strided_slice", _slice_infer,
    lambda R, args, at: R.op.strided_slice(args[0], at["axes"], at["begin"], at["end"], at["strides"]),
    _slice_reference, _slice_propose, _rank1,
    notes="begin > end with a positive stride fails in LegalizeOps instead of giving an empty tensor; never drawn.")


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


BROADCAST_TO = OpDef("broadcast_to", _broadcast_infer, lambda R, args, at: R.op.broadcast_to(args[0], at["shape"]),
                     lambda args, at: np.broadcast_to(args[0], at["shape"]).copy(), _broadcast_propose,
                     lambda i: i.rank < 4)

OPS = [RESHAPE, PERMUTE_DIMS, EXPAND_DIMS, SQUEEZE, CONCAT, SPLIT, STRIDED_SLICE, BROADCAST_TO]

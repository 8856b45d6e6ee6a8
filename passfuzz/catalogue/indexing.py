"""take, whose indices are valid by construction, also when the graph computes them."""

from __future__ import annotations

import numpy as np

from .base import FLOATS, INTS, Chooser, OpDef, Sketch, ValueInfo, checked, normalize_axis, pick, require


def _take_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 2 and set(attrs) == {"axis"}, "take takes (data, indices) and an axis")
    data, indices = args
    require(data.rank >= 1, "take needs data of rank >= 1")
    axis = normalize_axis(attrs["axis"], data.rank)
    require(indices.dtype in INTS, "take's indices must be int32 or int64")
    require(0 <= indices.lo and indices.hi <= data.shape[axis] - 1,
            f"indices range [{indices.lo:g}, {indices.hi:g}] may leave [0, {data.shape[axis] - 1}] "
            "(undefined behaviour in mode='fast')")
    shape = data.shape[:axis] + indices.shape + data.shape[axis + 1:]
    return checked(shape, data.dtype, data.lo, data.hi, data.exact)


def _take_propose(sketch: Sketch, choose: Chooser) -> None:
    """Indices come from, in order of simplicity: an in-range integer value of the graph, a new
    constant or parameter, an integer value of the graph clipped into range, or an exact float
    value cast to int64 and clipped (a routing table computed by the model)."""
    data = pick(sketch, choose, lambda i: i.rank >= 1)
    info = sketch.infos[data]
    axis = choose.integer(0, info.rank - 1)
    last = info.shape[axis] - 1
    small = lambda i: i.rank <= 2  # noqa: E731
    in_range = sketch.candidates(lambda i: i.dtype in INTS and small(i) and 0 <= i.lo and i.hi <= last)
    ints = sketch.candidates(lambda i: i.dtype in INTS and small(i))
    floats = sketch.candidates(lambda i: i.dtype in FLOATS and i.exact and small(i))
    source = choose.choice([*in_range, "const", "param", *(["clip"] if ints else []), *(["cast"] if floats else [])])
    if source in ("const", "param"):
        shape = tuple(choose.integer(1, 3) for _ in range(choose.integer(0, 2)))
        dtype = choose.choice(["int64", "int32"])
        indices = sketch.add_const(shape, dtype, 0, last) if source == "const" else \
            sketch.add_param(shape, dtype, 0, last, "input")
    elif source == "clip":
        indices = sketch.add("clip", [choose.choice(ints)], {"min": 0, "max": last})
    elif source == "cast":
        as_int = sketch.add("astype", [choose.choice(floats)], {"dtype": "int64"})
        indices = sketch.add("clip", [as_int], {"min": 0, "max": last})
    else:
        indices = source
    sketch.add("take", [data, indices], {"axis": axis})


TAKE = OpDef("take", _take_infer, lambda R, args, at: R.op.take(args[0], args[1], axis=at["axis"]),
             lambda args, at: np.take(args[0], args[1], axis=at["axis"]), _take_propose, lambda i: i.rank >= 1,
             notes="Default mode='fast' checks no bounds: an index out of range reads garbage or segfaults, "
                   "and a negative one is not wrapped. Indices are in range by construction.")

OPS = [TAKE]

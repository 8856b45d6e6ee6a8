"""Tensor creation: full, zeros, ones, arange, eye, the *_like ops, tril and triu.

zeros, ones, full, arange and eye take no operand. When drawn they copy their dtype and (a
shape that broadcasts to) the shape of an existing value, which ``accepts`` selects: the new
tensor then fits the program around it, and a dtype restriction on the program holds for it too.
Created values are exact: every correct compilation must produce them bit for bit; a fill
read from a rank-0 operand (full, full_like) is as exact as that operand cast to the result.
"""

from __future__ import annotations

import math

import numpy as np

from passfuzz.ir.program import numpy_dtype

from .base import (
    DTYPES,
    NUMERIC,
    Chooser,
    OpDef,
    Sketch,
    ValueInfo,
    broadcastable_shapes,
    checked,
    fit,
    is_float,
    is_int,
    pick,
    probe,
    representable,
    require,
    smooth,
    valid,
)
from .elementwise import ASTYPE

MAX_RANK = 4  # of a shape attribute


def _shape(shape) -> tuple[int, ...]:
    require(isinstance(shape, list) and len(shape) <= MAX_RANK and
            all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in shape),
            f"shape must be a list of at most {MAX_RANK} positive ints")
    return tuple(shape)


def _dtype(dtype) -> str:
    require(dtype in DTYPES, f"unsupported dtype {dtype!r}")
    return dtype


def _like_dtype(x: np.ndarray, attrs: dict) -> np.dtype:
    """The dtype of a *_like op's result: its ``dtype`` attribute, or else its operand's."""
    return numpy_dtype(attrs["dtype"]) if attrs["dtype"] else x.dtype


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _scalar(value, dtype: str) -> float:
    """``value`` as ``dtype`` stores it (floats round to the dtype), after checking it fits."""
    if dtype == "bool":
        require(value in (0, 1) and not isinstance(value, float), "a bool fill value is 0, 1, False or True")
    elif is_int(dtype):
        require(_int(value) and representable(dtype, value, value), f"fill value {value!r} does not fit {dtype}")
    else:
        require(isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
                and representable(dtype, value, value), f"fill value {value!r} does not fit {dtype}")
    return float(np.array(value, dtype=numpy_dtype(dtype)))


def _fill_values(dtype: str) -> list:
    if dtype == "bool":
        return [1, 0]
    if is_int(dtype):
        return [v for v in (2, -1, 0, 1, 7, -8, 100) if representable(dtype, v, v)]
    return [1.5, -0.5, 0.0, 2.0, -3.25, 0.1]


def _like_shape(sketch: Sketch, choose: Chooser, accept=lambda i: True) -> tuple[ValueInfo, tuple[int, ...]]:
    """An existing value and a shape of at most MAX_RANK dims that broadcasts to its shape (a
    trailing part of a conv3d's or a packed pool's rank-5 or rank-6 result)."""
    like = sketch.infos[pick(sketch, choose, accept)]
    return like, tuple(choose.choice([s for s in broadcastable_shapes(like.shape) if len(s) <= MAX_RANK]))

# -- zeros / ones / full --------------------------------------------------------------------------


def _constant(name: str, value: int):
    def infer(args, attrs):
        require(not args and set(attrs) == {"shape", "dtype"}, f"{name} takes no operand, a shape and a dtype")
        return checked(_shape(attrs["shape"]), _dtype(attrs["dtype"]), value, value, True)

    def propose(sketch: Sketch, choose: Chooser) -> None:
        like, shape = _like_shape(sketch, choose)
        sketch.add(name, [], {"shape": list(shape), "dtype": like.dtype})

    return OpDef(name, infer, lambda R, args, at: getattr(R.op, name)(at["shape"], at["dtype"]),
                 lambda args, at: np.full(at["shape"], value, dtype=numpy_dtype(at["dtype"])), propose,
                 lambda i: True,
                 notes="No operand; drawn with the dtype and a broadcastable shape of an existing value.")


# Constants: smooth, with a zero gradient (no operand).
ZEROS = smooth(_constant("zeros", 0))
ONES = smooth(_constant("ones", 1))


def _fill(args, dtype: str, attrs: dict, rank: int = 0) -> tuple[float, float, bool]:
    """The range and exactness of a fill: ``value`` (an attribute, as ``dtype`` stores it), or
    else a rank-0 operand after the operands of rank ``rank`` (TVM's tests pass a parameter or a
    constant of another dtype there), cast to ``dtype`` as astype casts it."""
    if attrs["value"] is not None:
        require(len(args) == rank, "a fill value is an attribute or an operand, not both")
        v = _scalar(attrs["value"], dtype)
        return v, v, True
    require(len(args) == rank + 1 and args[rank].rank == 0, "the fill operand is a rank-0 tensor")
    cast = ASTYPE.infer([args[rank]], {"dtype": dtype})
    return cast.lo, cast.hi, cast.exact


def _fill_array(args, dtype: str, attrs: dict, rank: int = 0):
    if attrs["value"] is not None:
        return np.array(attrs["value"], dtype=numpy_dtype(dtype))
    return ASTYPE.reference([args[rank]], {"dtype": dtype})


def _fill_operand(sketch: Sketch, choose: Chooser, dtype: str) -> int | None:
    """A rank-0 value that a fill of ``dtype`` may cast (an existing one, or a new parameter of
    this or another dtype), or None to fill with a constant attribute."""
    if choose.boolean():
        return None
    # not a constant of the result's dtype (one value, up to the rounding slack of its bounds): the
    # module would read it back as the attribute form
    def castable(i: ValueInfo) -> bool:
        constant = i.dtype == dtype and math.isclose(i.lo, i.hi, rel_tol=1e-2)
        return i.rank == 0 and not constant and valid(ASTYPE.infer, [i], {"dtype": dtype})

    existing = sketch.candidates(castable)
    if existing and choose.boolean():
        return choose.choice(existing)
    sources = [d for d in DTYPES if valid(ASTYPE.infer, [probe(ValueInfo((), d, 0, 1))], {"dtype": dtype})]
    source = dtype if choose.boolean() else choose.choice(sources)
    lo, hi = (0, 1) if source == "bool" else fit(source, -4, 4)
    return sketch.add_param((), source, lo, hi, choose.choice(["input", "weight"]))


def _full_infer(args, attrs):
    require(set(attrs) == {"shape", "dtype", "value"}, "full takes shape, dtype, value (None: an operand)")
    dtype = _dtype(attrs["dtype"])
    return checked(_shape(attrs["shape"]), dtype, *_fill(args, dtype, attrs))


def _full_propose(sketch: Sketch, choose: Chooser) -> None:
    like, shape = _like_shape(sketch, choose)
    fill = _fill_operand(sketch, choose, like.dtype)
    value = choose.choice(_fill_values(like.dtype)) if fill is None else None
    sketch.add("full", [] if fill is None else [fill], {"shape": list(shape), "dtype": like.dtype, "value": value})


def _full_emit(R, args, at):
    fill = R.const(at["value"], at["dtype"]) if at["value"] is not None else args[0]
    return R.op.full(at["shape"], fill, at["dtype"])


# A fill operand gets no gradient (TVM: "For zeros/ones/full operators, the gradients are
# no_grad"): a loss program holds it constant.
FULL = smooth(OpDef("full", _full_infer, _full_emit,
             lambda args, at: np.full(at["shape"], _fill_array(args, at["dtype"], at), dtype=numpy_dtype(at["dtype"])),
             _full_propose, lambda i: True,
             notes="The fill value is a relax.const of the result dtype (a float fill of an int tensor would "
                   "truncate), or else a rank-0 operand, cast to the result dtype as astype casts."),
              held_constant=lambda attrs: (0,) if attrs["value"] is None else ())

# -- arange -----------------------------------------------------------------------------------------

ARANGE_MAX = 16  # the longest arange drawn
ARANGE_LONGEST = 4096  # the longest accepted (TVM's tests write arange(0, 160, 1) and longer)
# Float arange takes multiples of 1/4 up to a magnitude at which every one is exact in the dtype
# (2^(significand bits) / 4: 2^22 for float32); 64 for the 16-bit floats, as drawn
ARANGE_FLOAT_BOUND = {"float16": 64.0, "bfloat16": 64.0, "float32": 2.0 ** 22, "float64": 2.0 ** 51}
ARANGE_STEP_BOUND = 64.0


def _arange_infer(args, attrs):
    """Integer dtypes take int start/end/step. Float dtypes take multiples of 1/4 whose every
    element (and ``end``) is exact in the dtype (``ARANGE_FLOAT_BOUND``), with a step of
    magnitude <= 64: (end - start) / step is then either an integer or at least 1/256 away from
    one, so the length is the same in any precision, and start + i * step is exact."""
    require(not args and set(attrs) == {"start", "end", "step", "dtype"}, "arange takes start, end, step, dtype")
    dtype = attrs["dtype"]
    require(dtype in NUMERIC, f"arange does not support {dtype!r} (bool allows at most 2 elements)")
    start, end, step = attrs["start"], attrs["end"], attrs["step"]
    if is_int(dtype):
        require(all(_int(v) for v in (start, end, step)), "integer arange takes int start, end and step")
        # TVM 0.27 types an integer arange with a negative step one or two elements too long
        # (arange(3, -4, -2) as (5,)), so every consumer's types disagree with the values.
        require(step > 0, "integer arange with a negative step is mistyped by TVM (catalogue/excluded.py)")
    else:
        bound = ARANGE_FLOAT_BOUND[dtype]
        require(all(isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) <= bound and
                    float(v) * 4 == int(float(v) * 4) for v in (start, end, step)) and abs(step) <= ARANGE_STEP_BOUND,
                f"float arange takes multiples of 0.25 of magnitude <= {bound:g}, a step of magnitude <= "
                f"{ARANGE_STEP_BOUND:g}")
    require(step != 0, "arange step must not be 0")
    n = math.ceil((end - start) / step)
    require(1 <= n <= ARANGE_LONGEST, f"arange length {n} outside [1, {ARANGE_LONGEST}]")
    last = start + (n - 1) * step
    require(is_int(dtype) or abs(last - start) <= ARANGE_FLOAT_BOUND[dtype], "i * step must be exact too")
    return checked((n,), dtype, min(start, last), max(start, last), True)


def _arange_propose(sketch: Sketch, choose: Chooser) -> None:
    like = sketch.infos[pick(sketch, choose, lambda i: i.dtype in NUMERIC)]
    n = choose.choice([*(d for d in like.shape if d <= ARANGE_MAX), 1, 2, 3, 4])  # a flattened dim may be longer
    if is_float(like.dtype):
        start, step = choose.choice([0.0, 1.0, -2.0, 0.5, -1.25]), choose.choice([1.0, 0.5, -1.0, 0.25, 2.0, -0.75])
    else:
        start, step = choose.choice([0, 1, 3, -4]), choose.choice([1, 2, 3])  # positive: see _arange_infer
        if like.dtype == "uint8":
            start = abs(start)
    attrs = {"start": start, "end": start + n * step, "step": step, "dtype": like.dtype}
    sketch.add("arange", [], attrs)


ARANGE = OpDef("arange", _arange_infer,
               lambda R, args, at: R.op.arange(at["start"], at["end"], at["step"], at["dtype"]),
               lambda args, at: np.arange(at["start"], at["end"], at["step"], dtype=numpy_dtype(at["dtype"])),
               _arange_propose,
               lambda i: i.dtype in NUMERIC,
               notes="LegalizeOps folds a constant arange with numpy.arange. Float bounds are kept dyadic "
                     "so that the length and the elements do not depend on the precision.")

# -- eye / eye_like ---------------------------------------------------------------------------------


def _eye_info(n: int, m: int, k, dtype: str) -> ValueInfo:
    require(_int(k), "k must be an int")
    values = np.eye(n, m, k)
    return checked((n, m), dtype, float(values.min()), float(values.max()), True)


def _eye_infer(args, attrs):
    require(not args and set(attrs) == {"n", "m", "k", "dtype"}, "eye takes no operand, n, m, k, dtype")
    n, m = attrs["n"], attrs["m"]
    require(_int(n) and _int(m) and n >= 1 and m >= 1, "eye needs n, m >= 1")
    return _eye_info(n, m, attrs["k"], _dtype(attrs["dtype"]))


def _eye_propose(sketch: Sketch, choose: Chooser) -> None:
    like = sketch.infos[pick(sketch, choose, lambda i: True)]
    if like.rank >= 2 and choose.boolean():
        n, m = like.shape[-2:]
    else:
        n, m = choose.integer(1, 4), choose.integer(1, 4)
    sketch.add("eye", [], {"n": n, "m": m, "k": choose.integer(-n, m), "dtype": like.dtype})


EYE = OpDef("eye", _eye_infer, lambda R, args, at: R.op.eye(at["n"], at["m"], at["k"], at["dtype"]),
            lambda args, at: np.eye(at["n"], at["m"], at["k"], dtype=numpy_dtype(at["dtype"])), _eye_propose,
            lambda i: True)


def _eye_like_infer(args, attrs):
    require(len(args) == 1 and set(attrs) == {"k"}, "eye_like takes one operand and k")
    (x,) = args
    require(x.rank == 2, "eye_like needs a 2-d operand")
    return _eye_info(*x.shape, attrs["k"], x.dtype)


_rank2 = lambda info: info.rank == 2  # noqa: E731


def _eye_like_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _rank2)
    n, m = sketch.infos[x].shape
    sketch.add("eye_like", [x], {"k": choose.integer(-n, m)})


EYE_LIKE = OpDef("eye_like", _eye_like_infer, lambda R, args, at: R.op.eye_like(args[0], at["k"]),
                 lambda args, at: np.eye(*args[0].shape, at["k"], dtype=args[0].dtype), _eye_like_propose, _rank2,
                 notes="No dtype attribute: LegalizeOps ignores eye_like's dtype and uses the operand's "
                       "(TVM bug), so the result always has the operand's dtype.")

# -- zeros_like / ones_like / full_like -------------------------------------------------------------


def _out_dtype(x: ValueInfo, dtype) -> str:
    return x.dtype if dtype is None else _dtype(dtype)


def _constant_like(name: str, value: int):
    def infer(args, attrs):
        require(len(args) == 1 and set(attrs) == {"dtype"}, f"{name} takes one operand and a dtype (or None)")
        (x,) = args
        return checked(x.shape, _out_dtype(x, attrs["dtype"]), value, value, True)

    def propose(sketch: Sketch, choose: Chooser) -> None:
        x = pick(sketch, choose, lambda i: True)
        sketch.add(name, [x], {"dtype": choose.choice([None, *DTYPES]) if choose.boolean() else None})

    return OpDef(name, infer, lambda R, args, at: getattr(R.op, name)(args[0], at["dtype"]),
                 lambda args, at: np.full(args[0].shape, value, dtype=_like_dtype(args[0], at)), propose,
                 lambda i: True, notes="dtype None keeps the operand's dtype.")


# Constant in their operand's values: smooth, with a zero gradient.
ZEROS_LIKE = smooth(_constant_like("zeros_like", 0))
ONES_LIKE = smooth(_constant_like("ones_like", 1))


def _full_like_infer(args, attrs):
    require(len(args) in (1, 2) and set(attrs) == {"value", "dtype"},
            "full_like takes one operand (and a rank-0 fill), value (None: the fill operand) and dtype")
    x = args[0]
    dtype = _out_dtype(x, attrs["dtype"])
    return checked(x.shape, dtype, *_fill(args, dtype, attrs, rank=1))


def _full_like_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, lambda i: True)
    dtype = choose.choice([None, *DTYPES]) if choose.boolean() else None
    fill = _fill_operand(sketch, choose, dtype or sketch.infos[x].dtype)
    value = choose.choice(_fill_values(dtype or sketch.infos[x].dtype)) if fill is None else None
    sketch.add("full_like", [x] if fill is None else [x, fill], {"value": value, "dtype": dtype})


def _full_like_emit(R, args, at):
    if at["value"] is None:
        return R.op.full_like(args[0], args[1], at["dtype"])
    dtype = at["dtype"] or args[0].ty.dtype
    return R.op.full_like(args[0], R.const(at["value"], str(dtype)), at["dtype"])


def _full_like_reference(args, at):
    dtype = at["dtype"] or str(args[0].dtype)
    return np.full(args[0].shape, _fill_array(args, dtype, at, rank=1), dtype=_like_dtype(args[0], at))


FULL_LIKE = smooth(OpDef("full_like", _full_like_infer, _full_like_emit, _full_like_reference,
                  _full_like_propose, lambda i: True,
                  notes="The fill value is a relax.const of the result dtype, or else a rank-0 operand cast to it "
                        "as astype casts; dtype None keeps the operand's."),
                   held_constant=lambda attrs: (1,) if attrs["value"] is None else ())

# -- tril / triu ------------------------------------------------------------------------------------


def _triangle(name: str, upper: bool):
    def infer(args, attrs):
        """Over the last two axes. The range is the operand's where an element is kept, joined
        with 0 where one is zeroed."""
        require(len(args) == 1 and set(attrs) == {"k"}, f"{name} takes one operand and k")
        (x,) = args
        k = attrs["k"]
        require(x.rank >= 2 and _int(k), f"{name} needs rank >= 2 and an int k")
        n, m = x.shape[-2:]
        keep = np.triu(np.ones((n, m)), k) if upper else np.tril(np.ones((n, m)), k)
        bounds = ([x.lo, x.hi] if keep.any() else []) + ([0.0] if not keep.all() else [])
        return checked(x.shape, x.dtype, min(bounds), max(bounds), x.exact)

    def propose(sketch: Sketch, choose: Chooser) -> None:
        x = pick(sketch, choose, lambda i: i.rank >= 2)
        n, m = sketch.infos[x].shape[-2:]
        sketch.add(name, [x], {"k": choose.choice([0, *range(-n, m + 1)])})

    ref = np.triu if upper else np.tril
    return OpDef(name, infer, lambda R, args, at: getattr(R.op, name)(args[0], at["k"]),
                 lambda args, at: ref(args[0], at["k"]), propose, lambda i: i.rank >= 2)


TRIL = _triangle("tril", upper=False)
TRIU = smooth(_triangle("triu", upper=True))

OPS: list[OpDef] = [ZEROS, ONES, FULL, ZEROS_LIKE, ONES_LIKE, FULL_LIKE, ARANGE, EYE, EYE_LIKE, TRIL, TRIU]

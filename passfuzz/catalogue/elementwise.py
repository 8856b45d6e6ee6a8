"""Constants and elementwise ops: unary, binary arithmetic, comparisons, where, clip, astype."""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .base import (DTYPES, FLOATS, NUMERIC, Chooser, OpDef, Sketch, ValueInfo, broadcast, broadcastable_shapes,
                   checked, is_float, is_int, operand, pick, probe, representable, require, valid)

# -- const --------------------------------------------------------------------------------


def _const_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(not args, "const takes no operands")
    array = np.array(attrs["value"], dtype=attrs["dtype"]).reshape(attrs["shape"])
    require(array.size > 0 and np.all(np.isfinite(array.astype("float64"))), "const must be finite and non-empty")
    return checked(array.shape, attrs["dtype"], float(array.min()), float(array.max()), True)


CONST = OpDef(
    name="const",
    infer=_const_infer,
    emit=lambda R, args, at: R.const(np.array(at["value"], dtype=at["dtype"]).reshape(at["shape"]), at["dtype"]),
    reference=lambda args, at: np.array(at["value"], dtype=at["dtype"]).reshape(at["shape"]),
    propose=None,  # constants come in as operands (base.operand), never as free-standing nodes
    accepts=lambda info: False,
)

# -- unary --------------------------------------------------------------------------------


def unary(name: str, relax_name: str, ref: Callable, dtypes: tuple[str, ...],
          bounds: Callable[[float, float], tuple[float, float]], keeps_exact: bool, notes: str = "") -> OpDef:
    """An elementwise unary op whose range maps monotonically piece by piece through ``bounds``."""

    def infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
        require(len(args) == 1 and not attrs, f"{name} takes one operand and no attributes")
        (x,) = args
        require(x.dtype in dtypes, f"{name} does not support {x.dtype}")
        lo, hi = bounds(x.lo, x.hi)
        return checked(x.shape, x.dtype, lo, hi, x.exact and keeps_exact)

    def emit(R, args, attrs):
        target = R.op
        for part in relax_name.split("."):
            target = getattr(target, part)
        return target(*args)

    def accepts(info: ValueInfo) -> bool:
        return info.dtype in dtypes and valid(infer, [info])

    def propose(sketch: Sketch, choose: Chooser) -> None:
        sketch.add(name, [pick(sketch, choose, accepts)])

    return OpDef(name, infer, emit, lambda args, at: ref(args[0]).astype(args[0].dtype), propose, accepts, notes)


def _abs_bounds(lo: float, hi: float) -> tuple[float, float]:
    if lo >= 0:
        return lo, hi
    if hi <= 0:
        return -hi, -lo
    return 0.0, max(-lo, hi)


def _sigmoid(v: float) -> float:
    if v >= 0:
        return 1.0 / (1.0 + math.exp(-v))
    e = math.exp(max(v, -700.0))
    return e / (1.0 + e)


def _exp(v: float) -> float:
    return math.exp(min(v, 700.0))  # beyond float64; checked() then rejects the range


NEGATIVE = unary("negative", "negative", np.negative, NUMERIC, lambda lo, hi: (-hi, -lo), True)
ABS = unary("abs", "abs", np.abs, NUMERIC, _abs_bounds, True)
RELU = unary("relu", "nn.relu", lambda x: np.maximum(x, 0), NUMERIC, lambda lo, hi: (max(lo, 0), max(hi, 0)), True)
EXP = unary("exp", "exp", np.exp, FLOATS, lambda lo, hi: (_exp(lo), _exp(hi)), False)
SIGMOID = unary("sigmoid", "sigmoid", lambda x: 1 / (1 + np.exp(-x.astype("float64"))), FLOATS,
                lambda lo, hi: (_sigmoid(lo), _sigmoid(hi)), False)
TANH = unary("tanh", "tanh", np.tanh, FLOATS, lambda lo, hi: (math.tanh(lo), math.tanh(hi)), False)

# -- binary -------------------------------------------------------------------------------


def _corners(f: Callable[[float, float], float], a: ValueInfo, b: ValueInfo) -> tuple[float, float]:
    values = [f(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return min(values), max(values)


def _trunc_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if is_int(a.dtype.name):
        quotient = np.abs(a) // np.abs(b)
        return (quotient * np.sign(a) * np.sign(b)).astype(a.dtype)
    return (a / b).astype(a.dtype)


def binary(name: str, relax_name: str, ref: Callable, bounds: Callable[[ValueInfo, ValueInfo], tuple[float, float]],
           exact_when: Callable[[str], bool], divisor: bool = False, notes: str = "") -> OpDef:
    """A broadcasting binary op on two operands of one numeric dtype.

    ``divisor``: the second operand must stay away from zero (integers: never 0, which would
    raise SIGFPE; floats: magnitude at least 0.5, so the quotient stays bounded)."""

    def divisor_ok(info: ValueInfo) -> bool:
        return info.excludes_zero(0.0 if is_int(info.dtype) else 0.49)

    def infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
        require(len(args) == 2 and not attrs, f"{name} takes two operands and no attributes")
        a, b = args
        require(a.dtype == b.dtype and a.dtype in NUMERIC, f"{name} needs one numeric dtype, got {a.dtype}, {b.dtype}")
        if divisor:
            require(divisor_ok(b), f"{name}: divisor range [{b.lo:g}, {b.hi:g}] may reach zero")
        lo, hi = bounds(a, b)
        if divisor and is_int(a.dtype):
            lo, hi = math.floor(lo), math.ceil(hi)
        return checked(broadcast(a.shape, b.shape), a.dtype, lo, hi, a.exact and b.exact and exact_when(a.dtype))

    fresh = (1, 4) if divisor else (-4, 4)

    def accepts(info: ValueInfo) -> bool:  # any fresh second operand will do
        return info.dtype in NUMERIC and valid(infer, [info, probe(info, *fresh)])

    def propose(sketch: Sketch, choose: Chooser) -> None:
        lhs = pick(sketch, choose, accepts)
        a = sketch.infos[lhs]
        rhs = operand(sketch, choose, broadcastable_shapes(a.shape), a.dtype, *fresh,
                      accept=lambda b: valid(infer, [a, b]))
        args = [lhs, rhs]
        if not divisor and choose.boolean():  # the broadcast operand may come first too
            args.reverse()
        sketch.add(name, args)

    def emit(R, args, attrs):
        return getattr(R.op, relax_name)(*args)

    return OpDef(name, infer, emit, lambda args, at: ref(*args), propose, accepts, notes)


_arith_exact = is_int  # float arithmetic may round differently after a legal rewrite

ADD = binary("add", "add", np.add, lambda a, b: (a.lo + b.lo, a.hi + b.hi), _arith_exact)
SUBTRACT = binary("subtract", "subtract", np.subtract, lambda a, b: (a.lo - b.hi, a.hi - b.lo), _arith_exact)
MULTIPLY = binary("multiply", "multiply", np.multiply, lambda a, b: _corners(lambda x, y: x * y, a, b), _arith_exact)
DIVIDE = binary("divide", "divide", _trunc_divide, lambda a, b: _corners(lambda x, y: x / y, a, b), _arith_exact,
                divisor=True, notes="Integer division truncates toward zero (C), unlike numpy's floor division.")
MAXIMUM = binary("maximum", "maximum", np.maximum, lambda a, b: (max(a.lo, b.lo), max(a.hi, b.hi)), lambda d: True,
                 notes="maximum(nan, 1) is 1 but maximum(1, nan) is nan; programs never hold NaN.")
MINIMUM = binary("minimum", "minimum", np.minimum, lambda a, b: (min(a.lo, b.lo), min(a.hi, b.hi)), lambda d: True)

# -- comparisons --------------------------------------------------------------------------


def comparison(name: str, ref: Callable) -> OpDef:
    """A broadcasting comparison. Float operands must be exact (see base module docstring)."""

    accepts = lambda info: info.dtype in NUMERIC and info.exact  # noqa: E731

    def infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
        require(len(args) == 2 and not attrs, f"{name} takes two operands and no attributes")
        a, b = args
        require(a.dtype == b.dtype and a.dtype in NUMERIC, f"{name} needs one numeric dtype")
        require(a.exact and b.exact, f"{name} on inexact floats could flip on a legal rounding difference")
        return checked(broadcast(a.shape, b.shape), "bool", 0, 1, True)

    def propose(sketch: Sketch, choose: Chooser) -> None:
        lhs = pick(sketch, choose, accepts)
        a = sketch.infos[lhs]
        rhs = operand(sketch, choose, broadcastable_shapes(a.shape), a.dtype, -4, 4, accept=lambda i: i.exact)
        sketch.add(name, [lhs, rhs])

    return OpDef(name, infer, lambda R, args, at: getattr(R.op, name)(*args), lambda args, at: ref(*args),
                 propose, accepts)


EQUAL = comparison("equal", np.equal)
LESS = comparison("less", np.less)
GREATER = comparison("greater", np.greater)

# -- where, clip, astype --------------------------------------------------------------------


def _where_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 3 and not attrs, "where takes (cond, a, b)")
    cond, a, b = args
    require(cond.dtype == "bool", "where's condition must be bool")
    require(a.dtype == b.dtype, "where's branches must share a dtype")
    shape = broadcast(cond.shape, a.shape, b.shape)
    return checked(shape, a.dtype, min(a.lo, b.lo), max(a.hi, b.hi), a.exact and b.exact)


def _where_propose(sketch: Sketch, choose: Chooser) -> None:
    cond = pick(sketch, choose, lambda i: i.dtype == "bool")
    cshape = sketch.infos[cond].shape

    def fits(info: ValueInfo) -> bool:
        try:
            broadcast(cshape, info.shape)
            return True
        except ValueError:
            return False

    a = pick(sketch, choose, fits)
    ai = sketch.infos[a]
    lo, hi = (0, 1) if ai.dtype == "bool" else (-4, 4)
    b = operand(sketch, choose, broadcastable_shapes(ai.shape), ai.dtype, lo, hi)
    sketch.add("where", [cond, a, b])


WHERE = OpDef("where", _where_infer, lambda R, args, at: R.op.where(*args),
              lambda args, at: np.where(*args), _where_propose, lambda i: i.dtype == "bool")


def _clip_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and set(attrs) == {"min", "max"}, "clip takes one operand, min and max")
    (x,) = args
    lo, hi = attrs["min"], attrs["max"]
    require(x.dtype in NUMERIC, f"clip does not support {x.dtype}")
    require(lo <= hi, "clip needs min <= max")
    require(representable(x.dtype, lo, hi), "clip bounds must be representable in the operand's dtype")
    if is_int(x.dtype):
        require(isinstance(lo, int) and isinstance(hi, int), "clip bounds of an integer tensor must be integers")
    clamp = lambda v: min(max(v, lo), hi)  # noqa: E731
    return checked(x.shape, x.dtype, clamp(x.lo), clamp(x.hi), x.exact)


def _clip_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, lambda i: i.dtype in NUMERIC)
    bounds = [(0, 1), (-1, 1), (-2, 3), (1, 2)] if is_int(sketch.infos[x].dtype) else \
        [(0.0, 1.0), (-1.0, 1.0), (-0.5, 2.5), (1.0, 3.0)]
    lo, hi = choose.choice([b for b in bounds if representable(sketch.infos[x].dtype, *b)])
    sketch.add("clip", [x], {"min": lo, "max": hi})


CLIP = OpDef("clip", _clip_infer, lambda R, args, at: R.op.clip(args[0], at["min"], at["max"]),
             lambda args, at: np.clip(args[0], at["min"], at["max"]).astype(args[0].dtype),
             _clip_propose, lambda i: i.dtype in NUMERIC)


def _astype_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and set(attrs) == {"dtype"}, "astype takes one operand and a dtype")
    (x,) = args
    dtype = attrs["dtype"]
    require(dtype in DTYPES, f"unknown dtype {dtype}")
    if dtype == "bool":
        require(not is_float(x.dtype) or x.exact, "float to bool of an inexact value could flip near zero")
        return checked(x.shape, "bool", 0 if x.lo <= 0 <= x.hi else 1, 0 if x.lo == x.hi == 0 else 1, True)
    if is_int(dtype) and is_float(x.dtype):
        require(x.exact, "float to int of an inexact value could flip at an integer boundary")
        return checked(x.shape, dtype, math.trunc(x.lo), math.trunc(x.hi), True)
    return checked(x.shape, dtype, x.lo, x.hi, x.exact)


def _astype_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, lambda i: True)
    info = sketch.infos[x]
    options = []
    for dtype in DTYPES:
        if dtype == info.dtype:
            continue
        try:
            _astype_infer([info], {"dtype": dtype})
            options.append(dtype)
        except ValueError:
            pass
    if options:
        sketch.add("astype", [x], {"dtype": choose.choice(options)})


def _astype_reference(args: list[np.ndarray], attrs: dict) -> np.ndarray:
    (x,) = args
    if attrs["dtype"] == "bool":
        return x != 0
    return x.astype(attrs["dtype"])


ASTYPE = OpDef("astype", _astype_infer, lambda R, args, at: R.op.astype(args[0], at["dtype"]),
               _astype_reference, _astype_propose, lambda i: True,
               notes="float to int truncates toward zero; an out-of-range float gives INT_MIN (never drawn).")

OPS = [CONST, NEGATIVE, ABS, RELU, ADD, SUBTRACT, MULTIPLY, MAXIMUM, MINIMUM, DIVIDE, EXP, SIGMOID, TANH,
       EQUAL, LESS, GREATER, WHERE, CLIP, ASTYPE]

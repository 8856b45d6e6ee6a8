"""Constants and elementwise ops: unary, binary arithmetic, comparisons, logical and bitwise ops, shifts,
where, masked_fill, clip, astype."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable

import numpy as np

from passfuzz.ir.program import numpy_dtype

from .base import (
    DTYPES,
    FLOATS,
    INTS,
    NUMERIC,
    ROUNDING,
    Chooser,
    OpDef,
    Sketch,
    ValueInfo,
    broadcast,
    broadcastable_shapes,
    checked,
    is_float,
    is_int,
    kink_at_tie,
    kink_at_zero,
    operand,
    pick,
    probe,
    representable,
    require,
    smooth,
    valid,
)

# -- const --------------------------------------------------------------------------------


def _const_array(attrs: dict) -> np.ndarray:
    return np.array(attrs["value"], dtype=numpy_dtype(attrs["dtype"])).reshape(attrs["shape"])


def _const_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(not args, "const takes no operands")
    array = _const_array(attrs)
    require(array.size > 0 and np.all(np.isfinite(array.astype("float64"))), "const must be finite and non-empty")
    require(not attrs.get("prim") or array.shape == (), "a literal R.prim_value is a scalar")
    return checked(array.shape, attrs["dtype"], float(array.min()), float(array.max()), True)


def _const_emit(R, args, at):
    if not at.get("prim"):
        return R.const(_const_array(at), at["dtype"])
    from tvm import tirx  # a literal R.prim_value, of the dtype it was written with
    imm = tirx.IntImm if is_int(at["dtype"]) or at["dtype"] == "bool" else tirx.FloatImm
    return R.prim_value(imm(at["dtype"], at["value"]))


CONST = OpDef(
    name="const",
    infer=_const_infer,
    emit=_const_emit,
    reference=lambda args, at: _const_array(at),
    propose=None,  # constants come in as operands (base.operand), never as free-standing nodes
    accepts=lambda info: False,
    notes="attribute prim=True (imports only): a scalar written as a literal R.prim_value, which only "
          "ops taking an R.Prim read (graph.check_prims)",
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

    return OpDef(name, infer, emit, lambda args, at: ref(args[0]).astype(args[0].dtype), propose, accepts, notes,
                 symbolic=True)


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


# uint8 is left out: LegalizeOps fails on it ("cannot make uint from negative value -1").
NEGATIVE = smooth(unary("negative", "negative", np.negative, ("float32", "float16", "bfloat16", "float64", "int32", "int64", "int8"),
                  lambda lo, hi: (-hi, -lo), True, notes="uint8 is rejected by LegalizeOps."))
ABS = smooth(unary("abs", "abs", np.abs, NUMERIC, _abs_bounds, True), kinks=kink_at_zero("abs"))
RELU = smooth(unary("relu", "nn.relu", lambda x: np.maximum(x, 0), NUMERIC, lambda lo, hi: (max(lo, 0), max(hi, 0)), True),
              kinks=kink_at_zero("relu"))
EXP = smooth(unary("exp", "exp", np.exp, FLOATS, lambda lo, hi: (_exp(lo), _exp(hi)), False))
SIGMOID = smooth(unary("sigmoid", "sigmoid", lambda x: 1 / (1 + np.exp(-x.astype("float64"))), FLOATS,
                lambda lo, hi: (_sigmoid(lo), _sigmoid(hi)), False))
TANH = smooth(unary("tanh", "tanh", np.tanh, FLOATS, lambda lo, hi: (math.tanh(lo), math.tanh(hi)), False))

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
        # The broadcast operand may come first too, where that order is valid (subtract of uint8 may not be).
        if not divisor and valid(infer, [sketch.infos[rhs], a]) and choose.boolean():
            args.reverse()
        sketch.add(name, args)

    def emit(R, args, attrs):
        return getattr(R.op, relax_name)(*args)

    return OpDef(name, infer, emit, lambda args, at: ref(*args), propose, accepts, notes, symbolic=True,
                 takes_prims=True)


_arith_exact = is_int  # float arithmetic may round differently after a legal rewrite

ADD = smooth(binary("add", "add", np.add, lambda a, b: (a.lo + b.lo, a.hi + b.hi), _arith_exact))
SUBTRACT = smooth(binary("subtract", "subtract", np.subtract, lambda a, b: (a.lo - b.hi, a.hi - b.lo), _arith_exact))
MULTIPLY = smooth(binary("multiply", "multiply", np.multiply, lambda a, b: _corners(lambda x, y: x * y, a, b), _arith_exact))
DIVIDE = smooth(binary("divide", "divide", _trunc_divide, lambda a, b: _corners(lambda x, y: x / y, a, b), _arith_exact,
                divisor=True, notes="Integer division truncates toward zero (C), unlike numpy's floor division."))
MAXIMUM = smooth(binary("maximum", "maximum", np.maximum, lambda a, b: (max(a.lo, b.lo), max(a.hi, b.hi)),
                        lambda d: True, notes="maximum(nan, 1) is 1 but maximum(1, nan) is nan; programs never hold NaN."),
                 kinks=kink_at_tie("maximum"))
MINIMUM = smooth(binary("minimum", "minimum", np.minimum, lambda a, b: (min(a.lo, b.lo), min(a.hi, b.hi)), lambda d: True),
                 kinks=kink_at_tie("minimum"))

# -- comparisons --------------------------------------------------------------------------


def comparison(name: str, ref: Callable, decided: Callable[[ValueInfo, ValueInfo], tuple[bool, bool]]) -> OpDef:
    """A broadcasting comparison. Float operands must be exact (see base module docstring).
    ``decided(a, b)``: (always true, always false) by the operands' ranges; the result's range is
    then 1 or 0 alone, which lets ``where`` tell which branch it takes (a frontend's wrap of
    negative indices, ``where(i < 0, i + n, i)``, on indices that are never negative)."""

    accepts = lambda info: info.dtype in NUMERIC and info.exact  # noqa: E731

    def infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
        require(len(args) == 2 and not attrs, f"{name} takes two operands and no attributes")
        a, b = args
        require(a.dtype == b.dtype and a.dtype in NUMERIC, f"{name} needs one numeric dtype")
        require(a.exact and b.exact, f"{name} on inexact floats could flip on a legal rounding difference")
        true, false = decided(a, b)
        return checked(broadcast(a.shape, b.shape), "bool", 1 if true else 0, 0 if false else 1, True)

    def propose(sketch: Sketch, choose: Chooser) -> None:
        lhs = pick(sketch, choose, accepts)
        a = sketch.infos[lhs]
        rhs = operand(sketch, choose, broadcastable_shapes(a.shape), a.dtype, -4, 4, accept=lambda i: i.exact)
        sketch.add(name, [lhs, rhs])

    return OpDef(name, infer, lambda R, args, at: getattr(R.op, name)(*args), lambda args, at: ref(*args),
                 propose, accepts, symbolic=True, takes_prims=True)


def _equal(a: ValueInfo, b: ValueInfo) -> tuple[bool, bool]:
    return a.lo == a.hi == b.lo == b.hi, a.hi < b.lo or b.hi < a.lo


EQUAL = comparison("equal", np.equal, _equal)
LESS = comparison("less", np.less, lambda a, b: (a.hi < b.lo, a.lo >= b.hi))
GREATER = comparison("greater", np.greater, lambda a, b: (a.lo > b.hi, a.hi <= b.lo))
NOT_EQUAL = comparison("not_equal", np.not_equal, lambda a, b: _equal(a, b)[::-1])
LESS_EQUAL = comparison("less_equal", np.less_equal, lambda a, b: (a.hi <= b.lo, a.lo > b.hi))
GREATER_EQUAL = comparison("greater_equal", np.greater_equal, lambda a, b: (a.lo >= b.hi, a.hi < b.lo))

# -- where, clip, astype --------------------------------------------------------------------


def _where_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 3 and not attrs, "where takes (cond, a, b)")
    cond, a, b = args
    require(cond.dtype == "bool", "where's condition must be bool")
    require(a.dtype == b.dtype, "where's branches must share a dtype")
    shape = broadcast(cond.shape, a.shape, b.shape)
    if cond.lo == cond.hi:  # the condition's range decides the branch (see comparison)
        taken = a if cond.lo else b
        return checked(shape, a.dtype, taken.lo, taken.hi, taken.exact)
    return checked(shape, a.dtype, min(a.lo, b.lo), max(a.hi, b.hi), a.exact and b.exact)


def _where_propose(sketch: Sketch, choose: Chooser) -> None:
    """The condition is a bool value of the graph or a new bool constant: a loss program has no
    other (its parameters are float and no smooth op yields a bool), and with a constant
    condition where is smooth in both branches."""
    source = choose.choice([*sketch.candidates(lambda i: i.dtype == "bool"), "const"])

    def fits(shape: tuple[int, ...]) -> Callable[[ValueInfo], bool]:
        def fit(info: ValueInfo) -> bool:
            try:
                broadcast(shape, info.shape)
                return True
            except ValueError:
                return False
        return fit

    if source == "const":
        a = pick(sketch, choose, lambda i: True)
        cond = sketch.add_const(choose.choice(broadcastable_shapes(sketch.infos[a].shape)), "bool", 0, 1)
    else:
        cond = source
        a = pick(sketch, choose, fits(sketch.infos[cond].shape))
    ai = sketch.infos[a]
    lo, hi = (0, 1) if ai.dtype == "bool" else (-4, 4)
    b = operand(sketch, choose, broadcastable_shapes(ai.shape), ai.dtype, lo, hi)
    sketch.add("where", [cond, a, b])


# Smooth in both branches while the condition is constant, which TVM's gradient assumes ("the
# condition, is not differentiable"): held so in a loss program.
WHERE = smooth(OpDef("where", _where_infer, lambda R, args, at: R.op.where(*args),
                     lambda args, at: np.where(*args), _where_propose, lambda i: True,
                     notes="The condition is a bool value of the graph or a new bool constant, so any value "
                           "may come first."),
               held_constant=lambda attrs: (0,))


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
    return x.astype(numpy_dtype(attrs["dtype"]))


ASTYPE = OpDef("astype", _astype_infer, lambda R, args, at: R.op.astype(args[0], at["dtype"]),
               _astype_reference, _astype_propose, lambda i: True,
               notes="float to int truncates toward zero; an out-of-range float gives INT_MIN (never drawn).")

# -- binary ops with a full rule: floor_divide, floor_mod, mod, power, atan2, log_add_exp, bitwise ---------------


def _fresh_range(dtype: str, lo: float, hi: float) -> tuple[float, float]:
    return (0, 1) if dtype == "bool" else (lo, hi)


def ruled_binary(name: str, relax_name: str, ref: Callable, dtypes: tuple[str, ...],
                 rule: Callable[[ValueInfo, ValueInfo], tuple[float, float, bool]],
                 fresh: tuple[float, float] = (-4, 4),
                 symmetric: bool = True, accepts: Callable[[ValueInfo], bool] | None = None,
                 make_propose: Callable[[Callable], Callable[[Sketch, Chooser], None]] | None = None,
                 notes: str = "") -> OpDef:
    """A broadcasting binary op on two operands of one dtype out of ``dtypes``, whose ``rule(a, b)``
    returns the result's (lo, hi, exact) and raises OpError for operands it must refuse.

    ``fresh``: the range of a new second operand (bool operands are always drawn in [0, 1]).
    ``symmetric``: the rule accepts the operands in either order, so propose may swap them.
    ``accepts`` and ``make_propose(infer)`` replace the defaults (a fresh second operand will do)."""

    def infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
        require(len(args) == 2 and not attrs, f"{name} takes two operands and no attributes")
        a, b = args
        require(a.dtype == b.dtype and a.dtype in dtypes,
                f"{name} needs one dtype out of {'/'.join(dtypes)}, got {a.dtype}, {b.dtype}")
        shape = broadcast(a.shape, b.shape)
        lo, hi, exact = rule(a, b)
        return checked(shape, a.dtype, lo, hi, exact)

    def default_accepts(info: ValueInfo) -> bool:
        return info.dtype in dtypes and valid(infer, [info, probe(info, *_fresh_range(info.dtype, *fresh))])

    accepts = accepts or default_accepts

    def default_propose(sketch: Sketch, choose: Chooser) -> None:
        lhs = pick(sketch, choose, accepts)
        a = sketch.infos[lhs]
        rhs = operand(sketch, choose, broadcastable_shapes(a.shape), a.dtype, *_fresh_range(a.dtype, *fresh),
                      accept=lambda b: valid(infer, [a, b]))
        args = [lhs, rhs]
        if symmetric and choose.boolean():  # the broadcast operand may come first too
            args.reverse()
        sketch.add(name, args)

    def emit(R, args, attrs):
        return getattr(R.op, relax_name)(*args)

    propose = make_propose(infer) if make_propose else default_propose
    return OpDef(name, infer, emit, lambda args, at: ref(*args), propose, accepts, notes, symbolic=True,
                 takes_prims=True)


def _within(sketch: Sketch, choose: Chooser, shapes, dtype: str, lo: float, hi: float) -> int:
    """An operand of one of ``shapes`` and ``dtype`` with every element in [lo, hi]: an existing value
    inside that range, a new constant or parameter, or an existing value routed through a clip."""
    wanted = {tuple(s) for s in shapes}
    inside = sketch.candidates(lambda i: i.shape in wanted and i.dtype == dtype and lo <= i.lo and i.hi <= hi)
    others = sketch.candidates(lambda i: i.shape in wanted and i.dtype == dtype and not (lo <= i.lo and i.hi <= hi))
    source = choose.choice([*inside, "const", "param", *(["clip"] if others else [])])
    if not isinstance(source, str):
        return source
    if source == "clip":
        bounds = {"min": int(lo), "max": int(hi)} if is_int(dtype) else {"min": float(lo), "max": float(hi)}
        return sketch.add("clip", [choose.choice(others)], bounds)
    shape = tuple(choose.choice(list(shapes)))
    if source == "const":
        return sketch.add_const(shape, dtype, lo, hi)
    return sketch.add_param(shape, dtype, lo, hi, choose.choice(["input", "weight"]))


def _min_abs(info: ValueInfo) -> float:
    """The smallest magnitude of a value whose range excludes zero."""
    return info.lo if info.lo > 0 else -info.hi


def _divisor_rule(name: str, a: ValueInfo, b: ValueInfo) -> None:
    """Shared by floor_divide, floor_mod and mod: the divisor stays away from zero (integers: never 0,
    which raises SIGFPE; floats: magnitude at least 0.5), no INT_MIN / -1 (SIGFPE too), and float
    operands are exact (these ops jump at multiples of the divisor)."""
    require(b.excludes_zero(0.0 if is_int(b.dtype) else 0.49),
            f"{name}: divisor range [{b.lo:g}, {b.hi:g}] may reach zero")
    if is_int(a.dtype):
        q_lo, q_hi = _corners(lambda x, y: x / y, a, b)
        require(representable(a.dtype, math.floor(q_lo), math.ceil(q_hi)),
                f"{name}: the quotient may overflow {a.dtype} (INT_MIN / -1 raises SIGFPE)")
    else:
        require(a.exact and b.exact, f"{name} of inexact floats could jump on a legal rounding difference")


def _floor_divide_rule(a: ValueInfo, b: ValueInfo) -> tuple[float, float, bool]:
    _divisor_rule("floor_divide", a, b)
    lo, hi = _corners(lambda x, y: x / y, a, b)
    if is_int(a.dtype):
        return math.floor(lo), math.floor(hi), True
    # floor(fl(a / b)) of floats: rounding is monotone, but may round a quotient just below an integer up.
    return math.floor(lo), math.ceil(hi), False


# floor_mod of floats computes a - floor(a / b) * b: its rounding error (and the difference an FMA
# contraction makes) grows with the quotient, while the tolerance scales with the result's bound |b|.
FLOOR_MOD_QUOTIENT = {"float32": 256, "float16": 8, "bfloat16": 8, "float64": 256}


def _floor_mod_rule(a: ValueInfo, b: ValueInfo) -> tuple[float, float, bool]:
    _divisor_rule("floor_mod", a, b)
    if is_int(a.dtype):
        if b.lo > 0:  # result in [0, b - 1], and equal to a when 0 <= a < b
            return 0, (min(a.hi, b.hi - 1) if a.lo >= 0 else b.hi - 1), True
        return (max(a.lo, b.lo + 1) if a.hi <= 0 else b.lo + 1), 0, True
    require(a.magnitude <= FLOOR_MOD_QUOTIENT[a.dtype] * _min_abs(b),
            f"floor_mod: |a| / |b| may exceed {FLOOR_MOD_QUOTIENT[a.dtype]} (rounding error beyond tolerance)")
    # floor(fl(a / b)) may be one too large when a / b rounds up to an integer: a small negative slack.
    slack = ROUNDING[a.dtype] * (a.magnitude + b.magnitude)
    return (-slack, b.hi, False) if b.lo > 0 else (b.lo, slack, False)


def _mod_rule(a: ValueInfo, b: ValueInfo) -> tuple[float, float, bool]:
    _divisor_rule("mod", a, b)
    limit = max(-b.lo, b.hi) - (1 if is_int(a.dtype) else 0)  # |result| < |b| and |result| <= |a|
    return max(min(a.lo, 0), -limit), min(max(a.hi, 0), limit), is_int(a.dtype)


# mod of bfloat16 fails to compile (TVM bug, see catalogue/excluded.py).
NOT_BFLOAT16 = tuple(d for d in NUMERIC if d != "bfloat16")


def _computed_as_tvm(a: np.ndarray) -> np.ndarray:
    """TVM computes bfloat16 arithmetic in float32 and rounds only the result (BF16ComputeLegalize).
    Where a result jumps (floor of a quotient), numpy's bfloat16 rounding at every step would make
    the reference differ from TVM by a whole divisor, so such references compute as TVM does."""
    return a.astype("float32") if a.dtype.name == "bfloat16" else a


def _floor_mod_ref(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if is_int(a.dtype.name):
        return np.mod(a, b)
    x, y = _computed_as_tvm(a), _computed_as_tvm(b)
    with np.errstate(all="ignore"):
        return (x - np.floor(x / y) * y).astype(a.dtype)


def _floor_divide_ref(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if is_int(a.dtype.name):
        return np.floor_divide(a, b)
    x, y = _computed_as_tvm(a), _computed_as_tvm(b)
    with np.errstate(all="ignore"):
        return np.floor(x / y).astype(a.dtype)


FLOOR_DIVIDE = ruled_binary("floor_divide", "floor_divide", _floor_divide_ref, NUMERIC, _floor_divide_rule, (1, 4),
                            symmetric=False,
                            notes="Floats compute floor(a / b), which differs from numpy's fmod-based floor_divide "
                                  "(np.floor_divide(1, 0.1) is 9, floor(1 / 0.1) is 10).")
FLOOR_MOD = ruled_binary("floor_mod", "floor_mod", _floor_mod_ref, NUMERIC, _floor_mod_rule, (1, 4), symmetric=False,
                         notes="Floats compute a - floor(a / b) * b (not numpy's fmod-based np.mod).")
MOD = ruled_binary("mod", "mod", np.fmod, NOT_BFLOAT16, _mod_rule, (1, 4), symmetric=False,
                   notes="Truncating remainder (C, np.fmod): the sign follows the dividend, unlike np.mod.")


def _log_add_exp(x: float, y: float) -> float:
    m = max(x, y)
    return m + math.log1p(math.exp(-abs(x - y)))


# log_add_exp legalizes to log(exp(a) + exp(b)), with no max subtracted: the larger operand must keep
# exp finite (the sum too) and normal (so that the log keeps its precision).
LOG_ADD_EXP_WINDOW = {"float32": (-80.0, 87.0), "float16": (-9.0, 10.0), "float64": (-700.0, 700.0)}


def _log_add_exp_rule(a: ValueInfo, b: ValueInfo) -> tuple[float, float, bool]:
    low, high = LOG_ADD_EXP_WINDOW[a.dtype]
    require(max(a.hi, b.hi) <= high, f"log_add_exp: exp of an operand above {high:g} overflows {a.dtype}")
    require(max(a.lo, b.lo) >= low, f"log_add_exp: exp of both operands may underflow below {low:g}")
    # Increasing in both operands. The rounding of exp(a) + exp(b) is an absolute error of the log.
    slack = 2 * ROUNDING[a.dtype]
    return _log_add_exp(a.lo, b.lo) - slack, _log_add_exp(a.hi, b.hi) + slack, False


def _log_add_exp_ref(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.log(np.exp(a) + np.exp(b)).astype(a.dtype)


# bfloat16 fails in codegen (InternalError: IsFloatType check on its exp).
LOG_ADD_EXP = ruled_binary("log_add_exp", "log_add_exp", _log_add_exp_ref, ("float32", "float16", "float64"), _log_add_exp_rule,
                           notes="Legalized as log(exp(a) + exp(b)) (numpy's logaddexp is the stable form): "
                                 "overflows past about 88 (float32) or 11 (float16).")

# power: a strictly positive, moderate base and a small exponent, so that the result stays moderate and
# the error amplification |b| * (1 + |log a|) stays well inside the tolerance.
POWER_BASE = (1 / 16, 16.0)
POWER_EXPONENT = {"float32": 4.0, "float16": 2.5, "float64": 4.0}  # drawn in [-2, 2] (plus rounding slack)


def _power_rule(a: ValueInfo, b: ValueInfo) -> tuple[float, float, bool]:
    require(POWER_BASE[0] <= a.lo and a.hi <= POWER_BASE[1],
            f"power: base range [{a.lo:g}, {a.hi:g}] must lie in [{POWER_BASE[0]:g}, {POWER_BASE[1]:g}]")
    require(b.magnitude <= POWER_EXPONENT[a.dtype], f"power: exponent magnitude may exceed {POWER_EXPONENT[a.dtype]:g}")
    lo, hi = _corners(lambda x, y: x ** y, a, b)  # monotone in each operand for a positive base
    return lo, hi, False


def _power_propose(infer) -> Callable[[Sketch, Chooser], None]:
    def propose(sketch: Sketch, choose: Chooser) -> None:
        """The base is a float value already in range, or else one in [0.5, 4] of its shape: a value
        in range, a new constant or parameter (what a loss program, which takes no clip, can
        differentiate), or a value clipped; the exponent is in [-2, 2]."""
        x = pick(sketch, choose, lambda i: i.dtype in POWER_DTYPES)
        info = sketch.infos[x]
        if not (POWER_BASE[0] <= info.lo and info.hi <= POWER_BASE[1]) or choose.boolean():
            x = _within(sketch, choose, [info.shape], info.dtype, 0.5, 4.0)
        exponent = _within(sketch, choose, broadcastable_shapes(info.shape), info.dtype, -2.0, 2.0)
        sketch.add("power", [x, exponent])

    return propose


POWER_DTYPES = ("float32", "float16", "float64")  # bfloat16 fails in codegen ("power only applies to float")
POWER = smooth(ruled_binary("power", "power", np.power, POWER_DTYPES, _power_rule, (-2, 2), symmetric=False,
                     accepts=lambda i: i.dtype in POWER_DTYPES,  # any float value becomes a base through a clip
                     make_propose=_power_propose,
                     notes="Floats only (integers fail in LegalizeOps); drawn with a positive base only."))


def _atan2_rule(y: ValueInfo, x: ValueInfo) -> tuple[float, float, bool]:
    # atan2 jumps from pi to -pi across y = 0 when x < 0, and is ill-conditioned near the origin: inexact
    # operands only with x well away from zero and moderate magnitudes.
    require((y.exact and x.exact) or (x.lo >= 0.5 and max(y.magnitude, x.magnitude) <= 16),
            "atan2 of inexact operands could jump (branch cut) or amplify a legal rounding difference")
    lo = 0.0 if y.lo > 0 else -math.pi  # -0.0 counts as negative: atan2(-0.0, -1) = -pi
    hi = 0.0 if y.hi < 0 else math.pi
    if x.lo > 0:
        lo, hi = max(lo, -math.pi / 2), min(hi, math.pi / 2)
    return lo, hi, False


def _atan2_propose(infer) -> Callable[[Sketch, Chooser], None]:
    def propose(sketch: Sketch, choose: Chooser) -> None:
        """Any float32 or bfloat16 value is y: an inexact one of large magnitude clipped into [-4, 4]
        first. x is anything valid with it (inexact y: x >= 0.5)."""
        y = pick(sketch, choose, lambda i: i.dtype in ATAN2_DTYPES)
        if not valid(infer, [sketch.infos[y], probe(sketch.infos[y], 1, 4)]):
            y = sketch.add("clip", [y], {"min": -4.0, "max": 4.0})
        a = sketch.infos[y]
        x = operand(sketch, choose, broadcastable_shapes(a.shape), a.dtype, *((-4, 4) if a.exact else (1, 4)),
                    accept=lambda b: valid(infer, [a, b]))
        sketch.add("atan2", [y, x])

    return propose


ATAN2_DTYPES = ("float32", "bfloat16", "float64")  # float16 fails in LLVM codegen (tirx.atan2)
ATAN2 = ruled_binary("atan2", "atan2", np.arctan2, ATAN2_DTYPES, _atan2_rule, (1, 4), symmetric=False,
                     accepts=lambda i: i.dtype in ATAN2_DTYPES,  # through a clip if need be
                     make_propose=_atan2_propose, notes="Not float16: LLVM codegen fails (tirx.atan2).")

# -- logical ops (bool only) -------------------------------------------------------------------------------------


def _bool_not(lo: float, hi: float) -> tuple[float, float]:
    return 1 - hi, 1 - lo


def _bool_and(a: ValueInfo, b: ValueInfo) -> tuple[float, float, bool]:
    return min(a.lo, b.lo), min(a.hi, b.hi), True


def _bool_or(a: ValueInfo, b: ValueInfo) -> tuple[float, float, bool]:
    return max(a.lo, b.lo), max(a.hi, b.hi), True


def _bool_xor(a: ValueInfo, b: ValueInfo) -> tuple[float, float, bool]:
    if a.lo == a.hi and b.lo == b.hi:
        return abs(a.lo - b.lo), abs(a.lo - b.lo), True
    return 0, 1, True


BOOL = ("bool",)


def _bool_operand(sketch: Sketch, choose: Chooser, x: int) -> int:
    """``x`` itself if it is bool, else a comparison of it (exact) with a new or existing operand: the
    masks models feed to logical ops come from comparisons."""
    info = sketch.infos[x]
    if info.dtype == "bool":
        return x
    other = operand(sketch, choose, broadcastable_shapes(info.shape), info.dtype, -4, 4, accept=lambda i: i.exact)
    return sketch.add(choose.choice(["greater", "less", "equal", "not_equal", "less_equal", "greater_equal"]),
                      [x, other])


def _maskable(info: ValueInfo) -> bool:
    """A bool value, or one a comparison turns into a bool (see _bool_operand)."""
    return info.dtype == "bool" or (info.dtype in NUMERIC and info.exact)


def _logical(op: OpDef) -> OpDef:
    """``op`` (bool only), drawn on a bool value or on the comparison of an exact numeric value."""

    def propose(sketch: Sketch, choose: Chooser) -> None:
        x = _bool_operand(sketch, choose, pick(sketch, choose, _maskable))
        if op.name == "logical_not":
            sketch.add(op.name, [x])
            return
        shape = sketch.infos[x].shape
        y = operand(sketch, choose, broadcastable_shapes(shape), "bool", 0, 1)
        sketch.add(op.name, [y, x] if choose.boolean() else [x, y])

    return replace(op, propose=propose, accepts=_maskable)


LOGICAL_NOT = _logical(unary("logical_not", "logical_not", np.logical_not, BOOL, _bool_not, True,
                             notes="bool only (other dtypes fail in LegalizeOps)."))
LOGICAL_AND = _logical(ruled_binary("logical_and", "logical_and", np.logical_and, BOOL, _bool_and,
                                    notes="bool only."))
LOGICAL_OR = _logical(ruled_binary("logical_or", "logical_or", np.logical_or, BOOL, _bool_or, notes="bool only."))
LOGICAL_XOR = _logical(ruled_binary("logical_xor", "logical_xor", np.logical_xor, BOOL, _bool_xor,
                                    notes="Offered on bool only: on integers Relax computes a BITWISE xor with an "
                                          "integer result (bitwise_xor covers that)."))

# -- bitwise ops (integers and bool) ----------------------------------------------------------------------------


def _pow2_above(v: float) -> int:
    """The smallest power of two greater than the non-negative integer ``v``."""
    return 1 << int(v).bit_length()


def _signed_span(*infos: ValueInfo) -> int:
    """The smallest power of two P with every value of ``infos`` in [-P, P - 1]: such values agree with
    their sign in every bit from log2(P) up, and so does any bitwise combination of them."""
    return _pow2_above(max(0, *(i.hi for i in infos), *(-i.lo - 1 for i in infos)))


def _bitwise_not_bounds(dtype: str) -> Callable[[float, float], tuple[float, float]]:
    if dtype == "bool":
        return _bool_not
    if dtype == "uint8":
        return lambda lo, hi: (255 - hi, 255 - lo)
    return lambda lo, hi: (-hi - 1, -lo - 1)  # ~x == -x - 1 in two's complement


def _bitwise_and(a: ValueInfo, b: ValueInfo) -> tuple[float, float, bool]:
    if a.dtype == "bool":
        return _bool_and(a, b)
    if a.lo >= 0 and b.lo >= 0:
        return 0, min(a.hi, b.hi), True
    if a.lo >= 0 or b.lo >= 0:  # the non-negative operand's bits bound the result
        return 0, (a.hi if a.lo >= 0 else b.hi), True
    return -_pow2_above(max(-a.lo - 1, -b.lo - 1)), max(a.hi, b.hi), True


def _bitwise_or(a: ValueInfo, b: ValueInfo) -> tuple[float, float, bool]:
    if a.dtype == "bool":
        return _bool_or(a, b)
    if a.lo >= 0 and b.lo >= 0:
        return max(a.lo, b.lo), _pow2_above(max(a.hi, b.hi)) - 1, True
    # With a negative operand the result is negative and at least that operand.
    hi = -1 if (a.hi < 0 or b.hi < 0) else _pow2_above(max(a.hi, b.hi)) - 1
    return min(a.lo, b.lo), hi, True


def _bitwise_xor(a: ValueInfo, b: ValueInfo) -> tuple[float, float, bool]:
    if a.dtype == "bool":
        return _bool_xor(a, b)
    if a.lo >= 0 and b.lo >= 0:
        return 0, _pow2_above(max(a.hi, b.hi)) - 1, True
    span = _signed_span(a, b)
    return -span, span - 1, True


BITWISE_DTYPES = INTS + BOOL


def _bitwise_not_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and not attrs, "bitwise_not takes one operand and no attributes")
    (x,) = args
    require(x.dtype in BITWISE_DTYPES, f"bitwise_not does not support {x.dtype}")
    return checked(x.shape, x.dtype, *_bitwise_not_bounds(x.dtype)(x.lo, x.hi), x.exact)


def _bitwise_not_propose(sketch: Sketch, choose: Chooser) -> None:
    sketch.add("bitwise_not", [pick(sketch, choose, lambda i: i.dtype in BITWISE_DTYPES)])


BITWISE_NOT = OpDef("bitwise_not", _bitwise_not_infer, lambda R, args, at: R.op.bitwise_not(args[0]),
                    lambda args, at: np.invert(args[0]), _bitwise_not_propose, lambda i: i.dtype in BITWISE_DTYPES,
                    notes="On bool it is the logical not; on uint8 it is 255 - x.")
BITWISE_AND = ruled_binary("bitwise_and", "bitwise_and", np.bitwise_and, BITWISE_DTYPES, _bitwise_and)
BITWISE_OR = ruled_binary("bitwise_or", "bitwise_or", np.bitwise_or, BITWISE_DTYPES, _bitwise_or)
BITWISE_XOR = ruled_binary("bitwise_xor", "bitwise_xor", np.bitwise_xor, BITWISE_DTYPES, _bitwise_xor)

# -- shifts (integers): the amount stays in [0, bit width - 1] and a left shift never overflows -------------------


def _bits(dtype: str) -> int:
    return numpy_dtype(dtype).itemsize * 8


def _shift_amount_ok(name: str, a: ValueInfo, s: ValueInfo) -> None:
    require(0 <= s.lo and s.hi <= _bits(a.dtype) - 1,
            f"{name}: shift amount range [{s.lo:g}, {s.hi:g}] may leave [0, {_bits(a.dtype) - 1}] (poison in LLVM)")


def _left_shift_rule(a: ValueInfo, s: ValueInfo) -> tuple[float, float, bool]:
    _shift_amount_ok("left_shift", a, s)
    lo, hi = _corners(lambda x, k: x * 2 ** k, a, s)  # checked() then rejects overflow
    return lo, hi, True


def _right_shift_rule(a: ValueInfo, s: ValueInfo) -> tuple[float, float, bool]:
    _shift_amount_ok("right_shift", a, s)
    lo, hi = _corners(lambda x, k: math.floor(x / 2 ** k), a, s)  # arithmetic: floor division by 2^k
    return lo, hi, True


def _shift_propose(name: str) -> Callable[[Callable], Callable[[Sketch, Chooser], None]]:
    def make(infer) -> Callable[[Sketch, Chooser], None]:
        def propose(sketch: Sketch, choose: Chooser) -> None:
            """The amount is in [0, k] for a k that cannot overflow, routed through a clip if need be."""
            x = pick(sketch, choose, lambda i: i.dtype in INTS)
            a = sketch.infos[x]
            top = _bits(a.dtype) - 1
            fits = [k for k in sorted({1, 2, 3, top}) if valid(infer, [a, probe(a, 0, k)])]
            amount = _within(sketch, choose, broadcastable_shapes(a.shape), a.dtype, 0, choose.choice(fits or [0]))
            sketch.add(name, [x, amount])

        return propose

    return make


LEFT_SHIFT = ruled_binary("left_shift", "left_shift", np.left_shift, INTS, _left_shift_rule, (0, 0), symmetric=False,
                          make_propose=_shift_propose("left_shift"),
                          notes="Integers only; amounts are in [0, bits - 1] and results never overflow.")
RIGHT_SHIFT = ruled_binary("right_shift", "right_shift", np.right_shift, INTS, _right_shift_rule, (0, 0),
                           symmetric=False, make_propose=_shift_propose("right_shift"),
                           notes="Integers only; arithmetic shift: negative values round toward -inf.")

# -- masked_fill --------------------------------------------------------------------------------------------------


def _fill_value(dtype: str, value):
    require(isinstance(value, (bool, int, float)), "masked_fill's value must be a number")
    require(math.isfinite(value), "masked_fill's value must be finite")
    if is_int(dtype):
        require(isinstance(value, int) and not isinstance(value, bool), "an integer tensor needs an integer value")
    if dtype == "bool":
        require(value in (0, 1), "a bool tensor needs a bool value")
    require(representable(dtype, value, value), f"value {value} is not representable in {dtype}")
    return np.array(value, dtype=numpy_dtype(dtype))


def _masked_fill_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 2 and set(attrs) == {"value"}, "masked_fill takes (data, mask) and a value")
    x, mask = args
    require(x.dtype in DTYPES, f"masked_fill does not support {x.dtype}")
    require(mask.dtype == "bool", "masked_fill's mask must be bool")
    value = float(_fill_value(x.dtype, attrs["value"]))
    return checked(broadcast(x.shape, mask.shape), x.dtype, min(x.lo, value), max(x.hi, value), x.exact)


def _fill_const(R, dtype: str, value):
    return R.const(_fill_value(dtype, value), dtype)  # without the dtype, a 0-d int64 array becomes int32


FILL_VALUES = {"float32": [0.0, 1.0, -1.0, -1e4], "float16": [0.0, 1.0, -1.0, -1e3], "bfloat16": [0.0, 1.0, -1.0, -1e4],
               "float64": [0.0, 1.0, -1.0, -1e4],
               "bool": [False, True]}


def _masked_fill_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, lambda i: i.dtype in DTYPES)
    info = sketch.infos[x]
    mask = operand(sketch, choose, broadcastable_shapes(info.shape), "bool", 0, 1)
    values = FILL_VALUES.get(info.dtype, [0, 1, -1, 5])
    value = choose.choice([v for v in values if valid(_masked_fill_infer, [info, sketch.infos[mask]], {"value": v})])
    sketch.add("masked_fill", [x, mask], {"value": value})


MASKED_FILL = OpDef("masked_fill", _masked_fill_infer,
                    lambda R, args, at: R.op.masked_fill(args[0], args[1],
                                                         _fill_const(R, str(args[0].ty.dtype), at["value"])),
                    lambda args, at: np.where(args[1], _fill_value(args[0].dtype.name, at["value"]), args[0]),
                    _masked_fill_propose, lambda i: i.dtype in DTYPES,
                    notes="The value is a scalar constant of the data's dtype (full_like + where).")

OPS = [CONST, NEGATIVE, ABS, RELU, ADD, SUBTRACT, MULTIPLY, MAXIMUM, MINIMUM, DIVIDE, EXP, SIGMOID, TANH,
       EQUAL, LESS, GREATER, WHERE, CLIP, ASTYPE,
       NOT_EQUAL, LESS_EQUAL, GREATER_EQUAL, LOGICAL_NOT, LOGICAL_AND, LOGICAL_OR, LOGICAL_XOR,
       BITWISE_NOT, BITWISE_AND, BITWISE_OR, BITWISE_XOR, MASKED_FILL, FLOOR_DIVIDE, FLOOR_MOD, MOD,
       LEFT_SHIFT, RIGHT_SHIFT, LOG_ADD_EXP, POWER, ATAN2]

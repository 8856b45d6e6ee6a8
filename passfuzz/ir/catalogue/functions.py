"""Elementwise math beyond the basics: float functions, rounding, activations.

Every op here is built by ``function``: one operand, an optional set of float attributes, and a
``rule`` that states the operand's domain (raising OpError outside it) and the result's range.

Domains. An operand must lie where the function is defined *and* well conditioned, because an
inexact operand carries a legal rounding difference that the function amplifies by |f'(x)|:
log and rsqrt need x >= 0.2 (the result stays bounded), sqrt needs x >= 0 when exact and
x >= 0.2 when not (sqrt'(0) is infinite), asin/acos need |x| <= 1 when exact and |x| <= 0.9 when
not, acosh x >= 1 or x >= 1.2, atanh |x| <= 0.9, tan |x| <= 1.25 (far from pi/2), sinh/cosh
|x| <= 10, sin/cos |x| <= 16 (float32) or 4 (float16): the tolerance is absolute there, and the
rounding difference of the argument grows with its magnitude.

``propose`` makes any value of a supported dtype a valid operand: it uses the value as it is when
the rule accepts it, or routes it through a ``clip`` into a target interval of the op, or (for
ops defined on a half-line) through ``abs`` and an added positive constant, or takes a fresh
operand drawn inside a target interval.

Ranges are computed in float64 from the operand's interval (monotone functions at its ends,
others with their extrema), then widened by twice the dtype's rounding slack, since the
implementations (float16 ones especially) are not correctly rounded.

Discontinuous functions (floor, ceil, round, trunc, sign) accept only exact float operands
(see base), and their results are exact.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .base import (
    FLOATS,
    ROUNDING,
    Chooser,
    OpDef,
    OpError,
    Sketch,
    ValueInfo,
    checked,
    fit,
    is_float,
    is_float_array,
    is_int,
    operand,
    pick,
    require,
    smooth,
    valid,
)
from .elementwise import ABS, ADD, CLIP, CONST

Rule = Callable[[ValueInfo, dict], tuple[float, float]]
Bounds = tuple[float, float]

# float16 fails in LLVM codegen for these (no intrinsic); bfloat16 is computed in float32.
NO_FLOAT16 = ("float32", "bfloat16", "float64")
INTS_SIGNED = ("int32", "int64", "int8")
ALL_INTS = ("int32", "int64", "int8", "uint8")


def _widen(dtype: str, lo: float, hi: float, noise: float) -> Bounds:
    """The float64 range of a float function, widened for the implementation's rounding: relative to
    the bound, plus ``noise`` (the magnitude of the intermediates that cancel) times the rounding."""
    slack = 2 * ROUNDING[dtype]
    return lo - slack * (abs(lo) + noise), hi + slack * (abs(hi) + noise)


def _inside(name: str, x: ValueInfo, lo: float, hi: float, why: str = "") -> None:
    require(lo <= x.lo and x.hi <= hi,
            f"{name}: operand range [{x.lo:g}, {x.hi:g}] leaves [{lo:g}, {hi:g}]{(' (' + why + ')') if why else ''}")


def _increasing(f: Callable[[float], float]) -> Callable[[ValueInfo], Bounds]:
    return lambda x: (f(x.lo), f(x.hi))


def _decreasing(f: Callable[[float], float]) -> Callable[[ValueInfo], Bounds]:
    return lambda x: (f(x.hi), f(x.lo))


def _even_min(f: Callable[[float], float], floor: float) -> Callable[[ValueInfo], Bounds]:
    """The range of an even function increasing in |x| with f(0) = ``floor`` (cosh, square)."""

    def bounds(x: ValueInfo) -> Bounds:
        near = 0.0 if x.lo <= 0 <= x.hi else min(abs(x.lo), abs(x.hi))
        return (floor if near == 0.0 else f(near)), f(x.magnitude)

    return bounds


def _dip(f: Callable[[float], float], x_min: float) -> Callable[[ValueInfo], Bounds]:
    """The range of a function decreasing left of ``x_min`` and increasing right of it (silu, gelu)."""

    def bounds(x: ValueInfo) -> Bounds:
        low = f(x_min) if x.lo <= x_min <= x.hi else min(f(x.lo), f(x.hi))
        return low, max(f(x.lo), f(x.hi))

    return bounds


def _wave(f: Callable[[float], float], peak: float) -> Callable[[ValueInfo], Bounds]:
    """The range of sin or cos (``peak``: where f is 1; f is -1 at peak + pi; period 2 pi)."""
    period = 2 * math.pi

    def reaches(c: float, lo: float, hi: float) -> bool:  # is some c + k * period in [lo, hi]?
        return c + period * math.ceil((lo - c) / period) <= hi

    def bounds(x: ValueInfo) -> Bounds:
        if x.hi - x.lo >= period:
            return -1.0, 1.0
        ends = (f(x.lo), f(x.hi))
        top = 1.0 if reaches(peak, x.lo, x.hi) else max(ends)
        bottom = -1.0 if reaches(peak + math.pi, x.lo, x.hi) else min(ends)
        return bottom, top

    return bounds


def _argmin(f: Callable[[float], float], lo: float, hi: float) -> float:
    """Where the unimodal ``f`` is smallest in [lo, hi] (golden-section search)."""
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if f(a) < f(b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


# -- float64 scalar versions of the activations (for ranges) and numpy references -----------------


def _silu(v: float) -> float:
    return v / (1.0 + math.exp(min(-v, 700.0)))


def _gelu(v: float) -> float:
    return 0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0)))


GELU_TANH_C = math.sqrt(2.0 / math.pi)


def _gelu_tanh(v: float) -> float:
    return 0.5 * v * (1.0 + math.tanh(GELU_TANH_C * (v + 0.044715 * v ** 3)))


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _selu(v: float) -> float:
    return SELU_SCALE * (v if v > 0 else SELU_ALPHA * math.expm1(v))


def _softplus(v: float, beta: float) -> float:
    z = beta * v
    return (z + math.log1p(math.exp(-z)) if z > 0 else math.log1p(math.exp(z))) / beta


SILU_MIN = _argmin(_silu, -3.0, 0.0)
GELU_MIN = _argmin(_gelu, -3.0, 0.0)
GELU_TANH_MIN = _argmin(_gelu_tanh, -3.0, 0.0)

_erf = np.vectorize(math.erf, otypes=[np.float64])


def _f64(ref: Callable[[np.ndarray], np.ndarray]) -> Callable[[list[np.ndarray], dict], np.ndarray]:
    """A reference computed in float64 and rounded to the operand's dtype."""

    def reference(args: list[np.ndarray], attrs: dict) -> np.ndarray:
        (x,) = args
        with np.errstate(all="ignore"):
            return np.asarray(ref(x.astype("float64"))).astype(x.dtype)

    return reference


def _identity_on_ints(ref: Callable[[np.ndarray], np.ndarray]) -> Callable[[list[np.ndarray], dict], np.ndarray]:
    """Rounding functions: numpy's on floats, the identity on integers and bool (as in Relax)."""

    def reference(args: list[np.ndarray], attrs: dict) -> np.ndarray:
        (x,) = args
        return ref(x).astype(x.dtype) if is_float_array(x) else x.copy()

    return reference


# -- the builder ----------------------------------------------------------------------------------


def function(name: str, relax_name: str, reference: Callable[[list[np.ndarray], dict], np.ndarray],
             dtypes: tuple[str, ...], rule: Rule, *, exact: Callable[[ValueInfo], bool] = lambda x: False,
             discrete: bool = False, attrs: dict[str, list] | None = None,
             check_attrs: Callable[[dict], None] = lambda at: None,
             targets: Callable[[str], list[Bounds]] = lambda dtype: [(-4.0, 4.0)], shifts: tuple[float, ...] = (),
             noise: Callable[[ValueInfo], float] = lambda x: 1.0, notes: str = "") -> OpDef:
    """An elementwise function of one operand.

    ``rule(x, attrs)``: the result's float64 range; raises OpError outside the op's domain.
    ``exact(x)``: is the result exact (inexact float results are widened by ``_widen`` with
    ``noise(x)``, the absolute rounding scale: 1 by default, more where intermediates cancel).
    ``discrete``: the op jumps, so float operands must be exact.
    ``attrs``: attribute name -> the values propose draws; ``check_attrs`` validates any value.
    ``targets(dtype)``: intervals inside the domain that propose clips into or draws fresh operands in.
    ``shifts``: constants c for the route abs(x) + c (ops defined on a half-line)."""
    attr_names = set(attrs or {})

    def infer(args: list[ValueInfo], at: dict) -> ValueInfo:
        require(len(args) == 1, f"{name} takes one operand")
        require(set(at) == attr_names, f"{name} takes attributes {sorted(attr_names)}, got {sorted(at)}")
        check_attrs(at)
        (x,) = args
        require(x.dtype in dtypes, f"{name} does not support {x.dtype}")
        if discrete and is_float(x.dtype):
            require(x.exact, f"{name} of an inexact float could jump on a legal rounding difference")
        lo, hi = rule(x, at)
        result_exact = exact(x)
        if is_float(x.dtype) and not result_exact:
            lo, hi = _widen(x.dtype, lo, hi, noise(x))
        return checked(x.shape, x.dtype, lo, hi, result_exact)

    def emit(R, args, at):
        target = R.op
        for part in relax_name.split("."):
            target = getattr(target, part)
        return target(*args, **at)

    def accepts(info: ValueInfo) -> bool:
        """Any value of a supported dtype: propose routes it into the domain. Discontinuous ops
        need an exact float, which no route can make of an inexact one."""
        return info.dtype in dtypes and (not discrete or not is_float(info.dtype) or info.exact)

    def fitted(dtype: str, lo: float, hi: float) -> Bounds:
        if is_int(dtype):
            lo, hi = fit(dtype, lo, hi)
            return int(math.ceil(lo)), int(math.floor(hi))
        return float(lo), float(hi)

    def target_bounds(dtype: str, lo: float, hi: float) -> dict:
        if is_int(dtype):
            return {"min": int(math.ceil(lo)), "max": int(math.floor(hi))}
        return {"min": float(lo), "max": float(hi)}

    def propose(sketch: Sketch, choose: Chooser) -> None:
        x = pick(sketch, choose, accepts)
        info = sketch.infos[x]
        at = {key: choose.choice(values) for key, values in (attrs or {}).items()}
        ok = lambda i: valid(infer, [i], at)  # noqa: E731

        def fresh_ok(bounds: Bounds) -> bool:  # with the rounding slack a constant's range gets
            try:
                return ok(checked(info.shape, info.dtype, *bounds, True))
            except OpError:
                return False

        fresh = [t for t in map(lambda t: fitted(info.dtype, *t), targets(info.dtype)) if fresh_ok(t)]
        clips = [t for t in fresh if valid(CLIP.infer, [info], target_bounds(info.dtype, *t))
                 and ok(CLIP.infer([info], target_bounds(info.dtype, *t)))]
        shifted = []
        for c in shifts:
            try:
                const = CONST.infer([], {"shape": [], "dtype": info.dtype, "value": c})
                if ok(ADD.infer([ABS.infer([info], {}), const], {})):
                    shifted.append(c)
            except OpError:
                pass
        routes = (["direct"] if ok(info) else []) + (["clip"] if clips else []) + \
                 (["shift"] if shifted else []) + (["fresh"] if fresh else [])
        route = choose.choice(routes)  # never empty: every op's targets lie inside its domain
        if route == "clip":
            x = sketch.add("clip", [x], target_bounds(info.dtype, *choose.choice(clips)))
        elif route == "shift":
            c = choose.choice(shifted)
            x = sketch.add("add", [sketch.add("abs", [x]), sketch.add_const((), info.dtype, c, c)])
        elif route == "fresh":
            x = operand(sketch, choose, [info.shape], info.dtype, *choose.choice(fresh), accept=ok)
        sketch.add(name, [x], at)

    return OpDef(name, infer, emit, reference, propose, accepts, notes)


# -- rounding and sign: identity on integers, exact float operands only ---------------------------------


def _rounding(name: str, f: Callable[[np.ndarray], np.ndarray], scalar: Callable[[float], float],
              notes: str = "") -> OpDef:
    def rule(x: ValueInfo, at: dict) -> Bounds:
        return (scalar(x.lo), scalar(x.hi)) if is_float(x.dtype) else (x.lo, x.hi)

    return function(name, name, _identity_on_ints(f), FLOATS + ALL_INTS + ("bool",), rule,
                    exact=lambda x: x.exact, discrete=True, notes=notes)


FLOOR = _rounding("floor", np.floor, math.floor, notes="The identity on integers and bool.")
CEIL = _rounding("ceil", np.ceil, math.ceil, notes="The identity on integers and bool.")
ROUND = _rounding("round", np.round, lambda v: float(np.round(v)),
                  notes="Rounds half to even (like numpy, unlike C's round); the identity on integers and bool.")
TRUNC = _rounding("trunc", np.trunc, math.trunc, notes="The identity on integers and bool.")


def _sign_scalar(v: float) -> float:
    return float((v > 0) - (v < 0))


def _sign_ref(args: list[np.ndarray], at: dict) -> np.ndarray:
    (x,) = args
    return np.where(x > 0, 1, np.where(x < 0, -1, 0)).astype(x.dtype)


SIGN = function("sign", "sign", _sign_ref, FLOATS + INTS_SIGNED,
                lambda x, at: (_sign_scalar(x.lo), _sign_scalar(x.hi)), exact=lambda x: x.exact, discrete=True,
                notes="sign(-0.0) is +0.0 (numpy: -0.0). uint8 and bool fail in LegalizeOps.")


def _int_or_float_targets(dtype: str) -> list[Bounds]:
    return [(-8.0, 8.0), (0.0, 4.0), (-2.0, 2.0)] if is_int(dtype) else [(-4.0, 4.0), (0.0, 4.0), (-1.0, 1.0)]


SQUARE = function("square", "square", lambda args, at: (args[0] * args[0]).astype(args[0].dtype),
                  FLOATS + ALL_INTS, lambda x, at: _even_min(lambda v: v * v, 0.0)(x),
                  exact=lambda x: is_int(x.dtype), targets=_int_or_float_targets, noise=lambda x: 0.0,
                  notes="Computed in the operand's dtype; overflow is never drawn. bool fails in LLVM codegen.")

RELU6 = function("relu6", "nn.relu6", lambda args, at: np.clip(args[0], 0, 6).astype(args[0].dtype),
                 FLOATS + ALL_INTS, lambda x, at: (min(max(x.lo, 0), 6), min(max(x.hi, 0), 6)),
                 exact=lambda x: x.exact, noise=lambda x: 0.0,
                 notes="Built as clip(x, 0, 6). bool fails in LegalizeOps.")

# -- float functions ------------------------------------------------------------------------------------

POSITIVE_MIN = 0.2  # log, rsqrt and inexact sqrt operands: bounded results, bounded amplification
POSITIVE_TARGETS = [(0.25, 4.0), (0.5, 2.0), (1.0, 8.0)]
TRIG_LIMIT = {"float32": 16.0, "float16": 4.0, "bfloat16": 4.0, "float64": 16.0}
TAN_LIMIT = 1.25
ATANH_LIMIT = 0.9
ARC_LIMIT = 0.9  # asin, acos of inexact operands (exact ones: 1)
ACOSH_MIN = 1.2  # acosh of inexact operands (exact ones: 1)
HYPERBOLIC_LIMIT = 10.0


def _positive(name: str, f: Callable[[ValueInfo], Bounds], exact_floor: float | None = None) -> Rule:
    """A rule for an op defined for x >= POSITIVE_MIN (or x >= exact_floor when x is exact)."""

    def rule(x: ValueInfo, at: dict) -> Bounds:
        floor = exact_floor if (x.exact and exact_floor is not None) else POSITIVE_MIN
        _inside(name, x, floor, math.inf, "domain and conditioning")
        return f(x)

    return rule


def _bounded(name: str, limit: Callable[[ValueInfo], float], f: Callable[[ValueInfo], Bounds], why: str) -> Rule:
    def rule(x: ValueInfo, at: dict) -> Bounds:
        lim = limit(x)
        _inside(name, x, -lim, lim, why)
        return f(x)

    return rule


def _anywhere(f: Callable[[ValueInfo], Bounds]) -> Rule:
    return lambda x, at: f(x)


LOG = smooth(function("log", "log", _f64(np.log), FLOATS, _positive("log", _increasing(math.log)),
               targets=lambda dtype: POSITIVE_TARGETS, shifts=(0.25, 1.0)))
SQRT = function("sqrt", "sqrt", _f64(np.sqrt), FLOATS, _positive("sqrt", _increasing(math.sqrt), exact_floor=0.0),
                targets=lambda dtype: [(0.0, 4.0), *POSITIVE_TARGETS], shifts=(0.25, 1.0))
# Smooth where its operand keeps POSITIVE_MIN away from 0, as an inexact one must: an exact one
# may reach 0, where the slope is unbounded.
SQRT = smooth(SQRT, kinks=lambda args: "" if args[0].lo >= POSITIVE_MIN else
              f"sqrt's slope is unbounded near 0, and its operand's range starts at {args[0].lo:g}")
RSQRT = function("rsqrt", "rsqrt", _f64(lambda x: 1 / np.sqrt(x)), FLOATS,
                 _positive("rsqrt", _decreasing(lambda v: 1 / math.sqrt(v))),
                 targets=lambda dtype: POSITIVE_TARGETS, shifts=(0.25, 1.0))
SIN = smooth(function("sin", "sin", _f64(np.sin), FLOATS,
               _bounded("sin", lambda x: TRIG_LIMIT[x.dtype], _wave(math.sin, math.pi / 2), "argument magnitude"),
               targets=lambda dtype: [(-4.0, 4.0), (-1.0, 1.0), (0.0, 3.0)]))
COS = smooth(function("cos", "cos", _f64(np.cos), FLOATS,
               _bounded("cos", lambda x: TRIG_LIMIT[x.dtype], _wave(math.cos, 0.0), "argument magnitude"),
               targets=lambda dtype: [(-4.0, 4.0), (-1.0, 1.0), (0.0, 3.0)]))
ERF = function("erf", "erf", _f64(_erf), FLOATS, _anywhere(_increasing(math.erf)))
TAN = function("tan", "tan", _f64(np.tan), FLOATS,
               _bounded("tan", lambda x: TAN_LIMIT, _increasing(math.tan), "far from the poles at +-pi/2"),
               targets=lambda dtype: [(-1.0, 1.0), (-0.5, 0.5), (0.0, 1.125)],
               notes="Drawn with |x| <= 1.25 only (tan is ill-conditioned near pi/2).")
ATANH = function("atanh", "atanh", _f64(np.arctanh), FLOATS,
                 _bounded("atanh", lambda x: ATANH_LIMIT, _increasing(math.atanh), "domain (-1, 1), conditioning"),
                 targets=lambda dtype: [(-0.75, 0.75), (-0.5, 0.5), (0.0, 0.875)])
ATAN = function("atan", "atan", _f64(np.arctan), NO_FLOAT16, _anywhere(_increasing(math.atan)),
                notes="Not float16: LLVM codegen fails (tirx.atan).")
ASINH = function("asinh", "asinh", _f64(np.arcsinh), NO_FLOAT16, _anywhere(_increasing(math.asinh)),
                 notes="Not float16: LLVM codegen fails (tirx.asinh).")


def _arc(name: str, f: Callable[[ValueInfo], Bounds]) -> Rule:
    def rule(x: ValueInfo, at: dict) -> Bounds:
        _inside(name, x, -1.0 if x.exact else -ARC_LIMIT, 1.0 if x.exact else ARC_LIMIT,
                "domain [-1, 1]; inexact operands stay away from +-1, where the derivative is infinite")
        return f(x)

    return rule


ARC_TARGETS = lambda dtype: [(-0.75, 0.75), (-0.5, 0.5), (0.0, 0.875)]  # noqa: E731
ASIN = function("asin", "asin", _f64(np.arcsin), NO_FLOAT16, _arc("asin", _increasing(math.asin)), targets=ARC_TARGETS,
                notes="Not float16: LLVM codegen fails (tirx.asin).")
ACOS = function("acos", "acos", _f64(np.arccos), NO_FLOAT16, _arc("acos", _decreasing(math.acos)), targets=ARC_TARGETS,
                notes="Not float16: LLVM codegen fails (tirx.acos).")
HYPERBOLIC_TARGETS = lambda dtype: [(-4.0, 4.0), (-1.0, 1.0), (0.0, 8.0)]  # noqa: E731
SINH = function("sinh", "sinh", _f64(np.sinh), NO_FLOAT16,
                _bounded("sinh", lambda x: HYPERBOLIC_LIMIT, _increasing(math.sinh), "bounded result"),
                targets=HYPERBOLIC_TARGETS, notes="Not float16: LLVM codegen fails (tirx.sinh).")
COSH = function("cosh", "cosh", _f64(np.cosh), NO_FLOAT16,
                _bounded("cosh", lambda x: HYPERBOLIC_LIMIT, _even_min(math.cosh, 1.0), "bounded result"),
                targets=HYPERBOLIC_TARGETS, notes="Not float16: LLVM codegen fails (tirx.cosh).")


def _acosh_rule(x: ValueInfo, at: dict) -> Bounds:
    _inside("acosh", x, 1.0 if x.exact else ACOSH_MIN, math.inf,
            "domain x >= 1; inexact operands stay away from 1, where the derivative is infinite")
    return math.acosh(x.lo), math.acosh(x.hi)


ACOSH = function("acosh", "acosh", _f64(np.arccosh), NO_FLOAT16, _acosh_rule,
                 targets=lambda dtype: [(1.25, 4.0), (1.5, 8.0), (2.0, 3.0)], shifts=(1.25, 2.0),
                 notes="Not float16: LLVM codegen fails (tirx.acosh).")

# -- activations (relax.op.nn.*) -------------------------------------------------------------------


def _leakyrelu_attrs(at: dict) -> None:
    alpha = at["alpha"]
    require(isinstance(alpha, float) and 0.0 <= alpha <= 1.0, "leakyrelu's alpha must be a float in [0, 1]")


def _leaky(v: float, alpha: float) -> float:
    return v if v > 0 else alpha * v  # increasing for alpha >= 0


def _leakyrelu_ref(args: list[np.ndarray], at: dict) -> np.ndarray:
    (x,) = args
    return np.where(x > 0, x, x * np.asarray(at["alpha"], dtype=x.dtype)).astype(x.dtype)


# softplus legalizes to select(beta * x > threshold, x, log(1 + exp(beta * x)) / beta), with exp in
# the operand's dtype: beta * x must keep exp finite. The threshold must be large enough that the
# jump there (log1p(exp(-threshold)) / beta) stays far below the tolerance.
SOFTPLUS_LIMIT = {"float32": 80.0, "float16": 10.0, "bfloat16": 80.0, "float64": 80.0}
SOFTPLUS_THRESHOLD_MIN = 16.0


def _softplus_attrs(at: dict) -> None:
    beta, threshold = at["beta"], at["threshold"]
    require(isinstance(beta, float) and 0.125 <= beta <= 8.0, "softplus's beta must be a float in [0.125, 8]")
    require(isinstance(threshold, float) and SOFTPLUS_THRESHOLD_MIN <= threshold <= 80.0,
            f"softplus's threshold must be a float in [{SOFTPLUS_THRESHOLD_MIN:g}, 80] (else it jumps)")


def _softplus_rule(x: ValueInfo, at: dict) -> Bounds:
    beta = at["beta"]
    limit = SOFTPLUS_LIMIT[x.dtype]
    require(beta * x.hi <= limit, f"softplus: exp(beta * x) may overflow {x.dtype} (beta * x above {limit:g})")
    return _softplus(x.lo, beta), _softplus(x.hi, beta)


def _softplus_ref(args: list[np.ndarray], at: dict) -> np.ndarray:
    (x,) = args
    z = at["beta"] * x.astype("float64")
    smooth = (np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z)))) / at["beta"]
    return np.where(z > at["threshold"], x.astype("float64"), smooth).astype(x.dtype)


SILU = smooth(function("silu", "nn.silu", _f64(lambda x: x / (1 + np.exp(-x))), FLOATS, _anywhere(_dip(_silu, SILU_MIN))))
GELU = function("gelu", "nn.gelu", _f64(lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2.0)))), FLOATS,
                _anywhere(_dip(_gelu, GELU_MIN)), noise=lambda x: max(1.0, x.magnitude),
                notes="float16 computes erf in float32.")
GELU_TANH = function("gelu_tanh", "nn.gelu_tanh",
                     _f64(lambda x: 0.5 * x * (1 + np.tanh(GELU_TANH_C * (x + 0.044715 * x ** 3)))), FLOATS,
                     _anywhere(_dip(_gelu_tanh, GELU_TANH_MIN)), noise=lambda x: max(1.0, x.magnitude),
                     notes="The tanh approximation of gelu.")
SOFTPLUS = function("softplus", "nn.softplus", _softplus_ref, FLOATS, _softplus_rule,
                    attrs={"beta": [1.0, 0.5, 2.0], "threshold": [20.0]}, check_attrs=_softplus_attrs,
                    targets=lambda dtype: [(-4.0, 4.0), (-1.0, 1.0)], noise=lambda x: 4.0,
                    notes="Linear (x) where beta * x > threshold; exp is computed in the operand's dtype, so "
                          "float16 overflows past beta * x = 11 (never drawn).")
LEAKYRELU = function("leakyrelu", "nn.leakyrelu", _leakyrelu_ref, FLOATS,
                     lambda x, at: (_leaky(x.lo, at["alpha"]), _leaky(x.hi, at["alpha"])),
                     attrs={"alpha": [0.01, 0.1, 0.2]}, check_attrs=_leakyrelu_attrs,
                     notes="alpha is rounded to the operand's dtype.")
SELU = function("selu", "nn.selu", _f64(lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x))),
                FLOATS, _anywhere(_increasing(_selu)), noise=lambda x: 2.0)

OPS: list[OpDef] = [RELU6, SQUARE, SIGN, FLOOR, CEIL, ROUND, TRUNC, SQRT, LOG, RSQRT, SIN, COS, ERF, TAN, ATANH,
                    ATAN, ASINH, ASIN, ACOS, SINH, COSH, ACOSH, SILU, GELU, GELU_TANH, SOFTPLUS, LEAKYRELU, SELU]

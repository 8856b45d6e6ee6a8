"""Elementwise functions (passfuzz/ir/catalogue/functions.py): float functions, rounding and sign, square,
activations. The rules reject operands outside the domain (or too badly conditioned), inexact operands of
discontinuous functions, overflow and unsupported dtypes; their ranges contain every value the references
compute for operands inside the operand ranges; propose never builds an invalid node."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from passfuzz.ir.catalogue import BY_NAME, ValueInfo
from passfuzz.ir.catalogue.base import OpError
from passfuzz.ir.catalogue.functions import OPS as FUNCTIONS
from passfuzz.ir.graph import ProgramSketch, analyse, evaluate_all
from strategies import relax_programs

from .catalogue_support import TurnChooser

F = lambda lo=-4, hi=4, dtype="float32", exact=True, shape=(2,): ValueInfo(shape, dtype, lo, hi, exact)  # noqa: E731
I = lambda lo, hi, dtype="int32", shape=(2,): ValueInfo(shape, dtype, lo, hi, True)  # noqa: E731,E741
B = lambda lo=0, hi=1, shape=(2,): ValueInfo(shape, "bool", lo, hi, True)  # noqa: E731

NAMES = [op.name for op in FUNCTIONS]
DEFAULT_ATTRS = {"leakyrelu": {"alpha": 0.1}, "softplus": {"beta": 1.0, "threshold": 20.0}}


def infer(op, x, **attrs):
    return BY_NAME[op].infer([x], attrs or DEFAULT_ATTRS.get(op, {}))


def ref(op, array, **attrs):
    return BY_NAME[op].reference([array], attrs or DEFAULT_ATTRS.get(op, {}))


def grid(info: ValueInfo, n: int = 257) -> np.ndarray:
    if info.dtype == "bool":
        return np.arange(int(info.lo), int(info.hi) + 1).astype(bool)
    if info.dtype.startswith(("int", "uint")):
        return np.arange(int(info.lo), int(info.hi) + 1).astype(info.dtype)
    points = np.linspace(info.lo, info.hi, n).astype(info.dtype)
    # keep the points the dtype rounded outside the range out; add the exact ends and zero when inside
    points = points[(points >= info.lo) & (points <= info.hi)]
    extra = [v for v in (info.lo, info.hi, 0.0, -0.0, 0.5, -0.5, 2.5, -2.5) if info.lo <= v <= info.hi]
    return np.concatenate([points, np.array(extra, info.dtype)])


def assert_range_holds(op, x: ValueInfo, **attrs):
    """The result interval contains the reference at every grid point of the operand range."""
    out = infer(op, x, **attrs)
    got = ref(op, grid(x), **attrs)
    assert got.dtype == np.dtype(out.dtype) and out.shape == x.shape
    values = got.astype("float64")
    assert np.all(np.isfinite(values)), (op, x)
    assert out.lo <= values.min() and values.max() <= out.hi, (op, x, out, values.min(), values.max())
    return out


# -- dtypes -----------------------------------------------------------------------------------------------

FLOAT32_ONLY = ["asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh"]
FLOAT_ONLY = ["log", "sqrt", "rsqrt", "sin", "cos", "erf", "tan", "atanh", "silu", "gelu", "gelu_tanh", "softplus",
              "leakyrelu", "selu", *FLOAT32_ONLY]


@pytest.mark.parametrize("op", FLOAT_ONLY)
def test_float_functions_reject_integers_and_bool(op):
    for x in (I(1, 2), I(1, 2, "int64"), I(1, 2, "int8"), I(1, 2, "uint8"), B(1, 1)):
        with pytest.raises(OpError, match="does not support"):
            infer(op, x)
        assert not BY_NAME[op].accepts(x)


@pytest.mark.parametrize("op", FLOAT32_ONLY)
def test_functions_that_fail_float16_codegen_are_float32_only(op):
    x = F(1.25, 2, "float16") if op == "acosh" else F(0.25, 0.5, "float16")
    with pytest.raises(OpError, match="float16"):
        infer(op, x)
    infer(op, F(x.lo, x.hi))


def test_rounding_sign_square_and_relu6_dtypes():
    for op in ["floor", "ceil", "round", "trunc"]:
        for x in (I(-128, 127, "int8"), I(0, 255, "uint8"), I(-8, 8, "int64"), B()):
            out = infer(op, x)
            assert (out.dtype, out.lo, out.hi, out.exact) == (x.dtype, x.lo, x.hi, True)  # the identity
    for x in (I(0, 3, "uint8"), B()):
        with pytest.raises(OpError, match="does not support"):
            infer("sign", x)  # LegalizeOps: "cannot make uint from negative value -1"
    assert infer("sign", I(-3, 5, "int8")).exact
    with pytest.raises(OpError, match="does not support"):
        infer("square", B())
    with pytest.raises(OpError, match="does not support"):
        infer("relu6", B())
    assert infer("relu6", I(0, 255, "uint8")).hi == 6


# -- domains and conditioning --------------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["log", "rsqrt"])
def test_log_and_rsqrt_need_an_operand_away_from_zero(op):
    for lo in (-1.0, 0.0, 0.1, 0.19):
        with pytest.raises(OpError, match="leaves"):
            infer(op, F(lo, 4))
    assert_range_holds(op, F(0.2, 4))
    assert_range_holds(op, F(0.25, 1e4, "float16", exact=False))


def test_sqrt_allows_zero_only_for_exact_operands():
    assert infer("sqrt", F(0, 4)).lo == pytest.approx(0, abs=1e-5)
    with pytest.raises(OpError, match="leaves"):
        infer("sqrt", F(-1e-3, 4))
    with pytest.raises(OpError, match="leaves"):
        infer("sqrt", F(0, 4, exact=False))  # sqrt'(0) is infinite: a rounding difference explodes
    assert_range_holds("sqrt", F(0.2, 16, exact=False))


def test_inverse_trig_and_hyperbolic_domains():
    for op in ("asin", "acos"):
        assert_range_holds(op, F(-1, 1))
        with pytest.raises(OpError, match="leaves"):
            infer(op, F(-1, 1.001))
        with pytest.raises(OpError, match="leaves"):
            infer(op, F(-1, 1, exact=False))
        assert_range_holds(op, F(-0.9, 0.9, exact=False))
    acos = infer("acos", F(-1, 1))
    assert acos.lo <= 0 and acos.hi >= math.pi
    assert_range_holds("acosh", F(1, 1e6))
    with pytest.raises(OpError, match="leaves"):
        infer("acosh", F(0.99, 2))
    with pytest.raises(OpError, match="leaves"):
        infer("acosh", F(1, 2, exact=False))
    assert_range_holds("acosh", F(1.2, 2, exact=False))
    with pytest.raises(OpError, match="leaves"):
        infer("atanh", F(-1, 0.5))
    with pytest.raises(OpError, match="leaves"):
        infer("atanh", F(-0.5, 0.95, "float16"))
    assert_range_holds("atanh", F(-0.9, 0.9, "float16"))
    for op in ("sinh", "cosh"):
        with pytest.raises(OpError, match="leaves"):
            infer(op, F(-1, 10.5))
        assert_range_holds(op, F(-10, 10))


def test_tan_stays_away_from_its_poles():
    for bounds in ((-1.6, 0), (0, 1.5), (-1.3, 1.3)):
        with pytest.raises(OpError, match="leaves"):
            infer("tan", F(*bounds))
    out = assert_range_holds("tan", F(-1.25, 1.25, "float16"))
    assert out.hi >= math.tan(1.25) and out.lo <= -math.tan(1.25)


def test_sin_and_cos_bound_the_argument_and_their_range():
    with pytest.raises(OpError, match="leaves"):
        infer("sin", F(-17, 0))
    with pytest.raises(OpError, match="leaves"):
        infer("cos", F(-4.5, 0, "float16"))
    whole = infer("sin", F(-4, 4))
    assert whole.lo == pytest.approx(-1, rel=1e-4) and whole.hi == pytest.approx(1, rel=1e-4)
    # narrow intervals are bounded tightly: sin rises on [0, 1.5], cos falls on [0.5, 3]
    rising = infer("sin", F(0, 1.5))
    assert rising.hi == pytest.approx(math.sin(1.5), rel=1e-5) and rising.hi < 0.9999
    falling = infer("cos", F(0.5, 3))
    assert falling.hi == pytest.approx(math.cos(0.5), rel=1e-5)
    assert falling.lo == pytest.approx(math.cos(3), rel=1e-5) and falling.lo > -0.999
    # an interior extremum is found: sin's maximum at pi/2, cos's minimum at pi, maximum at 2 pi
    assert infer("sin", F(1, 2)).hi >= 1
    assert infer("cos", F(3, 3.5)).lo <= -1
    assert infer("cos", F(6, 6.5)).hi >= 1
    assert infer("sin", F(-2, -1)).lo <= -1
    for dtype in ("float32", "float16"):
        for lo, hi in [(-4, 4), (0, 1.5), (1, 2), (3, 3.5), (-3.9, -1.2), (0.5, 0.5), (2.5, 3.9), (-1, 0)]:
            for op in ("sin", "cos"):
                assert_range_holds(op, F(lo, hi, dtype))
        for lo, hi in [(-16, 16), (5, 11), (12.5, 15.5)]:
            if dtype == "float32":
                assert_range_holds("sin", F(lo, hi))
                assert_range_holds("cos", F(lo, hi))


def test_softplus_keeps_exp_finite_and_a_smooth_threshold():
    with pytest.raises(OpError, match="overflow"):
        infer("softplus", F(-4, 11, "float16"))
    with pytest.raises(OpError, match="overflow"):
        infer("softplus", F(-4, 6, "float16"), beta=2.0, threshold=20.0)
    assert_range_holds("softplus", F(-4, 20, "float16"), beta=0.5, threshold=20.0)
    assert_range_holds("softplus", F(-100, 80))
    with pytest.raises(OpError, match="overflow"):
        infer("softplus", F(-4, 81))
    with pytest.raises(OpError, match="threshold"):
        infer("softplus", F(), beta=1.0, threshold=2.0)  # the select would jump by log1p(exp(-2))
    with pytest.raises(OpError, match="beta"):
        infer("softplus", F(), beta=0.0, threshold=20.0)
    with pytest.raises(OpError, match="attributes"):
        infer("softplus", F(), beta=1.0)
    assert infer("softplus", F(-4, 4)).lo > 0


def test_leakyrelu_alpha_is_validated_and_rounded_to_the_dtype():
    for alpha in (-0.1, 1.5, 1, "0.1", None):
        with pytest.raises(OpError, match="alpha"):
            infer("leakyrelu", F(), alpha=alpha)
    out = assert_range_holds("leakyrelu", F(-4, 2), alpha=0.2)
    assert out.lo == pytest.approx(-0.8, rel=1e-5) and out.hi == pytest.approx(2, rel=1e-5) and not out.exact
    got = ref("leakyrelu", np.array([-1.0, 3.0], "float16"), alpha=0.01)
    assert got.dtype == np.float16 and got.tolist() == [-np.float16(0.01), 3.0]


# -- discontinuous functions -----------------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["floor", "ceil", "round", "trunc", "sign"])
def test_discontinuous_functions_need_exact_floats(op):
    for dtype in ("float32", "float16"):
        with pytest.raises(OpError, match="inexact"):
            infer(op, F(-4, 4, dtype, exact=False))
        assert not BY_NAME[op].accepts(F(-4, 4, dtype, exact=False))
        assert BY_NAME[op].accepts(F(-4, 4, dtype))
        out = assert_range_holds(op, F(-3.7, 5.2, dtype))
        assert out.exact


def test_rounding_ranges_are_tight_and_semantics_follow_relax():
    approx = lambda v: pytest.approx(v, abs=1e-5)  # noqa: E731
    assert (infer("floor", F(-3.5, 2.5)).lo, infer("floor", F(-3.5, 2.5)).hi) == (approx(-4), approx(2))
    assert (infer("ceil", F(-3.5, 2.5)).lo, infer("ceil", F(-3.5, 2.5)).hi) == (approx(-3), approx(3))
    assert (infer("round", F(-2.5, 2.5)).lo, infer("round", F(-2.5, 2.5)).hi) == (approx(-2), approx(2))
    assert (infer("trunc", F(-3.5, 2.5)).lo, infer("trunc", F(-3.5, 2.5)).hi) == (approx(-3), approx(2))
    assert (infer("sign", F(0, 4)).lo, infer("sign", F(0, 4)).hi) == (0, approx(1))
    assert (infer("sign", F(0.5, 4)).lo, infer("sign", I(-8, -1)).hi) == (approx(1), -1)
    halves = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], "float16")
    assert ref("round", halves).tolist() == [-2, -2, -0, 0, 2, 2]  # half to even
    assert not np.signbit(ref("sign", np.array([-0.0], "float32"))[0])  # Relax: sign(-0.0) = +0.0
    for dtype in ("int8", "uint8", "int64"):
        ints = np.array([0, 5, 127], dtype)
        for op in ("floor", "ceil", "round", "trunc"):
            got = ref(op, ints)
            assert got.dtype == np.dtype(dtype) and got.tolist() == [0, 5, 127]
    assert ref("floor", np.array([True, False])).dtype == np.bool_


# -- square ----------------------------------------------------------------------------------------------------


def test_square_checks_overflow_and_bounds_through_zero():
    assert (infer("square", I(-11, 11, "int8")).lo, infer("square", I(-11, 11, "int8")).hi) == (0, 121)
    with pytest.raises(OpError, match="overflow"):
        infer("square", I(-12, 3, "int8"))
    with pytest.raises(OpError, match="overflow"):
        infer("square", I(0, 16, "uint8"))
    with pytest.raises(OpError, match="overflow"):
        infer("square", I(-2 ** 16, 0, "int32"))
    with pytest.raises(OpError, match="overflow"):
        infer("square", F(-101, 4, "float16"))
    assert infer("square", I(-3, -2)).lo == 4 and infer("square", I(-3, -2)).exact
    assert not infer("square", F(-1, 2)).exact
    for x in (I(-11, 11, "int8"), I(0, 15, "uint8"), I(2, 9), F(-3, 5), F(-4, -1, "float16"),
              F(0.5, 90, "float16")):
        assert_range_holds("square", x)


# -- ranges of every function, exactness --------------------------------------------------------------------------

RANGES = {
    "relu6": [(-4, 4), (-8, -1), (2, 9)], "sqrt": [(0, 4), (1, 1e4)], "log": [(0.2, 4), (0.5, 1e4)],
    "rsqrt": [(0.2, 4), (2, 1e4)], "erf": [(-4, 4), (-1e4, 0.1), (0.5, 1)], "tan": [(-1.25, 1.25), (0, 0.5)],
    "atanh": [(-0.9, 0.9), (0.25, 0.75)], "atan": [(-1e12, 1e12), (-4, 0.5)], "asinh": [(-1e12, 1e12), (0.5, 4)],
    "asin": [(-1, 1), (0, 0.5)], "acos": [(-1, 1), (-0.75, 0.25)], "sinh": [(-10, 10), (-2, -1)],
    "cosh": [(-10, 10), (-3, -1), (2, 3)], "acosh": [(1, 4), (2, 1e6)],
    "silu": [(-1e4, 1e4), (-4, 4), (-4, -2), (-1, 3), (2, 3)], "gelu": [(-1e4, 1e4), (-4, 4), (-4, -1), (-0.5, 2)],
    "gelu_tanh": [(-1e4, 1e4), (-4, 4), (-4, -1), (-0.5, 2)], "softplus": [(-1e4, 10), (-4, 4), (1, 2)],
    "leakyrelu": [(-1e4, 1e4), (-4, -1), (1, 3)], "selu": [(-1e4, 1e4), (-4, 4), (-4, -1), (1, 3)],
}


@pytest.mark.parametrize("op", sorted(RANGES))
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_ranges_hold_for_every_function(op, dtype):
    if dtype == "float16" and op in FLOAT32_ONLY:
        return
    for lo, hi in RANGES[op]:
        if dtype == "float16":  # results near the float16 limit (1e4) are refused
            lo, hi = max(lo, -4e3), min(hi, 4e3)
        out = assert_range_holds(op, F(lo, hi, dtype))
        assert out.exact == (op == "relu6")


@pytest.mark.parametrize("op", ["silu", "gelu", "gelu_tanh"])
def test_activation_minima_are_inside_the_range(op):
    out = infer(op, F(-4, 4))
    minimum = {"silu": -0.278464542, "gelu": -0.169971207, "gelu_tanh": -0.170040750}[op]
    assert minimum - 1e-5 < out.lo <= minimum
    assert infer(op, F(0, 4)).lo == pytest.approx(0, abs=1e-4)


def test_cosh_is_bounded_below_by_one_through_zero():
    out = infer("cosh", F(-1, 2))
    assert out.lo == pytest.approx(1, rel=1e-5) and out.hi == pytest.approx(math.cosh(2), rel=1e-5)
    assert infer("cosh", F(-3, -1)).lo == pytest.approx(math.cosh(1), rel=1e-5)


def test_float_results_are_inexact_exact_ones_stay_exact():
    for op in FLOAT_ONLY:
        x = F(1.25, 2) if op == "acosh" else F(0.25, 0.5)
        assert not infer(op, x).exact
    assert infer("relu6", F(-4, 8)).exact and not infer("relu6", F(-4, 8, exact=False)).exact
    assert infer("floor", F(-4, 8)).exact


# -- propose --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("op", NAMES)
def test_propose_routes_any_operand_into_the_domain(op):
    routed = set()
    for turn in range(24):
        for dtype, lo, hi in [("float32", -4, 4), ("float16", -4e3, 4e3), ("int8", -128, 127), ("uint8", 0, 255)]:
            sketch = ProgramSketch(TurnChooser(turn, high_arrays=True))
            sketch.add_param((2, 3), dtype, lo, hi)
            if dtype.startswith("float"):
                sketch.add("add", [0, 0])  # an inexact value, out of most domains
            if not BY_NAME[op].applicable(sketch):
                continue
            before = len(sketch.values)
            BY_NAME[op].propose(sketch, TurnChooser(turn, high_arrays=True))  # sketch.add re-runs infer: raises if invalid
            assert sketch.values[-1].op == op
            routed |= {getattr(v, "op", "param") for v in sketch.values[before:-1]}
    if op in ("log", "sqrt", "rsqrt", "acosh"):
        assert {"clip", "abs", "add"} <= routed, routed
    elif op in ("asin", "acos", "atanh", "tan", "sin", "cos", "sinh", "cosh", "square", "softplus"):
        assert "clip" in routed, routed


def test_propose_never_feeds_an_inexact_float_to_a_discontinuous_function():
    sketch = ProgramSketch(TurnChooser(0, high_arrays=True))
    sketch.add_param((2,), "float32", -4, 4)
    sketch.add("add", [0, 0])
    sketch.infos[0] = F(-4, 4, exact=False)  # the only values are inexact
    assert all(not info.exact for info in sketch.infos)
    for op in ("floor", "ceil", "round", "trunc", "sign"):
        assert not BY_NAME[op].applicable(sketch)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(relax_programs(ops=NAMES, max_nodes=6))
def test_drawn_programs_are_valid_and_stay_in_range(program):
    infos = analyse(program)
    values = evaluate_all(program)
    for info, value in zip(infos, values):
        array = value.astype("float64")
        assert np.all(np.isfinite(array))
        assert info.lo <= array.min() and array.max() <= info.hi

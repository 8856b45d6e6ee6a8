"""Reductions, softmaxes, scans and orderings: the rules reject what they must, and shapes,
ranges and exactness propagate."""

import math

import numpy as np
import pytest

from passfuzz.ir.catalogue import BY_NAME
from passfuzz.ir.catalogue.base import OpError
from passfuzz.ir.catalogue.reduction import power_bounds, product_bounds

from .catalogue_support import F, TurnChooser, approx, infer, ref

# -- reductions with axis lists, None and keepdims ----------------------------------------------------

@pytest.mark.parametrize("op", ["sum", "max", "min", "mean", "prod", "std", "variance"])
def test_axis_lists_none_negative_and_keepdims_shape_the_result(op):
    x = F((2, 3, 4), 1, 2)
    assert infer(op, x, axis=None, keepdims=False).shape == ()
    assert infer(op, x, axis=None, keepdims=True).shape == (1, 1, 1)
    assert infer(op, x, axis=[0, 2], keepdims=False).shape == (3,)
    assert infer(op, x, axis=[-1], keepdims=True).shape == (2, 3, 1)
    for bad in ([3], [0, -3], []):
        with pytest.raises(OpError):
            infer(op, x, axis=bad, keepdims=False)
    with pytest.raises(OpError):
        infer(op, F((2, 3), dtype="bool", lo=0, hi=1), axis=None, keepdims=False)
    got = ref(op, np.ones((2, 3, 4), "float32"), axis=[0, -1], keepdims=True)
    assert got.shape == (1, 3, 1) and got.dtype == np.float32


def test_sum_scales_with_the_reduced_count_only():
    total = infer("sum", F((2, 3, 4), -1, 2, "int32"), axis=[0, 2], keepdims=False)
    assert (total.lo, total.hi, total.exact) == (-8, 16, True)
    with pytest.raises(OpError, match="overflow"):
        infer("sum", F((4, 4), 0, 8, "int8"), axis=None, keepdims=False)
    assert infer("sum", F((4, 4), 0, 7, "int8"), axis=[1], keepdims=False).hi == 28


def test_max_and_min_keep_range_and_exactness():
    m = infer("min", F((3, 4), -2, 3), axis=[1], keepdims=False)
    assert (m.lo, m.hi, m.exact) == (approx(-2), approx(3), True)
    assert not infer("min", F((3, 4), exact=False), axis=None, keepdims=False).exact
    assert infer("max", F((3, 4), 0, 200, "uint8"), axis=None, keepdims=False).hi == 200


def test_power_bounds_take_the_extremes_of_every_vertex_without_visiting_them():
    for lo, hi in [(-2, 3), (-3, -1), (0, 2), (-2, 0), (-0.5, 0.25), (1.5, 2), (-1, 1), (0, 0)]:
        for n in range(0, 9):
            every = [lo ** j * hi ** (n - j) for j in range(n + 1)]
            assert power_bounds(lo, hi, n) == (min(every), max(every)), (lo, hi, n)
    assert power_bounds(-0.5, 0.5, 2_000_000) == (-(0.5 ** 2_000_000), 0.5 ** 2_000_000)  # at once


def test_power_bounds_are_the_vertex_extremes():
    assert power_bounds(-2, 3, 3) == (-18, 27)  # -2 * 3 * 3 and 3 ** 3
    assert power_bounds(-3, -1, 2) == (1, 9)
    assert power_bounds(-3, -1, 3) == (-27, -1)
    assert power_bounds(0.5, 2, 0) == (1, 1)
    assert product_bounds(-2, 1, [0, 1, 2]) == (-2, 4)
    with pytest.raises(OpError, match="overflow"):  # past float64: an OpError, not an OverflowError
        power_bounds(-1e12, 1e12, 64)
    with pytest.raises(OpError, match="overflow"):
        infer("cumprod", F((64,), -1e6, 1e6), axis=0, exclusive=False)
    rng = np.random.default_rng(0)  # brute force: every product of values in the box lies inside
    for lo, hi, n in [(-2, 3, 3), (-3, 1, 4), (-1, 1, 5), (-4, -2, 3)]:
        low, high = power_bounds(lo, hi, n)
        samples = np.prod(rng.uniform(lo, hi, size=(2000, n)), axis=1)
        assert low <= samples.min() and samples.max() <= high


def test_prod_rejects_overflow_of_any_partial_product():
    p = infer("prod", F((2, 3), -2, 3, "int32"), axis=[1], keepdims=False)
    assert (p.lo, p.hi, p.exact) == (-18, 27, True)
    assert infer("prod", F((2, 2), -8, 8, "int8"), axis=[1], keepdims=False).hi == 64
    with pytest.raises(OpError, match="overflow"):
        infer("prod", F((2, 3), -8, 8, "int8"), axis=[1], keepdims=False)
    with pytest.raises(OpError, match="overflow"):
        infer("prod", F((4, 4, 4), 0, 4, "float16"), axis=None, keepdims=False)
    assert not infer("prod", F((2, 2), 1, 2), axis=None, keepdims=False).exact
    assert ref("prod", np.array([[2, -3], [1, 4]], "int8"), axis=None, keepdims=False).dtype == np.int8


def test_mean_checks_its_sum_in_the_operand_dtype():
    m = infer("mean", F((4, 4), -1, 3), axis=None, keepdims=False)
    assert (m.lo, m.hi, m.exact) == (approx(-1), approx(3), False)
    with pytest.raises(OpError, match="overflow"):  # the float16 sum of 64 values up to 500 passes 1e4
        infer("mean", F((4, 4, 4), 0, 500, "float16"), axis=None, keepdims=False)
    with pytest.raises(OpError):
        infer("mean", F((4,), 0, 8, "int32"), axis=None, keepdims=False)


def test_variance_and_std_are_float_only_and_bounded_by_the_magnitude():
    v = infer("variance", F((3, 4), 10, 11), axis=[1], keepdims=True)
    assert (v.shape, v.lo, v.hi, v.exact) == ((3, 1), 0.0, approx(121), False)
    s = infer("std", F((3, 4), -3, 2), axis=None, keepdims=False)
    assert (s.lo, s.hi, s.exact) == (0.0, approx(3), False)
    for op in ("variance", "std"):
        for dtype in ("int32", "int64", "int8", "uint8"):
            with pytest.raises(OpError):
                infer(op, F((3, 4), 0, 4, dtype), axis=None, keepdims=False)
        with pytest.raises(OpError, match="overflow"):  # magnitude ** 2 past float16's limit
            infer(op, F((2,), -200, 200, "float16"), axis=None, keepdims=False)
    got = ref("variance", np.array([[1, 3], [2, 2]], "float32"), axis=[1], keepdims=False)
    np.testing.assert_array_equal(got, np.array([1, 0], "float32"))
    np.testing.assert_allclose(ref("std", np.array([1, 3, 5, 7], "float16"), axis=None, keepdims=False),
                               np.sqrt(5.0), rtol=1e-3)


# -- argmax / argmin ---------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_arg_reductions_need_exact_operands_and_give_int64_indices(op):
    i = infer(op, F((2, 3, 4)), axis=1, keepdims=False)
    assert (i.shape, i.dtype, i.lo, i.hi, i.exact) == ((2, 4), "int64", 0, 2, True)
    assert infer(op, F((2, 3, 4)), axis=-1, keepdims=True).shape == (2, 3, 1)
    whole = infer(op, F((2, 3, 4)), axis=None, keepdims=True)
    assert (whole.shape, whole.hi) == ((1, 1, 1), 23)
    assert infer(op, F((2, 3), -8, 8, "int8"), axis=None, keepdims=False).shape == ()
    with pytest.raises(OpError, match="inexact"):
        infer(op, F((2, 3), exact=False), axis=0, keepdims=False)
    with pytest.raises(OpError):
        infer(op, F((2, 3)), axis=2, keepdims=False)
    with pytest.raises(OpError):
        infer(op, F((2, 3), 0, 1, "bool"), axis=0, keepdims=False)
    assert not BY_NAME[op].accepts(F((2, 3), exact=False))


def test_arg_reductions_declare_the_minus_one_tvm_starts_from():
    # TVM starts argmax at (dtype lowest, -1): a row of only that value gives -1 (measured on llvm).
    # Such operands are drawn, so the reference oracle sees the bug; -1 is in the declared range so
    # that nothing downstream can index with it.
    assert infer("argmax", F((2, 3), 0, 8, "uint8"), axis=0, keepdims=False).lo == -1
    assert infer("argmax", F((2, 3), 1, 8, "uint8"), axis=0, keepdims=False).lo == 0
    assert infer("argmin", F((2, 3), 0, 8, "uint8"), axis=0, keepdims=False).lo == 0
    assert infer("argmin", F((2, 3), 0, 255, "uint8"), axis=0, keepdims=False).lo == -1
    assert infer("argmax", F((2, 3), -128, 0, "int8"), axis=0, keepdims=False).lo == -1
    assert infer("argmax", F((2, 3), -2**31, 0, "int32"), axis=0, keepdims=False).lo == -1
    assert infer("argmax", F((2, 3), -4, 4, "float32"), axis=0, keepdims=False).lo == 0
    with pytest.raises(OpError, match="may leave"):  # a take cannot use an index that may be -1
        BY_NAME["take"].infer([F((3,)), infer("argmax", F((2, 3), 0, 2, "uint8"), axis=1, keepdims=False)],
                              {"axis": 0})


def test_arg_reduction_ties_pick_the_first_index():
    x = np.array([[3, 1, 3, 1], [2, 2, 0, 0]], "int32")
    np.testing.assert_array_equal(ref("argmax", x, axis=1, keepdims=False), [0, 0])
    np.testing.assert_array_equal(ref("argmin", x, axis=1, keepdims=False), [1, 2])
    assert ref("argmax", x, axis=None, keepdims=True).shape == (1, 1)
    assert ref("argmax", x, axis=None, keepdims=False).dtype == np.int64


# -- softmax / log_softmax ------------------------------------------------------------------------------

def test_log_softmax_range_covers_the_operand_magnitude():
    out = infer("log_softmax", F((2, 5), -1, 2), axis=-1)
    assert (out.shape, out.hi, out.exact) == ((2, 5), 0.0, False)
    assert out.lo == approx(-(3 + math.log(5)))
    narrow = infer("log_softmax", F((2, 4), 100, 101), axis=1)
    assert narrow.lo == approx(-(101 + math.log(4)))  # widened to the magnitude, not the width 1
    with pytest.raises(OpError):
        infer("log_softmax", F((2, 4), 0, 4, "int32"), axis=1)
    with pytest.raises(OpError):
        infer("log_softmax", F((2, 4)), axis=2)
    x = np.array([[0, 1, 2], [5, 5, 5]], "float32")
    got = ref("log_softmax", x, axis=-1)
    np.testing.assert_allclose(np.exp(got).sum(axis=-1), 1, rtol=1e-6)
    np.testing.assert_allclose(got[1], -math.log(3), rtol=1e-6)
    assert got.max() <= 0 and got.min() >= out.lo


# -- cumsum / cumprod -----------------------------------------------------------------------------------

def test_cumsum_ranges_shapes_and_exclusive():
    c = infer("cumsum", F((2, 3), -1, 2, "int32"), axis=1, exclusive=False)
    assert (c.shape, c.lo, c.hi, c.exact) == ((2, 3), -3, 6, True)
    e = infer("cumsum", F((2, 3), 1, 2, "int32"), axis=1, exclusive=True)
    assert (e.lo, e.hi) == (0, 4)  # exclusive starts at 0 and sums at most 2 elements
    assert infer("cumsum", F((2, 3, 4)), axis=None, exclusive=False).shape == (24,)
    assert not infer("cumsum", F((2, 3)), axis=0, exclusive=False).exact
    with pytest.raises(OpError, match="overflow"):
        infer("cumsum", F((4, 4), 0, 8, "int8"), axis=None, exclusive=False)
    with pytest.raises(OpError):
        infer("cumsum", F((2, 3)), axis=2, exclusive=False)
    with pytest.raises(OpError):
        infer("cumsum", F((2, 3), 0, 1, "bool"), axis=0, exclusive=False)
    x = np.array([[3, 1, 3, 1], [2, 2, 0, 2]], "int8")
    np.testing.assert_array_equal(ref("cumsum", x, axis=1, exclusive=True), [[0, 3, 4, 7], [0, 2, 4, 4]])
    np.testing.assert_array_equal(ref("cumsum", x, axis=None, exclusive=False), np.cumsum(x))
    assert ref("cumsum", x, axis=0, exclusive=False).dtype == np.int8


def test_cumprod_ranges_and_exclusive():
    c = infer("cumprod", F((2, 3), -2, 3, "int32"), axis=-1, exclusive=False)
    assert (c.lo, c.hi) == (-18, 27)
    e = infer("cumprod", F((2, 3), 2, 3, "int32"), axis=-1, exclusive=True)
    assert (e.lo, e.hi) == (1, 9)  # the empty product 1, then up to 3 * 3
    with pytest.raises(OpError, match="overflow"):
        infer("cumprod", F((2, 3), -8, 8, "int8"), axis=1, exclusive=False)
    infer("cumprod", F((2, 3), -8, 8, "int8"), axis=0, exclusive=False)
    x = np.array([[3, 1, 3, 1], [2, 2, 0, 2]], "uint8")
    np.testing.assert_array_equal(ref("cumprod", x, axis=1, exclusive=True), [[1, 3, 3, 9], [1, 2, 4, 0]])


# -- sort / argsort / topk --------------------------------------------------------------------------------

def test_sort_keeps_range_and_allows_inexact_floats():
    s = infer("sort", F((2, 3), -1, 2, exact=False), axis=-1, descending=True)
    assert (s.shape, s.lo, s.hi, s.exact) == ((2, 3), approx(-1), approx(2), False)
    assert infer("sort", F((2, 3), -8, 8, "int64"), axis=0, descending=False).exact
    for dtype in ("int8", "uint8", "bool"):  # run-time "Unsupported input dtype"
        with pytest.raises(OpError):
            infer("sort", F((2, 3), 0, 1, dtype), axis=0, descending=False)
    x = np.array([[3, 1, 3, 1], [2, 2, 0, 2]], "float32")
    np.testing.assert_array_equal(ref("sort", x, axis=1, descending=True), [[3, 3, 1, 1], [2, 2, 2, 0]])


def test_argsort_needs_exact_operands_and_is_stable_both_ways():
    a = infer("argsort", F((2, 3)), axis=0, descending=False, dtype="int32")
    assert (a.dtype, a.lo, a.hi, a.exact) == ("int32", 0, 1, True)
    assert infer("argsort", F((2, 3)), axis=-1, descending=True, dtype="int64").dtype == "int64"
    with pytest.raises(OpError, match="inexact"):
        infer("argsort", F((2, 3), exact=False), axis=0, descending=False, dtype="int32")
    with pytest.raises(OpError):
        infer("argsort", F((2, 3)), axis=0, descending=False, dtype="float32")
    with pytest.raises(OpError):
        infer("argsort", F((2, 3), -8, 8, "int8"), axis=0, descending=False, dtype="int32")
    x = np.array([[3, 1, 3, 1], [2, 2, 0, 2]], "int32")  # measured on llvm
    np.testing.assert_array_equal(ref("argsort", x, axis=1, descending=False, dtype="int32"),
                                  [[1, 3, 0, 2], [2, 0, 1, 3]])
    got = ref("argsort", x, axis=1, descending=True, dtype="int32")
    np.testing.assert_array_equal(got, [[0, 2, 1, 3], [0, 1, 3, 2]])
    assert got.dtype == np.int32
    u = np.array([0, 255, 0, 255], "uint8")  # no negation trick that would wrap
    np.testing.assert_array_equal(BY_NAME["topk"].reference([u], {"k": 4, "axis": 0, "largest": True,
                                                                  "dtype": "int32", "index": 1}), [1, 3, 0, 2])


def test_topk_values_and_indices():
    attrs = {"k": 2, "axis": -1, "largest": True, "dtype": "int32"}
    values = BY_NAME["topk"].infer([F((3, 4), -1, 2, exact=False)], {**attrs, "index": 0})
    assert (values.shape, values.dtype, values.lo, values.hi, values.exact) == \
        ((3, 2), "float32", approx(-1), approx(2), False)
    indices = BY_NAME["topk"].infer([F((3, 4), 0, 8, "uint8")], {**attrs, "index": 1})
    assert (indices.shape, indices.dtype, indices.lo, indices.hi) == ((3, 2), "int32", 0, 3)
    with pytest.raises(OpError, match="inexact"):
        BY_NAME["topk"].infer([F((3, 4), exact=False)], {**attrs, "index": 1})
    for k in (0, 5):
        with pytest.raises(OpError, match="k="):
            BY_NAME["topk"].infer([F((3, 4))], {**attrs, "k": k, "index": 0})
    with pytest.raises(OpError):
        BY_NAME["topk"].infer([F((3, 4))], {**attrs, "index": 2})
    x = np.array([[3, 1, 3, 1], [2, 2, 0, 2]], "int8")  # measured on llvm
    top = lambda **a: BY_NAME["topk"].reference([x], {**attrs, **a})  # noqa: E731
    np.testing.assert_array_equal(top(index=0), [[3, 3], [2, 2]])
    np.testing.assert_array_equal(top(index=1), [[0, 2], [0, 1]])
    np.testing.assert_array_equal(top(k=3, largest=False, index=1), [[1, 3, 0], [2, 0, 1]])
    np.testing.assert_array_equal(top(k=3, largest=False, index=0), [[1, 1, 3], [0, 2, 2]])
    assert top(index=0).dtype == np.int8 and top(index=1, dtype="int64").dtype == np.int64


# -- propose: every drawn node is valid, also when only some axes are --------------------------------------


@pytest.mark.parametrize("op", ["prod", "cumprod", "cumsum", "sum", "topk", "argsort", "argmax", "log_softmax"])
def test_propose_picks_only_valid_attributes(op):
    from passfuzz.ir.graph import ProgramSketch

    for turn in range(12):
        sketch = ProgramSketch(TurnChooser(turn))
        # int8 in [-8, 8]: a product of 3 may overflow, of 2 may not; float operands exact or not
        sketch.add_param((2, 3, 4), "int8", -8, 8)
        sketch.add_param((2, 3), "float32", -4, 4)
        sketch.add("add", [1, 1])  # inexact
        if not BY_NAME[op].applicable(sketch):
            continue
        BY_NAME[op].propose(sketch, TurnChooser(turn))  # sketch.add re-runs infer: raises if invalid
        node = sketch.values[-1]
        assert node.op == op
        if op in ("argsort", "argmax") or (op == "topk" and node.attrs["index"] == 1):
            assert sketch.infos[node.args[0]].exact


def test_median_is_the_lower_one_over_exactly_one_axis():
    median = BY_NAME["median"]
    x = np.array([[4, 1, 3, 2], [7, 7, 1, 1]], dtype="int64")
    assert median.reference([x], {"axis": [1], "keepdims": False}).tolist() == [2, 1]  # numpy: 2.5, 4
    assert median.reference([x], {"axis": [0], "keepdims": True}).shape == (1, 4)
    assert median.infer([F((2, 4), 1, 8, "int64")], {"axis": [-1], "keepdims": False}).shape == (2,)
    for axis in (None, [0, 1]):
        with pytest.raises(OpError, match="exactly one axis"):
            median.infer([F((2, 4))], {"axis": axis, "keepdims": False})
    with pytest.raises(OpError):
        median.infer([F((2, 4), 0, 4, "int32")], {"axis": [0], "keepdims": False})

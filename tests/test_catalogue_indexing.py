"""Index ops of the catalogue: their rules reject indices that may leave an axis, propagate
shapes and ranges, and their references model Relax (checked here against hand-computed values)."""

import numpy as np
import pytest

from passfuzz.ir.catalogue import BY_NAME, ValueInfo
from passfuzz.ir.catalogue.base import OpError
from passfuzz.ir.graph import ProgramSketch, analyse, evaluate
from passfuzz.ir.program import Program, ProgramError

from .catalogue_support import F

I = lambda shape, lo, hi, dtype="int64": ValueInfo(shape, dtype, lo, hi, True)  # noqa: E731


def infer(op, args, attrs):
    return BY_NAME[op].infer(args, attrs)


def ref(op, args, attrs):
    return BY_NAME[op].reference([np.asarray(a) for a in args], attrs)


# -- take ---------------------------------------------------------------------------------------

def test_take_without_mode_is_fast_and_checks_the_range():
    assert infer("take", [F((3, 4)), I((2,), 0, 3)], {"axis": 1}).shape == (3, 2)
    assert infer("take", [F((3, 4)), I((2,), 0, 3)], {"axis": 1, "mode": "fast"}).shape == (3, 2)
    for attrs in ({"axis": 1}, {"axis": 1, "mode": "fast"}):
        with pytest.raises(OpError, match="may leave"):
            infer("take", [F((3, 4)), I((2,), 0, 4)], attrs)
        with pytest.raises(OpError, match="may leave"):
            infer("take", [F((3, 4)), I((2,), -1, 2)], attrs)


def test_take_clip_and_wrap_accept_any_integer_index():
    for mode in ("clip", "wrap"):
        out = infer("take", [F((3, 4), -2, 5, "int32"), I((2, 2), -2**62, 2**62)], {"axis": 1, "mode": mode})
        assert (out.shape, out.lo, out.hi, out.exact) == ((3, 2, 2), -2, 5, True)
        with pytest.raises(OpError):  # still integers only
            infer("take", [F((3, 4)), F((2,), 0, 1)], {"axis": 1, "mode": mode})
    with pytest.raises(OpError, match="mode"):
        infer("take", [F((3, 4)), I((2,), 0, 1)], {"axis": 1, "mode": "nan"})
    with pytest.raises(OpError):
        infer("take", [F((3, 4)), I((2,), 0, 1)], {"axis": 1, "mode": "clip", "extra": 1})


def test_take_reference_modes():
    x = np.arange(12, dtype="float32").reshape(3, 4)
    i = np.array([-7, 0, 3, 9, 2**62], "int64")
    np.testing.assert_array_equal(ref("take", [x, i], {"axis": 1, "mode": "clip"})[0], [0, 0, 3, 3, 3])
    np.testing.assert_array_equal(ref("take", [x, i], {"axis": 1, "mode": "wrap"})[0], [1, 0, 3, 1, 0])
    np.testing.assert_array_equal(ref("take", [x, np.array([2, 0])], {"axis": 0}), x[[2, 0]])


def test_take_keeps_the_data_range_and_exactness():
    out = infer("take", [F((3, 4), -1, 2, exact=False), I((), 0, 2)], {"axis": 0, "mode": "wrap"})
    assert (out.shape, out.lo, out.hi, out.exact) == ((4,), pytest.approx(-1, rel=1e-5), pytest.approx(2, rel=1e-5),
                                                       False)


# -- gather_elements ----------------------------------------------------------------------------

def test_gather_elements_range_and_shapes():
    out = infer("gather_elements", [F((2, 3, 4), 0, 1, "int32"), I((1, 5, 3), 0, 2, "int8")], {"axis": 1})
    assert (out.shape, out.dtype, out.lo, out.hi) == ((1, 5, 3), "int32", 0, 1)
    with pytest.raises(OpError, match="may leave"):
        infer("gather_elements", [F((2, 3, 4)), I((2, 3, 4), 0, 3)], {"axis": 1})
    with pytest.raises(OpError, match="may leave"):
        infer("gather_elements", [F((2, 3, 4)), I((2, 3, 4), -1, 2)], {"axis": 1})
    with pytest.raises(OpError, match="exceed"):  # larger than data off the axis: reads outside
        infer("gather_elements", [F((2, 3, 4)), I((2, 3, 5), 0, 2)], {"axis": 1})
    with pytest.raises(OpError, match="rank"):
        infer("gather_elements", [F((2, 3, 4)), I((3, 4), 0, 1)], {"axis": 1})
    with pytest.raises(OpError, match="signed"):  # TVM rejects uint8 indices here (not in take/scatter)
        infer("gather_elements", [F((2, 3, 4)), I((2, 3, 4), 0, 2, "uint8")], {"axis": 1})
    with pytest.raises(OpError):
        infer("gather_elements", [F((2, 3)), F((2, 3), 0, 1)], {"axis": 1})


def test_gather_elements_reference_with_smaller_indices():
    x = np.arange(24).reshape(2, 3, 4)
    i = np.array([[[2, 0, 1], [1, 1, 0]]])  # shape (1, 2, 3): cropped off the axis
    got = ref("gather_elements", [x, i], {"axis": 1})
    want = np.array([[[x[0, 2, 0], x[0, 0, 1], x[0, 1, 2]], [x[0, 1, 0], x[0, 1, 1], x[0, 0, 2]]]])
    np.testing.assert_array_equal(got, want)


# -- gather_nd ----------------------------------------------------------------------------------

def test_gather_nd_shapes_and_index_bound():
    out = infer("gather_nd", [F((2, 3, 4)), I((5, 2), 0, 1)], {"batch_dims": 0})
    assert out.shape == (5, 4)
    assert infer("gather_nd", [F((2, 3, 4)), I((2, 2, 2), 0, 2)], {"batch_dims": 1}).shape == (2, 2)
    assert infer("gather_nd", [F((3,)), I((1,), 0, 2)], {"batch_dims": 0}).shape == ()
    with pytest.raises(OpError, match="may leave"):  # the tuple addresses dims of 2 and 3: bound 1
        infer("gather_nd", [F((2, 3, 4)), I((5, 2), 0, 2)], {"batch_dims": 0})
    with pytest.raises(OpError, match="int64"):
        infer("gather_nd", [F((2, 3, 4)), I((5, 2), 0, 1, "int32")], {"batch_dims": 0})
    with pytest.raises(OpError, match="batch"):
        infer("gather_nd", [F((2, 3, 4)), I((3, 1), 0, 1)], {"batch_dims": 1})
    with pytest.raises(OpError, match="tuple"):
        infer("gather_nd", [F((2, 3)), I((1, 3), 0, 1)], {"batch_dims": 0})
    with pytest.raises(OpError):
        infer("gather_nd", [F((2, 3)), I((1, 1), 0, 1)], {"batch_dims": 2})


def test_gather_nd_reference():
    data = np.array([[0, 1], [2, 3]])
    np.testing.assert_array_equal(ref("gather_nd", [data, np.array([[0, 0], [1, 1]])], {"batch_dims": 0}), [0, 3])
    data = np.arange(8).reshape(2, 2, 2)
    np.testing.assert_array_equal(ref("gather_nd", [data, np.array([[1], [0]])], {"batch_dims": 1}),
                                  [[2, 3], [4, 5]])


# -- scatter_elements ---------------------------------------------------------------------------

S = lambda reduction, axis=1: {"axis": axis, "reduction": reduction}  # noqa: E731


def test_scatter_elements_rejects_invalid_indices_and_shapes():
    data = F((2, 3, 4))
    with pytest.raises(OpError, match="may leave"):
        infer("scatter_elements", [data, I((2, 2, 4), 0, 3), F((2, 2, 4))], S("add"))
    with pytest.raises(OpError, match="may leave"):  # negative indices wrap in TVM: never relied on
        infer("scatter_elements", [data, I((2, 2, 4), -1, 2), F((2, 2, 4))], S("add"))
    with pytest.raises(OpError, match="off the axis"):  # larger than data off the axis
        infer("scatter_elements", [data, I((3, 2, 4), 0, 2), F((3, 2, 4))], S("add"))
    # smaller off the axis is ONNX-valid (TVM 0.27 mis-addresses it: the reference oracle's job)
    assert infer("scatter_elements", [data, I((1, 2, 4), 0, 2), F((1, 2, 4))], S("add")).shape == (2, 3, 4)
    with pytest.raises(OpError, match="share a shape"):
        infer("scatter_elements", [data, I((2, 2, 4), 0, 2), F((2, 1, 4))], S("add"))
    with pytest.raises(OpError, match="dtype"):
        infer("scatter_elements", [data, I((2, 2, 4), 0, 2), F((2, 2, 4), dtype="float16")], S("add"))
    with pytest.raises(OpError, match="mean"):
        infer("scatter_elements", [data, I((2, 2, 4), 0, 2), F((2, 2, 4))], S("mean"))


def test_scatter_update_needs_one_index_per_line():
    out = infer("scatter_elements", [F((2, 3, 4), 0, 1), I((2, 1, 4), 0, 2), F((2, 1, 4), -3, 0)], S("update"))
    assert (out.shape, out.lo, out.hi, out.exact) == ((2, 3, 4), pytest.approx(-3, rel=1e-5),
                                                       pytest.approx(1, rel=1e-5), True)
    with pytest.raises(OpError, match="order"):
        infer("scatter_elements", [F((2, 3, 4)), I((2, 2, 4), 0, 2), F((2, 2, 4))], S("update"))


def test_scatter_bool_only_updates():
    b = F((2, 3), 0, 1, "bool")
    assert infer("scatter_elements", [b, I((1, 3), 0, 1), F((1, 3), 0, 1, "bool")], S("update", 0)).dtype == "bool"
    with pytest.raises(OpError, match="bool"):
        infer("scatter_elements", [b, I((1, 3), 0, 1), F((1, 3), 0, 1, "bool")], S("max", 0))


def test_scatter_ranges_overflow_and_exactness():
    data, idx = F((2, 3), -1, 2, "int8"), I((2, 4), 0, 2)
    add = infer("scatter_elements", [data, idx, F((2, 4), -3, 5, "int8")], S("add"))
    assert (add.lo, add.hi, add.exact) == (-1 - 4 * 3, 2 + 4 * 5, True)
    mul = infer("scatter_elements", [data, idx, F((2, 4), -2, 2, "int8")], S("mul"))
    assert (mul.lo, mul.hi) == (-2 * 16, 2 * 16)
    with pytest.raises(OpError, match="overflow"):
        infer("scatter_elements", [data, idx, F((2, 4), -3, 3, "int8")], S("mul"))  # 2 * 3**4 > 127
    with pytest.raises(OpError, match="overflow"):
        infer("scatter_elements", [F((2, 3), 0, 100, "int8"), idx, F((2, 4), 0, 8, "int8")], S("add"))
    lo_, hi_ = infer("scatter_elements", [data, idx, F((2, 4), -3, 5, "int8")], S("min")), \
        infer("scatter_elements", [data, idx, F((2, 4), -3, 5, "int8")], S("max"))
    assert (lo_.lo, lo_.hi, hi_.lo, hi_.hi) == (-3, 2, -1, 5)
    fadd = infer("scatter_elements", [F((2, 3)), idx, F((2, 4))], S("add"))
    assert not fadd.exact
    assert infer("scatter_elements", [F((2, 3)), idx, F((2, 4))], S("max")).exact


def test_scatter_reference_accumulates_duplicates():
    data = np.zeros((2, 3), "int32")
    idx = np.array([[0, 0, 2], [1, 1, 1]])
    upd = np.array([[1, 2, 3], [4, 5, 6]], "int32")
    np.testing.assert_array_equal(ref("scatter_elements", [data, idx, upd], S("add")), [[3, 0, 3], [0, 15, 0]])
    np.testing.assert_array_equal(ref("scatter_elements", [data + 1, idx, upd], S("mul")), [[2, 1, 3], [1, 120, 1]])
    np.testing.assert_array_equal(ref("scatter_elements", [data, idx, -upd], S("min")), [[-2, 0, -3], [0, -6, 0]])
    one = np.array([[2], [0]])
    np.testing.assert_array_equal(ref("scatter_elements", [data, one, np.array([[7], [8]], "int32")], S("update")),
                                  [[0, 0, 7], [8, 0, 0]])


# -- one_hot ------------------------------------------------------------------------------------

H = lambda depth=4, axis=-1, on=1, off=0, dtype="int64": dict(depth=depth, axis=axis, on_value=on,  # noqa: E731
                                                             off_value=off, dtype=dtype)


def test_one_hot_shapes_dtypes_and_ranges():
    out = infer("one_hot", [I((2, 3), 0, 3)], H(axis=1, on=7, off=-1))
    assert (out.shape, out.dtype, out.lo, out.hi, out.exact) == ((2, 4, 3), "int64", -1, 7, True)
    assert infer("one_hot", [I((2, 3), 0, 3, "int8")], H()).shape == (2, 3, 4)
    half = infer("one_hot", [I((), 0, 0)], H(depth=1, on=2.5, off=0.0, dtype="float16"))
    assert half.shape == (1,) and half.lo == pytest.approx(2.5, rel=2e-3) == half.hi  # depth 1: always on
    assert infer("one_hot", [I((2,), 0, 1)], H(on=1, off=0, dtype="bool")).dtype == "bool"


def test_one_hot_rejects():
    with pytest.raises(OpError, match="may leave"):
        infer("one_hot", [I((2,), 0, 4)], H(depth=4))
    with pytest.raises(OpError, match="may leave"):
        infer("one_hot", [I((2,), -1, 2)], H(depth=4))
    with pytest.raises(OpError, match="axis"):
        infer("one_hot", [I((2, 3), 0, 1)], H(axis=-2))
    with pytest.raises(OpError, match="TVMScript"):  # its reproducer would not parse back
        infer("one_hot", [I((2,), 0, 1)], H(dtype="int32"))
    with pytest.raises(OpError, match="representable"):
        infer("one_hot", [I((2,), 0, 1)], H(on=2, dtype="bool"))
    with pytest.raises(OpError, match="representable"):
        infer("one_hot", [I((2,), 0, 1)], H(on=0.1, off=0.0, dtype="float16"))
    with pytest.raises(OpError, match="representable"):
        infer("one_hot", [I((2,), 0, 1)], H(on=1.5, dtype="int64"))
    with pytest.raises(OpError):
        infer("one_hot", [F((2,), 0, 1)], H())


def test_one_hot_reference():
    i = np.array([[0, 2, 1], [3, 0, 0]])
    got = ref("one_hot", [i], H(axis=0, on=3, off=-1, dtype="int8"))
    assert got.dtype == np.int8 and got.shape == (4, 2, 3)
    np.testing.assert_array_equal(got[:, 0, 1], [-1, -1, 3, -1])
    got = ref("one_hot", [np.array(2)], H(depth=3, on=1.5, off=0.25, dtype="float32"))
    assert got.dtype == np.float32 and got.tolist() == [0.25, 0.25, 1.5]


# -- propose: every drawn node is valid; computed indices are routed through clip ------------------

class _Chooser:
    """Deterministic choices from a seeded generator (no Hypothesis needed)."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def choice(self, options):
        return options[int(self.rng.integers(len(options)))]

    def integer(self, lo, hi):
        return int(self.rng.integers(lo, hi + 1))

    def boolean(self):
        return bool(self.rng.integers(2))

    def array(self, shape, dtype, lo, hi):
        if dtype == "bool":
            return self.rng.integers(0, 2, shape).astype(bool)
        if np.issubdtype(np.dtype(dtype), np.integer):
            return self.rng.integers(int(np.ceil(lo)), int(np.floor(hi)) + 1, shape, dtype=np.int64).astype(dtype)
        return self.rng.uniform(lo, hi, shape).astype(dtype)


@pytest.mark.parametrize("op", ["take", "gather_elements", "gather_nd", "scatter_elements", "one_hot"])
def test_propose_builds_valid_programs_whose_reference_runs(op):
    seen = set()
    for seed in range(60):
        choose = _Chooser(seed)
        sketch = ProgramSketch(choose)
        sketch.add_param((3, 4), "float32", -4, 4)  # exact floats: the "cast" route
        sketch.add_param((2, 3), "int32", -8, 8)  # out of every axis: the "clip" route
        sketch.add_param((4,), choose.choice(["int8", "float16", "bool", "int64"]), 0, 1)
        for _ in range(3):
            BY_NAME[op].propose(sketch, choose)
        program = sketch.finish(sketch.sinks())
        infos = analyse(program)
        for out, info in zip(evaluate(program), (infos[o] for o in program.outputs)):
            assert out.shape == info.shape and out.dtype == np.dtype(info.dtype)
            if out.size and out.dtype != bool:
                assert info.lo <= out.astype("float64").min() and out.astype("float64").max() <= info.hi
        seen.update(v.op for v in program.values if hasattr(v, "op"))
        seen.update(v.attrs.get("mode", "") for v in program.values if getattr(v, "op", None) == "take")
    assert op in seen and "clip" in seen  # computed indices went through a clip at least once
    if op == "take":
        assert {"fast", "wrap", ""} <= seen


def test_old_take_programs_load_with_the_same_meaning():
    """A record saved before take had modes (no "mode" attr) still loads, means fast, and checks bounds."""
    param = {"kind": "param", "role": "input", "shape": [3, 4], "dtype": "float32", "range": [-4, 8],
             "value": (np.arange(12.0).reshape(3, 4) - 4).tolist()}
    const = lambda v: {"kind": "op", "op": "const", "args": [], "attrs": {"shape": [2], "dtype": "int64",  # noqa
                                                                         "value": v}}
    take = {"kind": "op", "op": "take", "args": [0, 1], "attrs": {"axis": 1}}
    program = Program.from_json({"values": [param, const([3, 0]), take], "outputs": [2]})
    analyse(program)
    np.testing.assert_array_equal(evaluate(program)[0], (np.arange(12.0).reshape(3, 4) - 4)[:, [3, 0]])
    with pytest.raises(ProgramError, match="may leave"):
        analyse(Program.from_json({"values": [param, const([4, 0]), take], "outputs": [2]}))
    assert Program.from_json(program.to_json()) == program

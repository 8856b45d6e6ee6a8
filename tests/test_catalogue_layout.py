"""Layout and creation ops: the rules reject what they must, shapes, ranges and exactness
propagate, the references follow Relax, and old attribute forms keep their meaning."""

import json

import numpy as np
import pytest

from passfuzz.ir.catalogue import BY_NAME, ValueInfo
from passfuzz.ir.catalogue.base import OpError
from passfuzz.ir.graph import ProgramSketch, analyse, evaluate
from passfuzz.ir.program import Node, Param, Program

from .catalogue_support import F, SeededChooser, approx, infer, ref

B = lambda shape: ValueInfo(shape, "bool", 0, 1, True)  # noqa: E731


X = np.arange(24, dtype="float32").reshape(2, 3, 4)


# -- reshape with -1 -----------------------------------------------------------------------------------

def test_reshape_infers_one_minus_one_dim():
    x = F((2, 3, 4), -1, 2, exact=False)
    got = infer("reshape", x, shape=[-1, 4])
    assert (got.shape, got.lo, got.hi, got.exact) == ((6, 4), approx(-1), approx(2), False)
    assert infer("reshape", x, shape=[2, -1, 1]).shape == (2, 12, 1)
    assert infer("reshape", F(()), shape=[-1]).shape == (1,)
    assert infer("reshape", x, shape=[24]).shape == (24,)  # the old form
    with pytest.raises(OpError):
        infer("reshape", x, shape=[-1, -1])
    with pytest.raises(OpError):
        infer("reshape", x, shape=[-1, 5])  # 24 is not a multiple of 5
    with pytest.raises(OpError):
        infer("reshape", x, shape=[-2, -12])
    with pytest.raises(OpError):
        infer("reshape", x, shape=[0, -1])
    assert ref("reshape", X, shape=[-1, 4]).shape == (6, 4)


# -- permute_dims ---------------------------------------------------------------------------------------

def test_permute_dims_none_identity_negative_and_invalid():
    x = F((2, 3, 4))
    assert infer("permute_dims", x, axes=None).shape == (4, 3, 2)
    assert infer("permute_dims", x, axes=[0, 1, 2]).shape == (2, 3, 4)
    assert infer("permute_dims", x, axes=[0, -1, -2]).shape == (2, 4, 3)
    assert infer("permute_dims", x, axes=[1, 2, 0]).shape == (3, 4, 2)
    for bad in ([0, 1], [0, 0, 1], [0, 1, 3], [0, -1, 2]):
        with pytest.raises(OpError):
            infer("permute_dims", x, axes=bad)
    np.testing.assert_array_equal(ref("permute_dims", X, axes=[0, -1, -2]), X.transpose(0, 2, 1))


# -- split by sections and by indices ---------------------------------------------------------------------

def test_split_by_indices_gives_numpy_parts():
    x = F((2, 3, 5))
    lengths = [infer("split", x, indices=[1, 3], axis=2, index=k).shape[2] for k in range(3)]
    assert lengths == [1, 2, 2]
    assert infer("split", x, indices=[2], axis=-2, index=1).shape == (2, 1, 5)
    for bad in ([], [0, 2], [3, 1], [2, 2], [1, 5], [1.5]):
        with pytest.raises(OpError):
            infer("split", x, indices=bad, axis=2, index=0)
    with pytest.raises(OpError, match="index"):
        infer("split", x, indices=[1, 3], axis=2, index=3)
    with pytest.raises(OpError, match="either"):
        infer("split", x, indices=[1], sections=5, axis=2, index=0)
    x5 = np.arange(10, dtype="int32").reshape(2, 5)
    np.testing.assert_array_equal(ref("split", x5, indices=[1, 3], axis=1, index=1), x5[:, 1:3])


def test_split_by_sections_keeps_its_old_meaning():
    x = F((2, 6))
    assert infer("split", x, sections=3, axis=1, index=2).shape == (2, 2)
    for bad in (1, 4, True):
        with pytest.raises(OpError):
            infer("split", x, sections=bad, axis=1, index=0)
    x6 = np.arange(12, dtype="int32").reshape(2, 6)
    np.testing.assert_array_equal(ref("split", x6, sections=3, axis=1, index=2), x6[:, 4:])


def test_split_into_uneven_sections_takes_ceiling_parts_and_refuses_an_empty_one():
    x = F((2, 10, 4))
    assert [infer("split", x, sections=3, axis=1, index=k).shape[1] for k in range(3)] == [4, 4, 2]
    assert [i.shape[1] for i in infer("split_tuple", x, sections=3, axis=1).items] == [4, 4, 2]
    for bad in (4, 6, 7):  # 10 in 4 gives 3, 3, 3, 1 (fine), in 6 or 7: 2 * 5 or 6 >= 10 leaves a part empty
        if bad == 4:
            assert infer("split", x, sections=4, axis=1, index=3).shape[1] == 1
            continue
        with pytest.raises(OpError, match="empty"):
            infer("split", x, sections=bad, axis=1, index=0)
    x10 = np.arange(20, dtype="int32").reshape(2, 10)
    np.testing.assert_array_equal(ref("split", x10, sections=3, axis=1, index=2), x10[:, 8:])
    assert [p.shape[1] for p in ref("split_tuple", x10, sections=4, axis=1)] == [3, 3, 3, 1]


# -- strided_slice with negative strides ---------------------------------------------------------------

@pytest.mark.parametrize("begin, end, stride, length", [(3, -5, -1, 4), (3, 0, -1, 3), (3, 0, -2, 2), (2, -5, -2, 2),
                                                        (0, -5, -1, 1), (3, 1, -3, 1), (0, 4, 1, 4), (1, 4, 2, 2)])
def test_strided_slice_lengths_follow_numpy(begin, end, stride, length):
    attrs = {"axes": [2], "begin": [begin], "end": [end], "strides": [stride]}
    assert infer("strided_slice", F((2, 3, 4)), **attrs).shape == (2, 3, length)
    got = ref("strided_slice", X, **attrs)
    np.testing.assert_array_equal(got, X[:, :, begin:end:stride])
    assert got.shape == (2, 3, length)


@pytest.mark.parametrize("begin, end, stride", [(2, 1, 1), (2, 2, 1), (0, 5, 1), (-1, 2, 1), (0, 2, 0),
                                                (1, 1, -1), (1, 2, -1), (3, -1, -1), (3, -4, -1), (4, 0, -1),
                                                (3, -6, -1)])
def test_strided_slice_rejects_empty_reversed_or_ambiguous_bounds(begin, end, stride):
    with pytest.raises(OpError):
        infer("strided_slice", F((2, 3, 4)), axes=[2], begin=[begin], end=[end], strides=[stride])


def test_strided_slice_on_two_axes_keeps_range_and_exactness():
    x = F((3, 4), -2, 5, "int8")
    got = infer("strided_slice", x, axes=[1, 0], begin=[3, 0], end=[-5, 3], strides=[-2, 1])
    assert (got.shape, got.lo, got.hi, got.exact) == ((3, 2), -2, 5, True)
    with pytest.raises(OpError, match="repeated"):
        infer("strided_slice", x, axes=[1, -1], begin=[0, 0], end=[1, 1], strides=[1, 1])


# -- flatten, flip, repeat, tile, stack ---------------------------------------------------------------------

def test_flatten_and_flip():
    assert infer("flatten", F((2, 3, 4), exact=False)).shape == (24,)
    assert not infer("flatten", F((2, 3), exact=False)).exact
    assert infer("flatten", B(())).shape == (1,)
    assert infer("flip", F((2, 3)), axis=-1).shape == (2, 3)
    for bad in (2, -3):
        with pytest.raises(OpError):
            infer("flip", F((2, 3)), axis=bad)
    with pytest.raises(OpError):
        infer("flip", F(()), axis=0)
    np.testing.assert_array_equal(ref("flip", X, axis=1), X[:, ::-1])


def test_repeat_with_axis_and_none():
    x = F((2, 3), 0, 7, "uint8")
    assert infer("repeat", x, repeats=3, axis=None).shape == (18,)
    assert infer("repeat", x, repeats=2, axis=-1).shape == (2, 6)
    got = infer("repeat", x, repeats=2, axis=0)
    assert (got.shape, got.lo, got.hi) == ((4, 3), 0, 7)
    for bad in ({"repeats": 0, "axis": 0}, {"repeats": 2, "axis": 2}, {"repeats": 1.5, "axis": 0}):
        with pytest.raises(OpError):
            infer("repeat", x, **bad)
    with pytest.raises(OpError, match="0-d"):
        infer("repeat", F(()), repeats=2, axis=None)
    np.testing.assert_array_equal(ref("repeat", X, repeats=2, axis=None), np.repeat(X.ravel(), 2))


def test_tile_pads_the_shorter_of_shape_and_repeats():
    x = F((2, 3))
    assert infer("tile", x, repeats=[2]).shape == (2, 6)
    assert infer("tile", x, repeats=[2, 1, 3]).shape == (2, 2, 9)
    assert infer("tile", x, repeats=[]).shape == (2, 3)
    assert infer("tile", F(()), repeats=[2, 3]).shape == (2, 3)
    for bad in ([0], [2, -1], 2):
        with pytest.raises(OpError):
            infer("tile", x, repeats=bad)
    assert ref("tile", X, repeats=[2, 1, 1, 1]).shape == (2, 2, 3, 4)


def test_stack_joins_ranges_and_rejects_mismatches():
    got = infer("stack", F((2, 3), -1, 1), F((2, 3), 0, 5, exact=False), axis=-1)
    assert (got.shape, got.lo, got.hi, got.exact) == ((2, 3, 2), approx(-1), approx(5), False)
    assert infer("stack", F(()), F(()), F(()), axis=0).shape == (3,)
    with pytest.raises(OpError):
        infer("stack", F((2, 3)), F((3, 2)), axis=0)
    with pytest.raises(OpError):
        infer("stack", F((2, 3)), F((2, 3), dtype="int32"), axis=0)
    with pytest.raises(OpError):
        infer("stack", F((2, 3)), F((2, 3)), axis=3)
    assert ref("stack", X, X, axis=1).shape == (2, 2, 3, 4)


# -- collapse_sum_to / collapse_sum_like ----------------------------------------------------------------

def test_collapse_sum_scales_with_the_collapsed_count_and_is_inexact_for_floats():
    got = infer("collapse_sum_to", F((2, 3, 4), -1, 2), shape=[3, 1])
    assert (got.shape, got.lo, got.hi, got.exact) == ((3, 1), approx(-8), approx(16), False)
    ints = infer("collapse_sum_to", F((2, 3, 4), -1, 2, "int32"), shape=[4])
    assert (ints.lo, ints.hi, ints.exact) == (-6, 12, True)
    same = infer("collapse_sum_to", F((2, 3), -1, 2), shape=[2, 3])  # nothing summed: still exact
    assert same.exact and (same.lo, same.hi) == (approx(-1), approx(2))
    assert infer("collapse_sum_to", F(()), shape=[]).shape == ()


def test_collapse_sum_rejects_bool_overflow_and_shapes_that_do_not_broadcast():
    with pytest.raises(OpError, match="bool"):
        infer("collapse_sum_to", B((2, 3)), shape=[3])
    with pytest.raises(OpError, match="overflow"):
        infer("collapse_sum_to", F((4, 8), 0, 8, "int8"), shape=[1])
    assert infer("collapse_sum_to", F((4, 8), 0, 3, "int8"), shape=[1]).hi == 96
    with pytest.raises(OpError, match="overflow"):
        infer("collapse_sum_to", F((4, 4), 0, 20, "uint8"), shape=[])
    for bad in ([2], [3, 3], [1, 2, 3], [2, 3, 4, 1], [0]):
        with pytest.raises(OpError):
            infer("collapse_sum_to", F((2, 3)), shape=bad)


def test_collapse_sum_references_sum_the_broadcast_axes_only():
    got = ref("collapse_sum_to", X, shape=[3, 1])
    np.testing.assert_array_equal(got, X.sum(axis=(0, 2)).reshape(3, 1))
    assert got.dtype == np.float32
    x8 = np.full((2, 3), 20, "int8")
    np.testing.assert_array_equal(ref("collapse_sum_to", x8, shape=[1, 3]), np.full((1, 3), 40, "int8"))
    like = ref("collapse_sum_like", X, np.zeros((1, 4), bool))
    np.testing.assert_array_equal(like, X.sum(axis=(0, 1)).reshape(1, 4))
    got = infer("collapse_sum_like", F((2, 3, 4), 0, 1), B((2, 1, 4)))
    assert (got.shape, got.dtype, got.hi) == ((2, 1, 4), "float32", approx(3))
    with pytest.raises(OpError):
        infer("collapse_sum_like", F((2, 3)), F((4,)))


# -- creation ---------------------------------------------------------------------------------------------

def test_zeros_ones_full_ranges_and_fill_values():
    z = infer("zeros", shape=[2, 3], dtype="int8")
    assert (z.shape, z.dtype, z.lo, z.hi, z.exact) == ((2, 3), "int8", 0, 0, True)
    assert infer("ones", shape=[], dtype="bool").hi == 1
    full = infer("full", shape=[4], dtype="float16", value=-3.25)
    half = lambda v: pytest.approx(v, rel=2e-3)  # noqa: E731 - float16 rounding slack
    assert (full.lo, full.hi, full.exact) == (half(-3.25), half(-3.25), True)
    for dtype, value in [("int8", 200), ("uint8", -1), ("int32", 1.5), ("bool", 2), ("bool", 1.0),
                         ("float16", 1e6), ("float32", float("inf"))]:
        with pytest.raises(OpError):
            infer("full", shape=[2], dtype=dtype, value=value)
    with pytest.raises(OpError):
        infer("zeros", shape=[2, 0], dtype="float32")
    with pytest.raises(OpError):
        infer("zeros", shape=[2], dtype="complex64")
    with pytest.raises(OpError):
        infer("zeros", F((2,)), shape=[2], dtype="float32")  # no operand
    got = ref("full", shape=[2], dtype="float16", value=0.1)
    assert got.dtype == np.float16 and got[0] == np.float16(0.1)


def test_like_ops_keep_the_shape_and_may_change_the_dtype():
    x = F((2, 3), -4, 4, exact=False)
    z = infer("zeros_like", x, dtype=None)
    assert (z.shape, z.dtype, z.lo, z.hi, z.exact) == ((2, 3), "float32", 0, 0, True)
    assert infer("ones_like", x, dtype="bool").dtype == "bool"
    f = infer("full_like", x, value=7, dtype="int8")
    assert (f.dtype, f.lo, f.hi) == ("int8", 7, 7)
    with pytest.raises(OpError):
        infer("full_like", F((2,), dtype="int32"), value=2.5, dtype=None)  # would truncate
    with pytest.raises(OpError):
        infer("full_like", x, value=300, dtype="uint8")
    assert ref("ones_like", np.zeros((2, 2), "float32"), dtype="int64").dtype == np.int64
    assert ref("full_like", np.zeros((2,), "int8"), value=3, dtype=None).tolist() == [3, 3]


def test_arange_length_range_and_validation():
    a = infer("arange", start=-3, end=4, step=2, dtype="int64")
    assert (a.shape, a.lo, a.hi, a.exact) == ((4,), -3, 3, True)
    with pytest.raises(OpError, match="negative step"):  # TVM mistypes it as (5,)
        infer("arange", start=3, end=-4, step=-2, dtype="int64")
    assert infer("arange", start=1.0, end=-3.0, step=-1.0, dtype="float32").shape == (4,)  # floats are typed right
    f = infer("arange", start=0.5, end=2.75, step=0.75, dtype="float32")
    assert (f.shape, f.lo, f.hi) == ((3,), approx(0.5), approx(2.0))
    np.testing.assert_array_equal(ref("arange", start=0.5, end=2.75, step=0.75, dtype="float32"), [0.5, 1.25, 2.0])
    assert infer("arange", start=0.0, end=2.0, step=0.5, dtype="float16").shape == (4,)
    for bad in [dict(start=0, end=4, step=0, dtype="int32"), dict(start=0, end=0, step=1, dtype="int32"),
                dict(start=0, end=4, step=-1, dtype="int32"), dict(start=0, end=5000, step=1, dtype="int32"),
                dict(start=0, end=2, step=1, dtype="bool"), dict(start=0.5, end=3, step=1, dtype="int32"),
                dict(start=0.1, end=1.0, step=0.3, dtype="float32"), dict(start=3, end=-2, step=-1, dtype="uint8"),
                dict(start=120, end=130, step=2, dtype="int8"), dict(start=0, end=160, step=1, dtype="float16"),
                dict(start=0, end=1000, step=100, dtype="float32")]:
        with pytest.raises(OpError):
            infer("arange", **bad)
    assert infer("arange", start=0, end=4, step=1, dtype="uint8").lo == 0
    # longer and wider than drawn, as TVM's tests write it: every element an exact float32
    long = infer("arange", start=0, end=160, step=1, dtype="float32")
    assert (long.shape, long.hi) == ((160,), approx(159))
    np.testing.assert_array_equal(ref("arange", start=0, end=160, step=1, dtype="float32"), np.arange(160))


def test_eye_and_eye_like_ranges():
    e = infer("eye", n=3, m=4, k=1, dtype="int32")
    assert (e.shape, e.lo, e.hi) == ((3, 4), 0, 1)
    assert infer("eye", n=2, m=2, k=2, dtype="float32").hi == 0  # no diagonal inside: all zero
    assert infer("eye", n=1, m=1, k=0, dtype="uint8").lo == 1  # all one
    with pytest.raises(OpError):
        infer("eye", n=0, m=2, k=0, dtype="float32")
    like = infer("eye_like", F((3, 4), -9, 9, "int8"), k=-1)
    assert (like.shape, like.dtype, like.lo, like.hi) == ((3, 4), "int8", 0, 1)
    with pytest.raises(OpError):
        infer("eye_like", F((2, 3, 4)), k=0)
    with pytest.raises(OpError):
        infer("eye_like", F((3, 4)), k=0, dtype="int32")  # LegalizeOps would ignore it (TVM bug)
    np.testing.assert_array_equal(ref("eye_like", np.zeros((3, 4), "int8"), k=-1), np.eye(3, 4, -1, dtype="int8"))


def test_tril_triu_join_zero_where_elements_are_dropped():
    x = F((2, 3, 4), 1, 5, exact=False)
    low = infer("tril", x, k=0)
    assert (low.shape, low.lo, low.hi, low.exact) == ((2, 3, 4), 0, approx(5), False)
    kept = infer("tril", x, k=3)  # every element kept
    assert (kept.lo, kept.hi) == (approx(1), approx(5))
    gone = infer("triu", x, k=4)  # every element dropped
    assert (gone.lo, gone.hi) == (0, 0)
    assert infer("triu", x, k=-2).lo == approx(1)
    with pytest.raises(OpError):
        infer("tril", F((4,)), k=0)
    np.testing.assert_array_equal(ref("triu", X, k=1), np.triu(X, 1))


# -- drawing: valid nodes, every new attribute form reached, old JSON means the same -----------------------


OPS = ["reshape", "permute_dims", "split", "strided_slice", "flatten", "flip", "repeat", "tile", "stack",
       "collapse_sum_to", "collapse_sum_like", "zeros", "ones", "full", "zeros_like", "ones_like", "full_like",
       "arange", "eye", "eye_like", "tril", "triu"]


def _drawn(op, seeds=range(150)):
    nodes = []
    for seed in seeds:
        chooser = SeededChooser(seed)
        sketch = ProgramSketch(chooser)
        dtype = chooser.choice(["float32", "int8", "bool", "int64"])
        shape = tuple(chooser.integer(1, 4) for _ in range(chooser.integer(0, 3)))
        sketch.add_param(shape, dtype, 0, 1)
        sketch.add_param((2, 3), "float32", -4, 4)
        if BY_NAME[op].applicable(sketch):
            BY_NAME[op].propose(sketch, chooser)  # sketch.add re-runs infer: an invalid node raises
            program = sketch.finish(sketch.sinks())
            analyse(program)
            evaluate(program)
            nodes += [v for v in sketch.values if getattr(v, "op", None) == op]
    return nodes


@pytest.mark.parametrize("op", OPS)
def test_propose_draws_valid_nodes(op):
    assert _drawn(op)


def test_new_attribute_forms_are_drawn():
    reshape = [n.attrs["shape"] for n in _drawn("reshape")]
    assert any(-1 in s for s in reshape) and any(-1 not in s for s in reshape)
    axes = [n.attrs["axes"] for n in _drawn("permute_dims")]
    assert None in axes and any(a is not None and a == sorted(a) and len(a) > 1 for a in axes)
    assert any(a is not None and a[-2:] in ([2, 1], [-1, -2]) for a in axes)
    split = [n.attrs for n in _drawn("split")]
    assert any("indices" in a for a in split) and any("sections" in a for a in split)
    strides = [n.attrs["strides"] for n in _drawn("strided_slice")]
    assert None in strides and min(s for ss in strides if ss for s in ss) < 0 < max(s for ss in strides if ss for s in ss)
    assert {n.attrs["axis"] is None for n in _drawn("repeat")} == {True, False}


def test_old_json_programs_load_and_mean_the_same():
    doc = {"values": [{"kind": "param", "role": "input", "shape": [2, 6], "dtype": "int32", "range": [0, 11],
                       "value": np.arange(12).reshape(2, 6).tolist()},
                      {"kind": "op", "op": "split", "args": [0], "attrs": {"sections": 3, "axis": 1, "index": 1}},
                      {"kind": "op", "op": "strided_slice", "args": [0],
                       "attrs": {"axes": [1], "begin": [1], "end": [6], "strides": [2]}},
                      {"kind": "op", "op": "reshape", "args": [0], "attrs": {"shape": [3, 4]}},
                      {"kind": "op", "op": "permute_dims", "args": [0], "attrs": {"axes": None}}],
            "outputs": [1, 2, 3, 4]}
    program = Program.from_json(json.loads(json.dumps(doc)))
    infos = analyse(program)
    assert [i.shape for i in infos[1:]] == [(2, 2), (2, 3), (3, 4), (6, 2)]
    x = np.arange(12).reshape(2, 6)
    for got, want in zip(evaluate(program), [x[:, 2:4], x[:, 1:6:2], x.reshape(3, 4), x.T]):
        np.testing.assert_array_equal(got, want)


def test_creation_nodes_round_trip_through_json():
    x = Param((2, 3), "float32", -1, 1, np.zeros((2, 3)).tolist())
    program = Program((x, Node("arange", (), {"start": 0.5, "end": 2.0, "step": 0.5, "dtype": "float32"}),
                       Node("full", (), {"shape": [2, 3], "dtype": "float32", "value": 1.5}),
                       Node("full_like", (0,), {"value": 1, "dtype": "bool"})), (1, 2, 3))
    again = Program.from_json(json.loads(json.dumps(program.to_json())))
    assert analyse(again) == analyse(program)
    for got, want in zip(evaluate(again), evaluate(program)):
        np.testing.assert_array_equal(got, want)


# -- layout_transform ----------------------------------------------------------------------------------

NCHW4C = [["var", 0], ["//", ["var", 1], 4], ["var", 2], ["var", 3], ["%", ["var", 1], 4]]


def test_layout_transform_moves_elements_as_its_index_map_says():
    x = np.arange(2 * 8 * 2 * 3, dtype="float32").reshape(2, 8, 2, 3)
    got = ref("layout_transform", x, index_map=NCHW4C, pad_value=None)
    np.testing.assert_array_equal(got, x.reshape(2, 2, 4, 2, 3).transpose(0, 1, 3, 4, 2))
    info = infer("layout_transform", F((2, 8, 2, 3), -1, 2), index_map=NCHW4C, pad_value=None)
    assert (info.shape, info.lo, info.hi, info.exact) == ((2, 2, 2, 3, 4), approx(-1), approx(2), True)


@pytest.mark.parametrize("index_map, why", [
    ([["//", ["var", 0], 4], ["%", ["var", 0], 4]], "one to one"),  # 14 elements onto a 4 x 4 box: padding
    ([["var", 0], ["var", 0]], "one to one"),  # the diagonal of a box
    ([["-", ["var", 0], 1]], "below zero"),
    ([["//", ["var", 0], 0]], "divides by zero"),
    ([["var", 1]], "no input axis"),
    ([["exp", ["var", 0]]], "bad index expression"),
])
def test_layout_transform_refuses_maps_that_pad_or_are_not_maps(index_map, why):
    with pytest.raises(OpError, match=why):
        infer("layout_transform", F((14,)), index_map=index_map, pad_value=None)


def test_layout_transform_refuses_bools_which_tvm_fails_to_compile():
    with pytest.raises(OpError):
        infer("layout_transform", B((2, 4)), index_map=[["var", 1], ["var", 0]], pad_value=None)

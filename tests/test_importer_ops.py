"""Ops and attribute forms TVM's own test modules write, imported as they are written there: each
module below is in the style of apache/tvm's tests/python/relax/, and its import must build back
into a module that gives what the written one gives, and what numpy gives (``agrees``)."""

import numpy as np
import pytest
from tvm.script import ir as I
from tvm.script import relax as R

from passfuzz.ir.catalogue.base import OpError, TupleInfo

from .catalogue_support import F, infer, ref
from .test_importer import agrees

# -- expand_dims with several axes ----------------------------------------------------------------

@I.ir_module
class ExpandDims:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")):
        gv = R.expand_dims(x, axis=[-1, 1, -6, 3, 5])
        return gv


def test_expand_dims_with_several_axes_imports_and_agrees():
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    program = agrees(ExpandDims, [x])
    assert program.nodes[-1].attrs["axis"] == [-1, 1, -6, 3, 5]
    assert ref("expand_dims", x, axis=[-1, 1, -6, 3, 5]).shape == (2, 1, 1, 1, 3, 1, 4, 1)


def test_expand_dims_axes_count_in_the_result_rank_and_must_not_repeat():
    assert infer("expand_dims", F((64,)), axis=[0, 2, 3]).shape == (1, 64, 1, 1)
    assert infer("expand_dims", F((2, 3)), axis=[-4, 2]).shape == (1, 2, 1, 3)
    with pytest.raises(OpError):
        infer("expand_dims", F((2, 3)), axis=[1, -3])  # -3 is 1 in rank 4
    with pytest.raises(OpError):
        infer("expand_dims", F((2, 3)), axis=[4, 0])  # rank 4 has no axis 4


# -- full and full_like with a rank-0 fill operand ------------------------------------------------

@I.ir_module
class FullFromOperands:
    @R.function
    def main(v: R.Tensor((), "int32"), x: R.Tensor((2, 3), "int32"), w: R.Tensor((), "float32")):
        a = R.full((2, 3), v, dtype="float32")
        b = R.full((2, 3), R.const(3.5, "float32"), dtype="int32")
        c = R.full_like(x, w)
        d = R.full_like(x, R.const(1, "int32"), dtype="float16")
        return (a, b, c, d)


def test_full_and_full_like_fill_from_an_operand_cast_to_their_dtype():
    args = [np.array(-7, "int32"), np.zeros((2, 3), "int32"), np.array(-2.75, "float32")]
    program = agrees(FullFromOperands, args)
    fills = [n for n in program.nodes if n.op in ("full", "full_like")]
    assert [len(n.args) for n in fills] == [1, 1, 2, 2] and all(n.attrs["value"] is None for n in fills)
    np.testing.assert_array_equal(ref("full", np.array(3.5, "float32"), shape=[2], dtype="int32", value=None), [3, 3])
    np.testing.assert_array_equal(ref("full_like", np.zeros(2, "int32"), np.array(-2.75, "float32"), dtype=None,
                                      value=None), [-2, -2])


def test_a_fill_operand_is_cast_as_astype_casts_it():
    assert infer("full", F((), -2.5, 3.5), shape=[2], dtype="int8", value=None).lo == -2  # truncated
    with pytest.raises(OpError):  # an inexact float could truncate to either side of an integer
        infer("full", F((), exact=False), shape=[2], dtype="int32", value=None)
    with pytest.raises(OpError):
        infer("full", F((2,)), shape=[2], dtype="float32", value=None)  # the fill is a scalar
    with pytest.raises(OpError):
        infer("full_like", F((2,)), F(()), dtype=None, value=1.0)  # an attribute and an operand
    assert infer("full_like", F((2,), dtype="int32"), F((), 0, 300, dtype="int32"), dtype=None, value=None).hi == 300


# -- losses -------------------------------------------------------------------------------------------

@I.ir_module
class CrossEntropy:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32"), labels: R.Tensor((2, 3, 4), "float32"), y: R.Tensor((3,), "float32")):
        batched = R.nn.cross_entropy_with_logits(x, labels)
        single = R.nn.cross_entropy_with_logits(y, y)
        return (batched, single)


def test_cross_entropy_divides_by_the_batch_above_rank_one_and_agrees():
    rng = np.random.default_rng(0)
    args = [rng.uniform(-4, 4, (2, 3, 4)).astype("float32"), rng.uniform(0, 1, (2, 3, 4)).astype("float32"),
            np.array([0.5, -2.0, 1.0], "float32")]
    program = agrees(CrossEntropy, args)
    assert [n.op for n in program.nodes] == ["cross_entropy_with_logits"] * 2
    assert ref("cross_entropy_with_logits", *args[:2]) == pytest.approx(-(args[0] * args[1]).sum() / 2, rel=1e-6)
    assert ref("cross_entropy_with_logits", args[2], args[2]) == pytest.approx(-5.25)


@I.ir_module
class NllLoss:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32"), t: R.Tensor((2, 4), "int64"), w: R.Tensor((3,), "float32")):
        mean = R.nn.nll_loss(x, t, w, reduction="mean", ignore_index=-1)
        total = R.nn.nll_loss(x, t, w, reduction="sum", ignore_index=1)
        each = R.nn.nll_loss(x, t, reduction="none", ignore_index=2)
        return (mean, total, each)


def test_nll_loss_reductions_and_ignored_targets_import_and_agree():
    rng = np.random.default_rng(0)
    args = [rng.uniform(-4, 4, (2, 3, 4)).astype("float32"), np.array([[0, 1, 2, 1], [2, 2, 0, 1]], "int64"),
            np.array([0.5, 2.0, 1.0], "float32")]
    program = agrees(NllLoss, args)
    assert [n.op for n in program.nodes] == ["nll_loss"] * 3
    x, t, w = args[:3]
    picked = np.take_along_axis(x, t[:, None], 1)[:, 0]
    assert ref("nll_loss", x, t, w, reduction="sum", ignore_index=1) == \
        pytest.approx(-(picked * w[t])[t != 1].sum(), rel=1e-6)


def test_nll_loss_targets_must_name_classes_and_a_mean_may_not_ignore_them_all():
    x, w = F((2, 3)), F((3,), 0.5, 2)
    assert infer("nll_loss", x, F((2,), 0, 2, "int64"), w, reduction="mean", ignore_index=-1).shape == ()
    with pytest.raises(OpError):  # TVM's kernel reads predictions[n, 3] before selecting on ignore_index
        infer("nll_loss", x, F((2,), 0, 3, "int64"), w, reduction="sum", ignore_index=3)
    with pytest.raises(OpError):  # every target may be 1: the mean divides by 0
        infer("nll_loss", x, F((2,), 0, 2, "int64"), w, reduction="mean", ignore_index=1)
    with pytest.raises(OpError):  # weights summing to 0
        infer("nll_loss", x, F((2,), 0, 2, "int64"), F((3,), 0, 2), reduction="mean", ignore_index=-1)
    assert infer("nll_loss", x, F((2,), 0, 2, "int64"), w, reduction="none", ignore_index=1).shape == (2,)


# -- dequantize ---------------------------------------------------------------------------------------

@I.ir_module
class Dequantize:
    @R.function
    def main(q: R.Tensor((2, 4), "int8"), scale: R.Tensor((2,), "float32"), zp: R.Tensor((2,), "int8")):
        back = R.dequantize(q, scale, zp, axis=0, out_dtype="float32")
        narrow = R.dequantize(q, R.const(0.25, "float16"), R.const(1, "int8"), axis=-1, out_dtype="float16")
        return (back, narrow)


def test_dequantize_per_channel_and_per_tensor_agrees():
    args = [np.array([[-128, -1, 0, 127], [5, 6, 7, 8]], "int8"), np.array([2.0, 0.5], "float32"),
            np.array([1, -3], "int8")]
    program = agrees(Dequantize, args)
    assert [n.op for n in program.nodes if n.op != "const"] == ["dequantize"] * 2
    np.testing.assert_array_equal(ref("dequantize", *args, axis=0, out_dtype="float32"),
                                  [[-258, -4, -2, 252], [4, 4.5, 5, 5.5]])
    with pytest.raises(OpError):  # one scale per channel of axis 0, which has 2
        infer("dequantize", F((2, 4), -128, 127, "int8"), F((4,), 0.5, 2), F((), 0, 0, "int8"), axis=0,
              out_dtype="float32")


@I.ir_module
class Quantize:
    @R.function
    def main(data: R.Tensor((2, 4), "float32"), scale: R.Tensor((2,), "float32"), zp: R.Tensor((2,), "int8"),
             half: R.Tensor((2, 4), "float16")):
        per_channel = R.quantize(data, scale, zp, axis=0, out_dtype="int8")
        ties = R.quantize(data, R.const(2.0, "float32"), R.const(1, "int8"), axis=-1, out_dtype="uint8")
        halves = R.quantize(half, R.const(0.5, "float16"), R.const(0, "int8"), axis=1, out_dtype="int8")
        return (per_channel, ties, halves)


def test_quantize_rounds_half_to_even_and_agrees():
    # data / 2 lands on every tie from -2.5 to 1.5; half / 0.5 on no tie but on both signs
    data = np.array([[-5.0, -3.0, -1.0, 1.0], [3.0, 0.0, 2.0, 4.0]], "float32")
    args = [data, np.array([2.0, 0.5], "float32"), np.array([1, -3], "int8"),
            np.array([[-1.25, 0.25, 1, 2]] * 2, "float16")]
    program = agrees(Quantize, args)
    assert [n.op for n in program.nodes if n.op != "const"] == ["quantize"] * 3
    ties = ref("quantize", data, np.array(2.0, "float32"), np.array(1, "int8"), axis=-1, out_dtype="uint8")
    np.testing.assert_array_equal(ties, [[0, 0, 1, 1], [3, 1, 2, 3]])  # round(-2.5) = -2, +1, clipped at 0


def test_quantize_refuses_inexact_data_and_scales_that_may_not_be_positive():
    x, zp = F((2, 4)), F((), 0, 0, "int8")
    assert infer("quantize", x, F((), 0.5, 2), zp, axis=0, out_dtype="int8").hi == 8
    with pytest.raises(OpError):
        infer("quantize", F((2, 4), exact=False), F((), 0.5, 2), zp, axis=0, out_dtype="int8")
    with pytest.raises(OpError):
        infer("quantize", x, F((), 0, 2), zp, axis=0, out_dtype="int8")
    with pytest.raises(OpError):  # one scale per channel of axis 0, which has 2
        infer("quantize", x, F((4,), 0.5, 2), zp, axis=0, out_dtype="int8")
    assert infer("dequantize", F((2, 4), -128, 127, "int8"), F((4,), 0.5, 2), zp, axis=1,
                 out_dtype="float32").hi == pytest.approx(254, rel=1e-5)


# -- concat of one tuple ------------------------------------------------------------------------------

@I.ir_module
class ConcatOfATuple:
    @R.function
    def main(x: R.Tensor((6,), "float32"), y: R.Tensor((2, 3), "float32")):
        parts = R.split(x, 2)
        whole = R.concat(parts)
        pair = (y, y)
        wide = R.concat(pair, axis=1)
        return (whole, wide)


def test_concat_of_a_split_and_of_a_bound_tuple_reads_one_tuple_operand():
    args = [np.arange(6, dtype="float32"), np.arange(6, dtype="float32").reshape(2, 3)]
    program = agrees(ConcatOfATuple, args)
    assert [n.op for n in program.nodes] == ["split_tuple", "concat", "tuple", "concat"]
    assert all(len(n.args) == 1 for n in program.nodes if n.op == "concat")
    with pytest.raises(OpError):  # items that disagree off the axis
        infer("concat", TupleInfo((F((2, 3)), F((3, 3)))), axis=1)


# -- conv1d_transpose, conv3d_transpose, out_dtype -------------------------------------------------------

@I.ir_module
class ConvTransposes:
    @R.function
    def main(x1: R.Tensor((2, 3, 5), "float32"), w1: R.Tensor((3, 4, 3), "float32"),
             x3: R.Tensor((1, 2, 3, 3, 3), "float16"), w3: R.Tensor((2, 2, 2, 2, 2), "float16"),
             x2: R.Tensor((1, 2, 3, 3), "float16"), w2: R.Tensor((2, 1, 2, 2), "float16")):
        a = R.nn.conv1d_transpose(x1, w1, strides=2, padding=1, output_padding=1)
        b = R.nn.conv3d_transpose(x3, w3, out_dtype="float32")
        c = R.nn.conv2d_transpose(x2, w2, groups=2, dilation=2, out_dtype="float32")
        return (a, b, c)


def test_conv_transposes_over_one_and_three_dims_and_with_out_dtype_agree():
    rng = np.random.default_rng(0)
    shapes = [((2, 3, 5), "float32"), ((3, 4, 3), "float32"), ((1, 2, 3, 3, 3), "float16"),
              ((2, 2, 2, 2, 2), "float16"), ((1, 2, 3, 3), "float16"), ((2, 1, 2, 2), "float16")]
    program = agrees(ConvTransposes, [rng.uniform(-1, 1, s).astype(d) for s, d in shapes])
    assert [n.op for n in program.nodes] == ["conv1d_transpose", "conv3d_transpose", "conv2d_transpose"]
    assert [n.attrs["out_dtype"] for n in program.nodes] == [None, "float32", "float32"]
    # one channel, stride 1: the transposed convolution is numpy's full convolution
    x, k = np.array([[[1.0, 2.0, -1.0]]]), np.array([[[0.5, 3.0]]])
    got = ref("conv1d_transpose", x, k, strides=[1], padding=[0, 0], output_padding=[0], dilation=[1], groups=1)
    np.testing.assert_allclose(got[0, 0], np.convolve(x[0, 0], k[0, 0]))


# -- image.resize2d -----------------------------------------------------------------------------------

@I.ir_module
class Resize2D:
    @R.function
    def main(x: R.Tensor((2, 3, 5, 4), "float32"), y: R.Tensor((1, 4, 4, 2), "float32")):
        up = R.image.resize2d(x, (8, 7), layout="NCHW")
        corners = R.image.resize2d(y, R.shape([3, 6]), layout="NHWC", method="linear",
                                   coordinate_transformation_mode="align_corners", rounding_method="round")
        return (up, corners)


def test_linear_resize2d_in_both_layouts_imports_and_agrees():
    rng = np.random.default_rng(0)
    program = agrees(Resize2D, [rng.uniform(-4, 4, (2, 3, 5, 4)).astype("float32"),
                                rng.uniform(-4, 4, (1, 4, 4, 2)).astype("float32")])
    assert [n.attrs["layout"] for n in program.nodes] == ["NCHW", "NHWC"]
    # align_corners keeps the corners and puts the middle of 4 at 1.5: halfway between rows 1 and 2
    x = np.arange(16, dtype="float32").reshape(1, 1, 4, 4)
    got = ref("resize2d", x, size=[3, 2], layout="NCHW", coordinate_transformation_mode="align_corners",
              rounding_method="round")
    np.testing.assert_allclose(got[0, 0], [[0, 3], [6, 9], [12, 15]])
    with pytest.raises(OpError):  # TVM interpolates in float32 whatever the dtype
        infer("resize2d", F((1, 1, 2, 2), dtype="float64"), size=[4, 4], layout="NCHW",
              coordinate_transformation_mode="half_pixel", rounding_method="round")


# -- strided_slice without strides -------------------------------------------------------------------

@I.ir_module
class StridedSliceNoStrides:
    @R.function
    def main(x: R.Tensor((8, 9, 10, 10), "float32")):
        a = R.strided_slice(x, axes=[0, 1, 3], begin=[1, 0, 2], end=[8, 9, 4])
        b = R.strided_slice(x, axes=[-1], begin=[2], end=[5], strides=[2])
        return (a, b)


def test_a_strided_slice_written_without_strides_keeps_that_form():
    x = np.arange(7200, dtype="float32").reshape(8, 9, 10, 10)
    program = agrees(StridedSliceNoStrides, [x])
    assert [n.attrs["strides"] for n in program.nodes] == [None, [2]]
    assert infer("strided_slice", F((8, 9, 10, 10)), axes=[0, 1, 3], begin=[1, 0, 2], end=[8, 9, 4],
                 strides=None).shape == (7, 9, 10, 2)


# -- split into uneven sections, a long float arange ---------------------------------------------------

@I.ir_module
class UnevenSplitAndLongArange:
    @R.function
    def main(x: R.Tensor((2, 10, 4), "float32"), y: R.Tensor((160,), "float32")):
        parts = R.split(x, indices_or_sections=3, axis=1)
        shifted = R.add(y, R.arange(0, 160, 1, dtype="float32"))
        return (parts, shifted)


def test_uneven_split_sections_and_a_long_float_arange_import_and_agree():
    rng = np.random.default_rng(0)
    args = [rng.uniform(-4, 4, (2, 10, 4)).astype("float32"), rng.uniform(-4, 4, (160,)).astype("float32")]
    program = agrees(UnevenSplitAndLongArange, args)
    assert {n.op for n in program.nodes} >= {"split_tuple", "arange"}


# -- adaptive_avg_pool2d without an output size ---------------------------------------------------------

@I.ir_module
class AdaptiveAvgPoolWithoutOutputSize:
    @R.function
    def main(x: R.Tensor((2, 3, 5, 4), "float32")):
        gv = R.nn.adaptive_avg_pool2d(x, output_size=None)
        return gv


def test_adaptive_avg_pool2d_without_an_output_size_keeps_the_input_size_and_agrees():
    x = np.random.default_rng(0).uniform(-4, 4, (2, 3, 5, 4)).astype("float32")
    program = agrees(AdaptiveAvgPoolWithoutOutputSize, [x])
    assert program.nodes[-1].attrs["output_size"] is None
    np.testing.assert_allclose(ref("adaptive_avg_pool2d", x, output_size=None, layout="NCHW"), x, rtol=1e-6)


# -- relax.grad's backward ops ----------------------------------------------------------------------------

@I.ir_module
class Backward:
    @R.function
    def main(grad: R.Tensor((), "float32"), predictions: R.Tensor((2, 3, 4), "float32"),
             targets: R.Tensor((2, 4), "int64"), weights: R.Tensor((4,), "float32"),
             each: R.Tensor((2, 4), "float32"), taken: R.Tensor((3, 3, 2), "float32"),
             x: R.Tensor((3, 4, 2), "float32"), indices: R.Tensor((3,), "int32")):
        mean = R.grad.nll_loss_backward(grad, predictions, targets, weights, reduction="mean", ignore_index=-1)
        none = R.grad.nll_loss_backward(each, predictions, targets, reduction="none", ignore_index=1)
        scattered = R.grad.take_backward(taken, x, indices, axis=1)
        return (mean, none, scattered)


def test_nll_loss_and_take_backward_import_and_agree():
    rng = np.random.default_rng(0)
    u = lambda *shape: rng.uniform(-4, 4, shape).astype("float32")  # noqa: E731
    args = [np.array(1.5, "float32"), u(2, 3, 4), np.array([[0, 1, 2, 1], [2, 2, 0, 1]], "int64"),
            np.array([0.5, 2.0, 1.0, 3.0], "float32"), u(2, 4), u(3, 3, 2), u(3, 4, 2),
            np.array([1, 3, 1], "int32")]  # a repeated index sums its slices
    program = agrees(Backward, args)
    assert [n.op for n in program.nodes] == ["nll_loss_backward"] * 2 + ["take_backward"]


# -- tuple-valued ops bound and returned whole -----------------------------------------------------

@I.ir_module
class WholeTuples:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32"), gamma: R.Tensor((3,), "float32"), beta: R.Tensor((3,), "float32"),
             mean: R.Tensor((3,), "float32"), var: R.Tensor((3,), "float32"), k: R.Tensor((3, 5), "int32")):
        bn = R.nn.batch_norm(x, gamma, beta, mean, var, axis=1, training=False)
        dropped = R.nn.dropout(x, rate=0.5)
        top = R.topk(k, k=2, axis=1, largest=True)
        first = bn[0]
        return (bn, dropped, top, first)


def test_a_tuple_valued_op_returned_whole_imports_as_its_whole_tuple_and_agrees():
    rng = np.random.default_rng(0)
    x, gamma, beta, mean = (rng.uniform(-4, 4, s).astype("float32") for s in [(2, 3, 4), 3, 3, 3])
    var = rng.uniform(1, 4, 3).astype("float32")
    k = rng.permutation(15).reshape(3, 5).astype("int32")  # distinct: topk's indices are then one answer
    program = agrees(WholeTuples, [x, gamma, beta, mean, var, k])
    assert [n.op for n in program.nodes if n.op != "tuple"] == \
        ["batch_norm_tuple", "dropout_tuple", "topk_tuple", "tuple_get_item"]
    assert "index" not in program.nodes[0].attrs


def test_a_whole_tuple_holds_every_field_and_refuses_operands_any_field_refuses():
    x, c = F((2, 3, 4)), F((3,), -1, 1)
    whole = infer("batch_norm_tuple", x, c, c, c, F((3,), 1, 2), axis=1, epsilon=1e-5)
    assert isinstance(whole, TupleInfo) and [i.shape for i in whole.items] == [(2, 3, 4), (3,), (3,)]
    assert [a.shape for a in ref("topk_tuple", np.array([[3, 1, 2]], "int32"), k=2, axis=1, largest=True,
                                 dtype="int32")] == [(1, 2), (1, 2)]
    # training mode: the moving mean (field 1) is fine at any epsilon, the normalized field 0 is not
    attrs = {"axis": 1, "epsilon": 1e-5, "momentum": 0.1, "center": True, "scale": True}
    assert infer("batch_norm_training", x, c, c, c, F((3,), 1, 2), index=1, **attrs).shape == (3,)
    with pytest.raises(OpError, match="amplifies rounding"):
        infer("batch_norm_training_tuple", x, c, c, c, F((3,), 1, 2), **attrs)


@I.ir_module
class BatchFlatten:
    @R.function
    def main(x: R.Tensor((2, 3, 4, 5), "float32")) -> R.Tensor((2, 60), "float32"):
        gv: R.Tensor((2, 60), "float32") = R.nn.batch_flatten(x)
        return gv


def test_batch_flatten_imports_and_agrees_and_needs_rank_two():
    x = np.random.default_rng(1).uniform(-4, 4, (2, 3, 4, 5)).astype("float32")
    assert agrees(BatchFlatten, [x]).nodes[-1].op == "batch_flatten"
    assert infer("batch_flatten", F((3, 1, 2))).shape == (3, 2)
    with pytest.raises(OpError, match="rank >= 2"):
        infer("batch_flatten", F((6,)))

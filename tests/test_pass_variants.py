"""Every variant detector of passfuzz.passes.variants says yes on a hand-built program with the
form and no on a close one without it; the motifs' variants fire as recorded."""

import numpy as np
import pytest

from passfuzz.ir.graph import analyse
from passfuzz.ir.program import Node, Param, Program
from passfuzz.passes.variants import NOT_REACHED, PASS_VARIANTS, Scan, variants_in

F32 = "float32"


def x(*shape, dtype=F32, role="input", dims=()):
    lo, hi = (0, 1) if dtype == "bool" else (-1, 1)
    return Param(tuple(shape), dtype, lo, hi, np.zeros(shape, "float64").tolist(), role, dims=dims)


def w(*shape, dtype=F32):
    return x(*shape, dtype=dtype, role="weight")


def c(*shape, dtype=F32, value=0):
    return Node("const", (), {"shape": list(shape), "dtype": dtype, "value": np.full(shape, value).tolist()})


def n(op, *args, **attrs):
    return Node(op, tuple(args), attrs)


def program(*values) -> Program:
    """The values in order; every node no other node reads is an output."""
    used = {a for v in values if isinstance(v, Node) for a in v.args}
    outputs = tuple(i for i, v in enumerate(values) if isinstance(v, Node) and i not in used)
    result = Program(tuple(values), outputs)
    analyse(result)
    return result


CONV = {"strides": [1, 1], "padding": [0, 0, 0, 0], "dilation": [1, 1], "groups": 1, "data_layout": "NCHW",
        "kernel_layout": "OIHW", "out_dtype": None}
BN = {"axis": 1, "epsilon": 1e-5, "index": 0}


def conv_bn(data=None, kernel=None, conv=None, bn=None, o=3, c_in=2):
    data = data or x(1, c_in, 4, 4)
    return program(data, kernel or c(o, c_in // (conv or {}).get("groups", 1), 1, 1),
                   n("conv2d", 0, 1, **{**CONV, **(conv or {})}),
                   c(o), c(o), c(o), c(o, value=1), n("batch_norm", 2, 3, 4, 5, 6, **{**BN, **(bn or {})}))


# -- programs, one or more per pass ---------------------------------------------------------------
ON_LHS = program(x(2, 3), w(3, 4), n("matmul", 0, 1), x(4, 5), n("matmul", 2, 3))
ON_RHS = program(x(2, 3), w(3, 4), w(4, 5), n("matmul", 1, 2), n("matmul", 0, 3))
PERMUTED_RHS = program(x(3, 2), x(5, 4), w(4, 2), n("matmul", 1, 2), n("permute_dims", 3, axes=[1, 0]),
                       n("matmul", 0, 4))
ALL_WEIGHTS = program(w(2, 3), w(3, 4), n("matmul", 0, 1), w(4, 5), n("matmul", 2, 3))
PARALLEL = program(x(2, 3), w(3, 4), n("matmul", 0, 1), w(3, 5), n("matmul", 0, 3))
SUM = program(x(2, 3), x(3, 4), x(3, 4), n("add", 1, 2), n("matmul", 0, 3))
TAKE = program(x(2, 3), w(3, 5), c(4, dtype="int64"), n("take", 1, 2, axis=1), n("matmul", 0, 3))
CONCAT = program(x(2, 3), x(2, 3), n("permute_dims", 0, axes=[1, 0]), n("permute_dims", 1, axes=[1, 0]),
                 n("concat", 2, 3, axis=0))
TRANSPOSE = program(x(2, 3), w(4, 3), n("permute_dims", 1, axes=[1, 0]), n("matmul", 0, 2))
BATCHED_TRANSPOSE = program(x(2, 2, 3), w(2, 4, 3), n("permute_dims", 1, axes=[0, 2, 1]), n("matmul", 0, 2))
CONV_BN = conv_bn()
CHAIN = program(x(2, 3), n("reshape", 0, shape=[6]), n("reshape", 1, shape=[3, 2]))
FOLD = program(x(2), c(2), c(2, value=1), n("add", 1, 2), n("add", 0, 3))
DUPLICATE = program(x(2), n("add", 0, 0), n("add", 0, 0))
MIXED = program(x(2, 3), w(3, 4), n("matmul", 0, 1))
RELU = program(x(2, 3), n("relu", 0))


def bn_training(shape=(2, 3), axis=1, scale=True, center=True, momentum=0.1, index=0):
    c_ = shape[axis]
    return program(x(*shape), c(c_, value=1), c(c_), c(c_), c(c_, value=1),
                   n("batch_norm_training", 0, 1, 2, 3, 4, axis=axis, epsilon=1.0, momentum=momentum, center=center,
                     scale=scale, index=index))


BN_TRAINING = bn_training()
ELEMWISE_CHAIN = program(x(2, 3), n("relu", 0), n("negative", 1))


def with_dtype(dtype):
    return program(x(2, dtype=dtype), c(2, dtype=dtype), c(2, dtype=dtype, value=1),
                   n("logical_and" if dtype == "bool" else "add", 1, 2), n("logical_or" if dtype == "bool" else "add", 0, 3))


# (pass, variant): (a program with it, a program without it)
CASES = {
    ("AdjustMatmulOrder", "matmul_on_lhs"): (ON_LHS, ALL_WEIGHTS),
    ("AdjustMatmulOrder", "matmul_on_rhs"): (ON_RHS, ON_LHS),
    ("AdjustMatmulOrder", "permuted_matmul_on_lhs"): (
        program(x(2, 3), w(3, 4), n("matmul", 0, 1), n("permute_dims", 2, axes=None), w(2, 5), n("matmul", 3, 4)), ON_LHS),
    ("AdjustMatmulOrder", "permuted_matmul_on_rhs"): (PERMUTED_RHS, ON_LHS),
    ("AdjustMatmulOrder", "permute_not_a_swap"): (
        program(x(3, 2), x(2, 4), w(4, 2), n("matmul", 1, 2), n("permute_dims", 3, axes=[0, 1]), n("matmul", 0, 4)),
        PERMUTED_RHS),
    ("AdjustMatmulOrder", "compile_time_a_b"): (
        program(w(2, 3), w(3, 4), n("matmul", 0, 1), x(4, 5), n("matmul", 2, 3)), ON_LHS),
    ("AdjustMatmulOrder", "compile_time_b_c"): (ON_RHS, ON_LHS),
    ("AdjustMatmulOrder", "cost_model"): (ON_LHS, ON_RHS),
    ("AdjustMatmulOrder", "constant_operand"): (
        program(x(2, 3), w(3, 4), n("matmul", 0, 1), c(4, 5), n("matmul", 2, 3)), ON_LHS),
    ("AdjustMatmulOrder", "one_d_operand"): (
        program(x(3), w(3, 4), n("matmul", 0, 1), x(4, 5), n("matmul", 2, 3)), ON_LHS),
    ("AdjustMatmulOrder", "batched_operand"): (
        program(x(2, 2, 3), w(3, 4), n("matmul", 0, 1), x(4, 5), n("matmul", 2, 3)), ON_LHS),

    ("CombineParallelMatmul", "two_branches"): (
        PARALLEL, program(x(2, 3), w(3, 4), n("matmul", 0, 1), w(3, 5), n("matmul", 0, 3), w(3, 2), n("matmul", 0, 5))),
    ("CombineParallelMatmul", "three_or_more_branches"): (
        program(x(2, 3), w(3, 4), n("matmul", 0, 1), w(3, 5), n("matmul", 0, 3), w(3, 2), n("matmul", 0, 5)), PARALLEL),
    ("CombineParallelMatmul", "lhs_1d"): (program(x(3), w(3, 4), n("matmul", 0, 1), w(3, 5), n("matmul", 0, 3)), PARALLEL),
    ("CombineParallelMatmul", "lhs_batched"): (
        program(x(2, 2, 3), w(3, 4), n("matmul", 0, 1), w(3, 5), n("matmul", 0, 3)), PARALLEL),
    ("CombineParallelMatmul", "lhs_constant"): (
        program(c(2, 3), w(3, 4), n("matmul", 0, 1), w(3, 5), n("matmul", 0, 3)), PARALLEL),
    ("CombineParallelMatmul", "lhs_weight"): (
        program(w(2, 3), x(3, 4), n("matmul", 0, 1), x(3, 5), n("matmul", 0, 3)), PARALLEL),
    ("CombineParallelMatmul", "rhs_1d"): (program(x(2, 3), w(3), n("matmul", 0, 1), w(3), n("matmul", 0, 3)), PARALLEL),
    ("CombineParallelMatmul", "rhs_batched"): (
        program(x(2, 3), w(2, 3, 4), n("matmul", 0, 1), w(2, 3, 5), n("matmul", 0, 3)), PARALLEL),
    ("CombineParallelMatmul", "rhs_constant"): (
        program(x(2, 3), c(3, 4), n("matmul", 0, 1), w(3, 5), n("matmul", 0, 3)), PARALLEL),
    ("CombineParallelMatmul", "rhs_computed"): (
        program(x(2, 3), x(3, 4), n("negative", 1), n("matmul", 0, 2), w(3, 5), n("matmul", 0, 4)), PARALLEL),
    ("CombineParallelMatmul", "same_rhs_twice"): (
        program(x(2, 3), w(3, 4), n("matmul", 0, 1), n("matmul", 0, 1)), PARALLEL),
    ("CombineParallelMatmul", "same_value_both_sides"): (
        program(x(3, 3), n("matmul", 0, 0), w(3, 4), n("matmul", 0, 2)), PARALLEL),
    ("CombineParallelMatmul", "bias"): (
        program(x(2, 3), w(3, 4), n("matmul", 0, 1), w(4), n("add", 2, 3), w(3, 5), n("matmul", 0, 5), w(5),
                n("add", 6, 7)), PARALLEL),
    ("CombineParallelMatmul", "activation"): (
        program(x(2, 3), w(3, 4), n("matmul", 0, 1), n("relu", 2), w(3, 5), n("matmul", 0, 4), n("relu", 5)), PARALLEL),
    ("CombineParallelMatmul", "mixed_epilogues"): (
        program(x(2, 3), w(3, 4), n("matmul", 0, 1), n("relu", 2), w(3, 5), n("matmul", 0, 4)), PARALLEL),
    ("CombineParallelMatmul", "out_dtype"): (
        program(x(2, 3), w(3, 4), n("matmul", 0, 1, out_dtype="float16"), w(3, 5), n("matmul", 0, 3)), PARALLEL),

    ("ExpandMatmulOfSum", "sum_rhs"): (SUM, program(x(2, 3), w(3, 4), w(3, 4), n("add", 1, 2), n("matmul", 0, 3))),
    ("ExpandMatmulOfSum", "permuted_sum_rhs"): (
        program(x(2, 3), x(4, 3), x(4, 3), n("add", 1, 2), n("permute_dims", 3, axes=None), n("matmul", 0, 4)), SUM),
    ("ExpandMatmulOfSum", "one_addend_compile_time"): (
        program(x(2, 3), x(3, 4), w(3, 4), n("add", 1, 2), n("matmul", 0, 3)), SUM),
    ("ExpandMatmulOfSum", "constant_addend"): (program(x(2, 3), x(3, 4), c(3, 4), n("add", 1, 2), n("matmul", 0, 3)), SUM),
    ("ExpandMatmulOfSum", "broadcast_addend"): (program(x(2, 3), x(3, 4), x(4), n("add", 1, 2), n("matmul", 0, 3)), SUM),
    ("ExpandMatmulOfSum", "same_addend_twice"): (program(x(2, 3), x(3, 4), n("add", 1, 1), n("matmul", 0, 2)), SUM),
    ("ExpandMatmulOfSum", "lhs_1d"): (program(x(3), x(3, 4), x(3, 4), n("add", 1, 2), n("matmul", 0, 3)), SUM),
    ("ExpandMatmulOfSum", "lhs_batched"): (program(x(2, 2, 3), x(3, 4), x(3, 4), n("add", 1, 2), n("matmul", 0, 3)), SUM),

    ("ReorderTakeAfterMatmul", "take_last_axis"): (
        TAKE, program(x(2, 3), w(3, 5), c(4, dtype="int64"), n("take", 1, 2, axis=-1), n("matmul", 0, 3))),
    ("ReorderTakeAfterMatmul", "take_last_axis_batched_lhs"): (
        program(x(2, 2, 3), w(3, 5), c(4, dtype="int64"), n("take", 1, 2, axis=1), n("matmul", 0, 3)), TAKE),
    ("ReorderTakeAfterMatmul", "take_last_axis_1d_lhs"): (
        program(x(3), w(3, 5), c(4, dtype="int64"), n("take", 1, 2, axis=1), n("matmul", 0, 3)), TAKE),
    ("ReorderTakeAfterMatmul", "take_last_axis_batched_weight"): (
        program(x(2, 3), w(2, 3, 5), c(4, dtype="int64"), n("take", 1, 2, axis=2), n("matmul", 0, 3)), TAKE),
    ("ReorderTakeAfterMatmul", "take_computed_indices"): (
        program(x(2, 3), w(3, 5), x(4, dtype="int64"), n("clip", 2, min=0, max=4), n("take", 1, 3, axis=1),
                n("matmul", 0, 4)), TAKE),
    ("ReorderTakeAfterMatmul", "batched_lora"): (
        program(x(2, 2, 3), w(4, 3, 5), c(2, dtype="int64"), n("take", 1, 2, axis=0), n("matmul", 0, 3)), TAKE),

    ("ReorderPermuteDimsAfterConcat", "two_parts"): (
        CONCAT, program(x(2, 3), x(3, 2), n("permute_dims", 0, axes=[1, 0]), n("permute_dims", 1, axes=[0, 1]),
                        n("concat", 2, 3, axis=0))),
    ("ReorderPermuteDimsAfterConcat", "three_or_more_parts"): (
        program(x(2, 3), n("permute_dims", 0, axes=[1, 0]), x(2, 3), n("permute_dims", 2, axes=[1, 0]),
                n("concat", 1, 3, 1, axis=0)), CONCAT),
    ("ReorderPermuteDimsAfterConcat", "default_axes"): (
        program(x(2, 3), x(2, 3), n("permute_dims", 0, axes=None), n("permute_dims", 1, axes=None),
                n("concat", 2, 3, axis=0)), CONCAT),
    ("ReorderPermuteDimsAfterConcat", "explicit_axes"): (
        CONCAT, program(x(2, 3), x(2, 3), n("permute_dims", 0, axes=None), n("permute_dims", 1, axes=None),
                        n("concat", 2, 3, axis=0))),
    ("ReorderPermuteDimsAfterConcat", "negative_axes"): (
        program(x(2, 3), x(2, 3), n("permute_dims", 0, axes=[-1, -2]), n("permute_dims", 1, axes=[-1, -2]),
                n("concat", 2, 3, axis=0)), CONCAT),
    ("ReorderPermuteDimsAfterConcat", "negative_concat_axis"): (
        program(x(2, 3), x(2, 3), n("permute_dims", 0, axes=[1, 0]), n("permute_dims", 1, axes=[1, 0]),
                n("concat", 2, 3, axis=-1)), CONCAT),
    ("ReorderPermuteDimsAfterConcat", "rank_3_or_more"): (
        program(x(2, 3, 4), x(2, 3, 4), n("permute_dims", 0, axes=[2, 0, 1]), n("permute_dims", 1, axes=[2, 0, 1]),
                n("concat", 2, 3, axis=0)), CONCAT),
    ("ReorderPermuteDimsAfterConcat", "same_value_twice"): (
        program(x(2, 3), n("permute_dims", 0, axes=[1, 0]), n("concat", 1, 1, axis=0)), CONCAT),

    ("FuseTransposeMatmul", "default_axes_2d"): (
        program(x(2, 3), w(4, 3), n("permute_dims", 1, axes=None), n("matmul", 0, 2)), TRANSPOSE),
    ("FuseTransposeMatmul", "swap_axes_2d"): (
        TRANSPOSE, program(x(2, 3), w(4, 3), n("permute_dims", 1, axes=[-1, -2]), n("matmul", 0, 2))),
    ("FuseTransposeMatmul", "swap_axes_batched"): (BATCHED_TRANSPOSE, TRANSPOSE),
    ("FuseTransposeMatmul", "lhs_1d"): (program(x(3), w(4, 3), n("permute_dims", 1, axes=[1, 0]), n("matmul", 0, 2)),
                                        TRANSPOSE),
    ("FuseTransposeMatmul", "lhs_batched"): (
        program(x(2, 2, 3), w(4, 3), n("permute_dims", 1, axes=[1, 0]), n("matmul", 0, 2)), TRANSPOSE),
    ("FuseTransposeMatmul", "rhs_larger_rank"): (
        program(x(2, 3), w(2, 4, 3), n("permute_dims", 1, axes=[0, 2, 1]), n("matmul", 0, 2)), TRANSPOSE),
    ("FuseTransposeMatmul", "broadcast_batch_dim"): (
        program(x(2, 2, 3), w(1, 4, 3), n("permute_dims", 1, axes=[0, 2, 1]), n("matmul", 0, 2)), BATCHED_TRANSPOSE),
    ("FuseTransposeMatmul", "same_value_both_sides"): (
        program(x(2, 3), n("permute_dims", 0, axes=[1, 0]), n("matmul", 0, 1)), TRANSPOSE),
    ("FuseTransposeMatmul", "out_dtype"): (
        program(x(2, 3), w(4, 3), n("permute_dims", 1, axes=[1, 0]), n("matmul", 0, 2, out_dtype="float16")), TRANSPOSE),
    ("FuseTransposeMatmul", "integer_dtype"): (
        program(x(2, 3, dtype="int32"), w(4, 3, dtype="int32"), n("permute_dims", 1, axes=[1, 0]), n("matmul", 0, 2)),
        TRANSPOSE),
    ("FuseTransposeMatmul", "constant_w"): (
        program(x(2, 3), c(4, 3), n("permute_dims", 1, axes=[1, 0]), n("matmul", 0, 2)), TRANSPOSE),

    ("FoldBatchnormToConv2D", "oihw"): (CONV_BN, conv_bn(kernel=w(3, 2, 1, 1))),
    ("FoldBatchnormToConv2D", "strided_padded_dilated"): (conv_bn(conv={"strides": [2, 2]}), CONV_BN),
    ("FoldBatchnormToConv2D", "grouped"): (conv_bn(conv={"groups": 2}, o=2), CONV_BN),
    ("FoldBatchnormToConv2D", "epsilon"): (conv_bn(bn={"epsilon": 1e-3}), CONV_BN),
    ("FoldBatchnormToConv2D", "bn_axis_not_channels"): (conv_bn(o=1, bn={"axis": 0}), CONV_BN),
    # a 1x2x4x4 input and a 1x1 kernel give 4x4 outputs: 4 channels, batch_norm over the rows
    ("FoldBatchnormToConv2D", "bn_axis_as_long_as_channels"): (conv_bn(o=4, bn={"axis": 2}),
                                                               conv_bn(o=1, bn={"axis": 0})),
    ("FoldBatchnormToConv2D", "computed_input"): (
        program(x(1, 2, 4, 4), n("negative", 0), c(3, 2, 1, 1), n("conv2d", 1, 2, **CONV), c(3), c(3), c(3), c(3, value=1),
                n("batch_norm", 3, 4, 5, 6, 7, **BN)), CONV_BN),
    ("FoldBatchnormToConv2D", "constant_input"): (conv_bn(data=c(1, 2, 4, 4)), CONV_BN),

    ("RemoveRedundantReshape", "no_op_reshape"): (program(x(2, 3), n("reshape", 0, shape=[2, 3])),
                                                  program(x(2, 3), n("reshape", 0, shape=[6]))),
    ("RemoveRedundantReshape", "reshape_of_reshape"): (CHAIN, program(x(2, 3), n("reshape", 0, shape=[6]))),
    ("RemoveRedundantReshape", "chain_of_three"): (
        program(x(2, 3), n("reshape", 0, shape=[6]), n("reshape", 1, shape=[3, 2]), n("reshape", 2, shape=[1, 6])), CHAIN),
    ("RemoveRedundantReshape", "back_to_input_shape"): (
        program(x(2, 3), n("reshape", 0, shape=[6]), n("reshape", 1, shape=[2, 3])), CHAIN),
    ("RemoveRedundantReshape", "inferred_dim"): (
        program(x(2, 3), n("reshape", 0, shape=[-1]), n("reshape", 1, shape=[3, 2])), CHAIN),
    ("RemoveRedundantReshape", "inner_used_twice"): (
        program(x(2, 3), n("reshape", 0, shape=[6]), n("reshape", 1, shape=[3, 2]), n("reshape", 1, shape=[6, 1])), CHAIN),
    ("RemoveRedundantReshape", "symbolic_operand"): (
        program(x(2, 3, dims=("n", "")), n("reshape", 0, shape=[2, 3])), program(x(2, 3), n("reshape", 0, shape=[2, 3]))),

    ("FoldConstant", "op_on_constants"): (FOLD, program(x(2), c(2), n("add", 0, 1))),
    ("FoldConstant", "chain"): (program(x(2), c(2), c(2), n("add", 1, 2), n("negative", 3), n("add", 0, 4)), FOLD),
    ("FoldConstant", "tuple_result"): (program(x(2), c(4), n("split", 1, sections=2, axis=0, index=0), n("add", 0, 2)), FOLD),
    ("FoldConstant", "creation_op"): (program(x(2), n("zeros", shape=[2], dtype=F32), n("add", 0, 1)), FOLD),
    ("FoldConstant", "float16"): (with_dtype("float16"), FOLD),
    ("FoldConstant", "bfloat16"): (with_dtype("bfloat16"), FOLD),
    ("FoldConstant", "narrow_int"): (with_dtype("int8"), with_dtype("int32")),
    ("FoldConstant", "bool"): (with_dtype("bool"), FOLD),
    ("FoldConstant", "zero_d"): (program(x(2), c(), c(), n("add", 1, 2), n("add", 0, 3)), FOLD),

    ("EliminateCommonSubexpr", "duplicate_call"): (DUPLICATE, program(x(2), n("add", 0, 0), n("multiply", 0, 0))),
    ("EliminateCommonSubexpr", "duplicate_with_constant"): (
        program(x(2), c(2, value=1), n("add", 0, 1), c(2, value=1), n("add", 0, 3)), DUPLICATE),
    ("EliminateCommonSubexpr", "duplicate_tuple"): (program(x(2), n("tuple", 0, 0), n("tuple", 0, 0)), DUPLICATE),
    ("EliminateCommonSubexpr", "duplicate_tuple_item"): (
        program(x(2), n("split", 0, indices=[1], axis=0, index=0), n("split", 0, indices=[1], axis=0, index=0)),
        DUPLICATE),
    ("EliminateCommonSubexpr", "duplicate_chain"): (
        program(x(2), n("add", 0, 0), n("multiply", 1, 0), n("add", 0, 0), n("multiply", 3, 0)), DUPLICATE),
    ("EliminateCommonSubexpr", "duplicate_output"): (
        DUPLICATE, program(x(2), n("add", 0, 0), n("add", 0, 0), n("add", 1, 2))),

    ("ToMixedPrecision", "always_op"): (MIXED, program(x(2, 3, dtype="float16"), w(3, 4, dtype="float16"),
                                                       n("matmul", 0, 1))),
    ("ToMixedPrecision", "always_constant_operand"): (program(x(2, 3), c(3, 4), n("matmul", 0, 1)), MIXED),
    ("ToMixedPrecision", "always_weight_operand"): (MIXED, program(x(2, 3), c(3, 4), n("matmul", 0, 1))),
    ("ToMixedPrecision", "follow_after_always"): (program(x(2, 3), w(3, 4), n("matmul", 0, 1), n("add", 2, 2)), MIXED),
    ("ToMixedPrecision", "never_after_always"): (program(x(2, 3), w(3, 4), n("matmul", 0, 1), n("softmax", 2, axis=-1)),
                                                 MIXED),
    ("ToMixedPrecision", "always_after_always"): (
        program(x(2, 3), w(3, 4), n("matmul", 0, 1), w(4, 2), n("matmul", 2, 3)), MIXED),
    ("ToMixedPrecision", "tuple_operand"): (program(x(2, 3), w(3, 4), n("matmul", 0, 1), n("concat", 2, 2, axis=0)), MIXED),
    ("ToMixedPrecision", "result_escapes_block"): (MIXED, program(x(2, 3), w(3, 4), n("matmul", 0, 1), n("add", 2, 2))),
    ("ToMixedPrecision", "out_dtype"): (program(x(2, 3), w(3, 4), n("matmul", 0, 1, out_dtype=F32)), MIXED),

    ("DecomposeOpsForTraining", "batch_norm"): (BN_TRAINING, RELU),
    ("DecomposeOpsForTraining", "layer_norm"): (
        program(x(2, 3), c(3, value=1), c(3), n("layer_norm", 0, 1, 2, axes=[1], epsilon=1.0)), BN_TRAINING),
    ("DecomposeOpsForTraining", "channel_axis_not_1"): (bn_training(axis=0), BN_TRAINING),
    ("DecomposeOpsForTraining", "no_scale"): (bn_training(scale=False), BN_TRAINING),
    ("DecomposeOpsForTraining", "no_center"): (bn_training(center=False), BN_TRAINING),
    ("DecomposeOpsForTraining", "momentum_bound"): (bn_training(momentum=1.0), BN_TRAINING),
    ("DecomposeOpsForTraining", "updated_statistics"): (bn_training(index=2), BN_TRAINING),
    ("DecomposeOpsForTraining", "single_value_per_channel"): (bn_training(shape=(1, 3)), BN_TRAINING),

    ("FuseOps", "elemwise_chain"): (ELEMWISE_CHAIN, RELU),
    ("FuseOps", "broadcast_consumer"): (program(x(2, 3), n("relu", 0), x(3), n("add", 1, 2)),
                                        program(x(2, 3), n("relu", 0), x(2, 3), n("add", 1, 2))),
    ("FuseOps", "injective_after_elemwise"): (program(x(2, 3), n("relu", 0), n("reshape", 1, shape=[6])), RELU),
    ("FuseOps", "injective_chain"): (
        program(x(2, 3), n("reshape", 0, shape=[3, 2]), n("permute_dims", 1, axes=None)), RELU),
    ("FuseOps", "reduce_after_elemwise"): (program(x(2, 3), n("relu", 0), n("sum", 1, axis=[1], keepdims=False)), RELU),
    ("FuseOps", "epilogue"): (program(x(2, 3), w(3, 4), n("matmul", 0, 1), n("relu", 2)), RELU),
    ("FuseOps", "diamond"): (program(x(2, 3), n("relu", 0), n("negative", 1), n("reshape", 1, shape=[6])), ELEMWISE_CHAIN),
    ("FuseOps", "tuple_of_fusable"): (program(x(2, 3), n("relu", 0), n("concat", 1, 0, axis=0)), RELU),
    ("FuseOps", "constant_in_group"): (program(x(2, 3), n("relu", 0), c(2, 3), n("add", 1, 2)),
                                       program(x(2, 3), c(2, 3), n("add", 0, 1))),
}

ALL = [(name, v.name) for name, variants in PASS_VARIANTS.items() for v in variants]


def test_every_variant_has_a_case():
    assert sorted(CASES) == sorted(ALL)


@pytest.mark.parametrize("key", ALL, ids=lambda k: f"{k[0]}.{k[1]}")
def test_detector_finds_the_variant_and_only_there(key):
    name, variant = key
    having, lacking = CASES[key]
    assert variant in variants_in(having)[name]
    assert variant not in variants_in(lacking)[name]


def test_variants_cite_source_and_say_what_tvm_did():
    for name, variants in PASS_VARIANTS.items():
        assert len({v.name for v in variants}) == len(variants), name
        for v in variants:
            assert v.source.startswith(("cc:src/", "py:relax/")) and any(ch.isdigit() for ch in v.source), v
            assert v.observed in ("rewrites", "declines", "fails")
    assert set(NOT_REACHED) <= set(PASS_VARIANTS)


def test_compile_time_follows_weights_and_constants_only():
    scan = Scan(program(w(2, 3), c(3, 4), n("matmul", 0, 1), x(2, 4), n("add", 2, 3)))
    assert scan.compile_time[:3] == [True, True, True] and not scan.compile_time[4]
    assert scan.ct(0) and not scan.ct(1), "an inline constant is no Var, so no compile-time operand"

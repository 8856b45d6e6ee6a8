"""Shapes and scalars used as values, imported as TVM's own test modules write them: each module
below is in the style of apache/tvm's tests/python/relax/, and its import must build back into a
module that gives what the written one gives, and what numpy gives (``agrees``)."""

from dataclasses import replace

import numpy as np
import pytest
import tvm
from hypothesis import HealthCheck, given, settings
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

from passfuzz.ir.catalogue import infer_application
from passfuzz.ir.catalogue.base import OpError
from passfuzz.ir.graph import analyse, evaluate
from passfuzz.ir.program import Node, ProgramError, dim_names, dim_value
from passfuzz.judge.trial import check
from passfuzz.passes.names import resolve
from passfuzz.portable.standalone import numpy_outputs
from passfuzz.relax.build import _whole_parameter, build_module
from passfuzz.relax.importer import ImportRejected, import_module, import_with_notes
from strategies import seeded_programs

from .catalogue_support import F, infer, ref
from .test_importer import agrees, run

# -- size ---------------------------------------------------------------------------------------------


@I.ir_module
class Size:
    @R.function
    def main(x: R.Tensor(("m", "n"), "float32"), y: R.Tensor((2, 3, 4), "int32")):
        a = R.size(x)
        b = R.size(y)
        return (a, b)


def test_size_of_a_symbolic_and_a_static_tensor_imports_and_agrees():
    program = agrees(Size, [np.zeros((3, 5), "float32"), np.zeros((2, 3, 4), "int32")])
    assert [n.op for n in program.nodes] == ["size", "size"]
    assert "R.size(x0)" in build_module(program).script()  # on x0 as typed, (m, n): no match_cast
    assert ref("size", np.zeros((3, 5))) == 15 and ref("size", np.zeros((3, 5))).dtype == "int64"
    assert infer("size", F((7, 3))).shape == () and infer("size", F((7, 3))).lo == 21
    with pytest.raises(OpError):
        infer("size", F((2,)), axis=0)


# -- take at an R.Prim index ----------------------------------------------------------------------


@I.ir_module
class TakePrimIndex:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32"), index: T.int64):
        gv = R.take(x, index, axis=1, mode="fast")
        return gv


def test_an_int64_prim_parameter_no_type_names_is_a_scalar_index_value():
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    program = agrees(TakePrimIndex, [x, 2])
    index = program.values[1]
    assert index.prim and index.dtype == "int64" and (index.lo, index.hi) == (0, 2)  # narrowed to axis 1
    assert program.arguments()[1] == 2 and not program.prim_params
    assert "x1: T.int64" in build_module(program).script()  # the parameter as the test writes it
    wide = replace(program, values=(program.values[0], replace(index, hi=3, value=3), *program.values[2:]))
    with pytest.raises(ProgramError):  # a fast take's index may leave the axis
        analyse(wide)


# -- a literal shape as a tensor ------------------------------------------------------------------


@I.ir_module
class FoldShapeComputation:
    @R.function
    def main(data: R.Tensor((5, 4, 3, 2), "float32"), indices: R.Tensor((1,), "int64")):
        with R.dataflow():
            lv = R.shape_to_tensor(R.shape([5, 4, 3, 2]))
            lv1 = R.take(lv, indices, axis=0)
            gv = R.expand_dims(lv1, axis=[0])
            R.output(gv)
        return gv


def test_a_literal_shape_converted_to_a_tensor_imports_and_agrees():
    program = agrees(FoldShapeComputation, [np.zeros((5, 4, 3, 2), "float32"), np.array([2], "int64")])
    assert program.nodes[0] == Node("shape_tensor", (), {"shape": [5, 4, 3, 2]})
    assert (program.values[1].lo, program.values[1].hi) == (0, 3)  # the take's index stays inside the 4 dims
    assert "R.shape_to_tensor(R.shape([5, 4, 3, 2]))" in build_module(program).script()
    np.testing.assert_array_equal(ref("shape_tensor", shape=[1, 7]), np.array([1, 7], "int64"))
    for bad in ([], [2, -1], [2.0]):
        with pytest.raises(OpError):
            infer("shape_tensor", shape=bad)


# -- a tuple parameter read whole -----------------------------------------------------------------


@I.ir_module
class ConcatOfATupleParameter:
    @R.function
    def main(x: R.Tensor((3,), "float32"),
             t: R.Tuple(R.Tensor((3, 4), "float32"), R.Tuple(R.Tensor((3, 5), "float32"), R.Tensor((3, 1), "float32")))):
        a = R.concat(t[1], axis=1)
        t1 = t[1]
        b = R.concat((t[0], t1[0]), axis=1)
        c = R.concat(t1, axis=1)
        return (a, b, c, x)


def test_a_tuple_parameter_read_whole_is_a_tuple_of_its_items_built_back_as_the_parameter():
    rng = np.random.default_rng(0)
    args = [rng.uniform(-4, 4, 3).astype("float32"),
            (rng.uniform(-4, 4, (3, 4)).astype("float32"),
             (rng.uniform(-4, 4, (3, 5)).astype("float32"), rng.uniform(-4, 4, (3, 1)).astype("float32")))]
    program = agrees(ConcatOfATupleParameter, args)
    assert [n.op for n in program.nodes] == ["tuple", "concat", "concat", "tuple", "concat"]
    assert program.nodes[0].attrs == {"parameter": True}
    unmarked = replace(program, values=tuple(replace(v, attrs={}) if isinstance(v, Node) and v.op == "tuple" else v
                                             for v in program.values))
    assert 'lv3: R.Tuple(R.Tensor((3, 5), dtype="float32"), R.Tensor((3, 1), dtype="float32")) = lv1, lv2' in \
        build_module(unmarked).script()  # a tuple drawn so stays one
    text = build_module(program).script()
    # the parameter's item itself (bound once by the BlockBuilder), as written; a tuple of some items stays one
    assert "lv: R.Tuple(" in text and text.count(") = t1[1]") == 1 and text.count("R.concat(lv, axis=1)") == 2
    assert "R.concat((lv2, lv3), axis=1)" in text


def test_only_every_item_of_a_tuple_parameter_in_order_is_that_parameter():
    t = relax.Var("t", relax.TupleType([relax.TensorType((2,), "float32")] * 3))
    items = [relax.TupleGetItem(t, k) for k in range(3)]
    assert _whole_parameter(items).same_as(t)
    assert _whole_parameter(items[:2]) is None  # some items: a tuple of its own
    assert _whole_parameter([items[1], items[0], items[2]]) is None  # reordered


@I.ir_module
class TupleOfUnknownRank:
    @R.function
    def main(t: R.Tuple(R.Tensor, R.Tensor)) -> R.Tensor:
        return R.add(t[0], t[1])


def test_a_tuple_parameter_of_tensors_of_unknown_rank_is_a_rejection_not_a_crash():
    # an item of a tuple parameter has no variable of its own to look for a match_cast of
    with pytest.raises(ImportRejected, match="parameter t: a tensor of unknown rank"):
        import_module(TupleOfUnknownRank)


# -- R.Shape values ---------------------------------------------------------------------------------


@I.ir_module
class ShapeValues:
    @R.function
    def main(x: R.Tensor(("m", 3), "float32"), s: R.Shape(ndim=2), t: R.Tensor((3,), "int64"), u: R.Shape(["a", "b"])):
        a = R.shape_of(x)
        b = R.shape_to_tensor(s)
        c = R.tensor_to_shape(t)
        d = R.shape_to_tensor(u)
        return (a, b, c, d, s)


def test_shapes_as_values_import_and_agree_and_are_returned_as_shape_tuples():
    args = [np.zeros((4, 3), "float32"), (2, 7), np.array([1, 0, 5], "int64"), (3, 6)]
    program = agrees(ShapeValues, args)
    assert [n.op for n in program.nodes] == ["shape_value", "shape_to_tensor", "tensor_to_shape", "shape_to_tensor"]
    assert [p.shape_value for _, p in program.params] == [False, True, False, True]
    assert program.arguments()[1] == (2, 7) and program.values[2].lo >= 0  # sizes
    assert [str(p.ty) for p in build_module(program)["main"].params][1::2] == ["R.Shape(ndim=2)"] * 2
    info = infer("shape_value", F((4, 3)))
    assert info.shape_value and info.shape == (2,)
    with pytest.raises(OpError):  # a tensor is no R.Shape, and no other op reads an R.Shape
        infer("shape_to_tensor", F((2,), 0, 8, "int64"))
    with pytest.raises(OpError):
        infer_application("exp", [0], [info], {})
    with pytest.raises(OpError):  # a size below zero
        infer("tensor_to_shape", F((2,), -1, 8, "int64"))


def test_an_r_shape_value_is_an_input_of_int64_sizes_and_stays_in_main():
    program = import_module(ShapeValues, arguments=[np.zeros((4, 3), "float32"), (2, 7),
                                                    np.array([1, 0, 5], "int64"), (3, 6)])
    s = program.values[1]
    for bad in (replace(s, lo=-1, value=[-1, 7]), replace(s, dtype="int32"), replace(s, role="weight")):
        with pytest.raises(ProgramError):
            analyse(replace(program, values=(program.values[0], bad, *program.values[2:])))
    inside = Node("call", (4,), {"local": False, "body": {"values": [{"op": "shape_to_tensor", "args": [0],
                                                                      "attrs": {}}], "outputs": [1]}})
    with pytest.raises(ProgramError):  # a function body taking one
        analyse(replace(program, values=(*program.values, inside)))


def test_a_program_of_shape_values_passes_a_trial_with_its_arguments_redrawn():
    program = import_module(ShapeValues)  # arguments drawn by the importer: sizes in their ranges
    for passes in (["LegalizeOps"], ["FoldConstant", "DeadCodeElimination"]):
        verdict, _ = check(program, [resolve(p) for p in passes], ["llvm"], timeout=120, argument_draws=3)
        assert verdict.finding is None and not verdict.generator_defect and not verdict.incomparable, verdict
    (out,) = numpy_outputs(tvm.runtime.ShapeTuple([4, 0]))  # what the VM returns for an R.Shape
    assert out.dtype == "int64" and out.tolist() == [4, 0]


SHAPE_SEED = import_module(ShapeValues)


@settings(deadline=None, database=None, max_examples=25, suppress_health_check=list(HealthCheck))
@given(seeded_programs([SHAPE_SEED], max_mutations=4))
def test_mutations_of_a_program_of_shape_values_build_and_keep_them_in_shape_ops(program):
    infos = analyse(program)
    shapes = {i for i, info in enumerate(infos) if getattr(info, "shape_value", False)}
    assert all(n.op in ("shape_to_tensor",) for n in program.nodes if set(n.args) & shapes)
    assert relax.analysis.check_well_formed(build_module(program))


# -- dims written as expressions --------------------------------------------------------------------


@I.ir_module
class SplitSymbolic:
    @R.function
    def main(dumb_param: R.Tensor(("n",), "float32"), x: R.Tensor(("m", "n * 3"), "float32")):
        gv = R.split(x, indices_or_sections=3, axis=1)
        return gv


@I.ir_module
class DefinedByAShape:
    @R.function
    def main(s: R.Shape(["c"]), x: R.Tensor(("n", "4 * c"), "float32"), gamma: R.Tensor(("4 * c",), "float32")):
        gv = R.multiply(x, gamma)
        return gv


def test_dims_written_as_expressions_import_typed_so_and_agree():
    rng = np.random.default_rng(0)
    program = agrees(SplitSymbolic, [np.zeros(2, "float32"), rng.uniform(-4, 4, (3, 6)).astype("float32")])
    assert program.values[1].dims == ("m", "n * 3") and program.symbol_values() == {"n": 2, "m": 3}
    assert 'x1: R.Tensor((m, "n * 3"), dtype="float32")' in build_module(program).script()
    args = [(2,), rng.uniform(-4, 4, (3, 8)).astype("float32"), rng.uniform(-4, 4, 8).astype("float32")]
    program = agrees(DefinedByAShape, args)  # c only an R.Shape parameter defines
    assert program.shape_params == (("c",),) and program.symbol_values()["c"] == 2  # 4 * c is 8
    assert program.arguments()[2] == (2,)
    drawn = import_module(DefinedByAShape)  # sizes drawn: c first, 4 * c from it
    assert drawn.values[0].shape[1] == 4 * drawn.symbol_values()["c"] == drawn.values[1].shape[0]


def test_an_expression_dim_must_be_its_size_and_name_defined_variables_only():
    program = import_module(SplitSymbolic, arguments=[np.zeros(2, "float32"), np.zeros((3, 6), "float32")])
    x = program.values[1]
    for bad in (replace(x, shape=(3, 7), value=np.zeros((3, 7)).tolist()),  # not 3 * n
                replace(x, dims=("m", "k * 3"))):  # k: defined by nothing
        with pytest.raises(ProgramError):
            analyse(replace(program, values=(program.values[0], bad, *program.values[2:])))
    with pytest.raises(ProgramError):  # not an expression a dim can be
        analyse(replace(program, values=(program.values[0], replace(x, dims=("m", "n ** 3")), *program.values[2:])))


# -- a literal R.prim_value operand -------------------------------------------------------------------


@I.ir_module
class TakeLiteralIndex:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")):
        gv = R.take(x, R.prim_value(2), axis=1, mode="fast")
        return gv


def test_a_literal_prim_value_operand_is_a_const_written_as_one_again():
    program = agrees(TakeLiteralIndex, [np.arange(24, dtype="float32").reshape(2, 3, 4)])
    assert program.values[1] == Node("const", (), {"shape": [], "dtype": "int64", "value": 2, "prim": True})
    assert "R.take(x0, 2, axis=1" in build_module(program).script()  # as the module writes it
    for op in ("exp", "negative"):  # read by an op that takes no R.Prim, or returned, it is refused
        with pytest.raises(ProgramError):
            analyse(replace(program, values=(*program.values, Node(op, (1,))), outputs=(2, 3)))
    with pytest.raises(ProgramError):
        analyse(replace(program, outputs=(1, 2)))


def test_a_dim_dividing_by_a_variable_of_size_0_is_invalid_not_a_crash():
    with pytest.raises(ProgramError):
        dim_value("n // m", {"n": 4, "m": 0})
    assert dim_value("(n * 3 + 3 - 1) // 3", {"n": 2}) == 2 and sorted(dim_names("n * 3 - m")) == ["m", "n"]


# -- symbolic variables in an op's attributes: the body specialized -----------------------------------


@I.ir_module
class ReshapedSymbolic:  # test_transform_rewrite_dataflow_reshape's test_rewrite_dynamic_reshape
    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        with R.dataflow():
            y = R.reshape(x, (n // 4, 4))
            z = R.strided_slice(y, (1,), (0,), (n // 2 - 1,))  # (1, 1) at n = 4: TVM leaves 2 - 1 unfolded
            w = R.add(z, R.zeros((n // 4, 1), "float32"))
            R.output(w)
        return w


def test_symbolic_variables_in_attributes_import_with_the_body_specialized_and_the_parameters_symbolic():
    program, notes = import_with_notes(ReshapedSymbolic)
    assert "its body specialized at n = 4" in notes
    assert program.values[0].dims == ("n",) and program.symbol_values() == {"n": 4}
    built = build_module(program)
    assert 'x0: R.Tensor((n,), dtype="float32")' in built.script()  # main stays typed symbolically
    arguments = program.arguments()
    want, got, reference = run(ReshapedSymbolic, arguments), run(built, arguments), evaluate(program)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_allclose(reference[0], want[0])
    assert want[0].shape == (1, 1)


def test_a_body_no_sizes_make_importable_keeps_the_reason_it_was_refused_for():
    @I.ir_module
    class Mismatched:
        @R.function
        def main(x: R.Tensor(("n",), "float32")):
            n = T.int64()
            y = R.reshape(x, (n, 3))  # n * 3 elements out of n: valid at no size
            return y

    with pytest.raises(ImportRejected, match="op relax.reshape: its attributes or operands match no OpDef"):
        import_module(Mismatched)

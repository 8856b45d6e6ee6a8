"""Shapes and scalars used as values, imported as TVM's own test modules write them: each module
below is in the style of apache/tvm's tests/python/relax/, and its import must build back into a
module that gives what the written one gives, and what numpy gives (``agrees``)."""

from dataclasses import replace

import numpy as np
import pytest
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

from passfuzz.ir.catalogue.base import OpError
from passfuzz.ir.graph import analyse
from passfuzz.ir.program import Node, ProgramError
from passfuzz.relax.build import _whole_parameter, build_module

from .catalogue_support import F, infer, ref
from .test_importer import agrees

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

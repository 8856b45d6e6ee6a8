"""The importer: Relax IRModule -> Program.

Drawn programs come back exactly (in the importer's normal form, ``canonical``); modules written
by hand in TVM's test style import, and the imported Program compiles, runs and agrees with the
original module and with numpy; what the catalogue cannot express is rejected in one line; and
without arguments, parameter ranges are chosen so that the analysis accepts the Program.
"""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

from passfuzz.ir.graph import analyse, evaluate
from passfuzz.ir.program import Node, Param, Program
from passfuzz.portable.standalone import load, numpy_outputs, to_tvm
from passfuzz.relax.build import build_module
from passfuzz.relax.importer import ImportRejected, canonical, import_module, import_with_notes
from strategies import relax_programs

# Thousands of drawn programs: about 25 ms each on one core, most of it drawing them.
ROUND_TRIP = settings(max_examples=2000, deadline=None, phases=[Phase.generate], database=None,
                      suppress_health_check=list(HealthCheck))


def without_ranges(program):
    """The module does not hold the declared ranges: the importer infers its own."""
    return replace(program, values=tuple(replace(v, lo=0, hi=0) if isinstance(v, Param) else v
                                         for v in program.values))


def comes_back_exactly(program):
    imported = import_module(build_module(program), arguments=program.arguments())
    assert without_ranges(imported) == without_ranges(canonical(program)), (imported, canonical(program))
    analyse(imported)  # the inferred ranges hold the arguments and make the program valid
    return imported


@ROUND_TRIP
@given(relax_programs())
def test_drawn_programs_come_back_exactly(program):
    comes_back_exactly(program)



@settings(max_examples=60, deadline=None, phases=[Phase.generate], database=None,
          suppress_health_check=list(HealthCheck))
@given(relax_programs(ops=["batch_norm_training", "batch_norm", "add"], max_nodes=4))
def test_batch_norms_come_back_in_their_own_mode(program):
    """training=True reads back as batch_norm_training (with momentum, center and scale), training=False
    as batch_norm: the two modes are two catalogue ops on one Relax op."""
    imported = comes_back_exactly(program)
    assert [v.op for v in imported.values if isinstance(v, Node)].count("batch_norm_training") == \
        [v.op for v in program.values if isinstance(v, Node)].count("batch_norm_training")

def param(shape, dtype, value, lo=-4, hi=4):
    return Param(shape, dtype, lo, hi, value)


@pytest.mark.parametrize("op, attrs", [
    ("one_hot", {"depth": 3, "axis": 1, "on_value": 0, "off_value": 1, "dtype": "bool"}),
    ("full_like", {"value": 1, "dtype": "bool"}),
    ("full_like", {"value": 0, "dtype": None}),
])
def test_bool_values_of_attributes_come_back(op, attrs):
    """A bool constant or prim value (a bool fill, one_hot's on/off values on bool) is the 0 or 1
    the op was drawn with."""
    program = Program((param((2,), "int32", [0, 2], 0, 2), Node(op, (0,), attrs)), (1,))
    assert comes_back_exactly(program).values[1].attrs == attrs


def test_a_bool_masked_fill_and_full_come_back():
    program = Program((param((2,), "bool", [True, False], 0, 1), param((2,), "bool", [False, True], 0, 1),
                       Node("masked_fill", (0, 1), {"value": False}),
                       Node("full", (), {"shape": [2], "dtype": "bool", "value": 1})), (2, 3))
    comes_back_exactly(program)


def test_a_composite_op_comes_back_as_its_pieces():
    """linear emits permute_dims then matmul (then add): the module cannot tell it from those ops
    drawn one by one, so the import gives the pieces, and canonical expands linear into them."""
    x, w, b = param((2, 3), "float32", [[1.0] * 3] * 2), param((4, 3), "float32", [[0.5] * 3] * 4), \
        param((4,), "float32", [0.25] * 4)
    linear = Program((x, w, b, Node("linear", (0, 1, 2))), (3,))
    pieces = Program((x, w, b, Node("permute_dims", (1,), {"axes": None}), Node("matmul", (0, 3), {"out_dtype": None}),
                      Node("add", (4, 2))), (5,))
    assert [n.op for n in canonical(linear).nodes] == ["permute_dims", "matmul", "add"]
    assert [n.op for n in comes_back_exactly(linear).nodes] == ["permute_dims", "matmul", "add"]
    assert comes_back_exactly(pieces) == comes_back_exactly(linear)


def test_a_closure_returning_a_tuple_keeps_its_tuple():
    body = {"values": [{"op": "negative", "args": [0], "attrs": {}}, {"op": "tuple", "args": [1], "attrs": {}}],
            "outputs": [2]}
    program = Program((param((2,), "float32", [1.0, -1.0]), Node("call", (0,), {"local": True, "body": body})), (1,))
    imported = comes_back_exactly(program)
    assert imported.values[1].attrs["body"]["values"][-1]["op"] == "tuple"


@pytest.mark.parametrize("local", [False, True], ids=["private-function", "closure"])
def test_a_function_taking_a_tuple_comes_back_and_reads_its_items(local):
    """test_transform_expand_tuple_args' modules: a function whose parameter is a tuple reads its
    items as tuple_get_item nodes of that parameter."""
    body = {"values": [{"op": "tuple_get_item", "args": [0], "attrs": {"index": 1}},
                       {"op": "negative", "args": [1], "attrs": {}}], "outputs": [2]}
    x, y = param((2,), "float32", [1.0, -1.0]), param((3,), "float32", [0.5, 2.0, -3.0])
    program = Program((x, y, Node("tuple", (0, 1)), Node("call", (2,), {"local": local, "body": body})), (3,))
    imported = comes_back_exactly(program)
    np.testing.assert_array_equal(evaluate(imported)[0], [-0.5, -2.0, 3.0])
    np.testing.assert_array_equal(run(build_module(imported), imported.arguments())[0], [-0.5, -2.0, 3.0])


def test_a_constant_operand_of_an_if_comes_back_inside_the_branch_that_reads_it():
    """relax_build keeps constants inline, so a branch holds main's constant itself, which reads
    back as the branch's own: canonical moves it there (the else branch, which does not read it,
    gets none), and main keeps its copy for the op that reads it outside."""
    const = Node("const", (), {"shape": [2], "dtype": "float32", "value": [0.5, -2.0]})
    then = {"values": [{"op": "add", "args": [0, 1], "attrs": {}}], "outputs": [2]}
    other = {"values": [{"op": "negative", "args": [0], "attrs": {}}], "outputs": [2]}
    program = Program((param((), "bool", True, 0, 1), param((2,), "float32", [1.0, 3.0]), const,
                       Node("maximum", (1, 2)), Node("if", (0, 1, 2), {"then": then, "else": other})), (3, 4))
    imported = comes_back_exactly(program)
    branch = imported.values[-1]
    assert branch.op == "if" and branch.args == (0, 1)
    assert [v["op"] for v in branch.attrs["then"]["values"]] == ["const", "add"]
    assert [v["op"] for v in branch.attrs["else"]["values"]] == ["negative"]
    assert [n.op for n in imported.nodes] == ["const", "maximum", "if"]
    np.testing.assert_allclose(evaluate(imported)[1], evaluate(program)[1])


def test_an_if_whose_only_operand_is_a_constant_comes_back_with_its_condition_alone():
    """With its constant moved into the branches, the If reads no outer value: an If of a
    condition alone, which the analysis accepts and which computes what the original does."""
    const = Node("const", (), {"shape": [1], "dtype": "int64", "value": [3]})
    then = {"values": [{"op": "negative", "args": [0], "attrs": {}}], "outputs": [1]}
    other = {"values": [], "outputs": [0]}
    program = Program((param((), "bool", False, 0, 1), const, Node("if", (0, 1), {"then": then, "else": other})), (2,))
    imported = comes_back_exactly(program)
    assert [(n.op, n.args) for n in imported.nodes] == [("if", (0,))]
    assert [v["op"] for v in imported.values[1].attrs["else"]["values"]] == ["const"]
    assert evaluate(imported)[0].tolist() == [3]


def test_a_range_is_narrowed_on_the_next_parameter_when_the_first_has_no_narrower_one():
    """softmax of a matmul too wide for rounding: once the matmul's first operand has no narrower
    range left (down to its argument's own), the weight's is narrowed to the next candidate,
    rather than every parameter falling back to its argument's exact range."""
    x = param((2, 8), "float32", [[3.5, -3.5] * 4] * 2)
    w = param((8, 8), "float32", [[0.25] * 8] * 8)
    program = Program((x, w, Node("matmul", (0, 1), {"out_dtype": None}), Node("softmax", (2,), {"axis": -1})), (3,))
    imported = import_module(build_module(program), arguments=program.arguments())
    analyse(imported)
    assert (imported.values[0].lo, imported.values[0].hi) == (-3.5, 3.5)
    assert (imported.values[1].lo, imported.values[1].hi) == (-1.0, 1.0)


@I.ir_module
class RepeatedPower:  # test_transform_gradient_checkpoint's test_sequential: x ** 81 in four steps
    @R.function
    def main(x: R.Tensor((3, 3), "float32")):
        with R.dataflow():
            y = R.power(x, R.const(3, "float32"))
            z = R.power(R.power(R.power(y, R.const(3, "float32")), R.const(3, "float32")), R.const(3, "float32"))
            s = R.sum(z)
            R.output(s)
        return s


def test_repeated_powers_import_with_their_base_in_a_narrow_range_around_one():
    program = import_module(RepeatedPower)
    x = program.values[0]
    assert (x.lo, x.hi) == (0.95, 1.05)  # 1.05 ** 27 stays a base power accepts; 4 ** 27 does not
    np.testing.assert_allclose(run(build_module(program), program.arguments())[0], evaluate(program)[0], rtol=1e-4)


def run(mod, arguments):
    executable, device = load(mod, "llvm")
    vm = relax.VirtualMachine(executable, device)
    return numpy_outputs(vm["main"](*[to_tvm(a, device) for a in arguments]))


def agrees(module, arguments):
    """Import ``module`` with ``arguments`` (in its parameter order): the Program's build gives
    what the module gives, and so does numpy."""
    program = import_module(module, arguments=arguments)
    analyse(program)
    original = run(module, arguments)
    imported = run(build_module(program), program.arguments())
    reference = evaluate(program)
    assert len(original) == len(imported) == len(reference)
    for a, b, c in zip(original, imported, reference):
        np.testing.assert_allclose(a, b, rtol=1e-6)
        np.testing.assert_allclose(a, c.astype(a.dtype), rtol=1e-4, atol=1e-5)
    return program


class TestDataflowWithWeights:
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), w: R.Tensor((3, 4), "float32"), b: R.Tensor((4,), "float32")):
            R.func_attr({"num_input": 1})
            with R.dataflow():
                y = R.matmul(x, w)
                z = R.add(y, b)
                s = R.nn.relu(z)
                t = R.multiply(s, R.const(2.0, "float32"))
                R.output(t)
            return t

    def test_imports_runs_and_agrees(self):
        rng = np.random.default_rng(0)
        args = [rng.uniform(-1, 1, s).astype("float32") for s in ((2, 3), (3, 4), (4,))]
        program = agrees(self.Before, args)
        assert [p.role for _, p in program.params] == ["input", "weight", "weight"]
        assert program.num_input == 1
        assert [n.op for n in program.nodes] == ["matmul", "add", "relu", "const", "multiply"]


class TestPrivateFunctionAndTuple:
    @I.ir_module
    class Before:
        @R.function(private=True)
        def square(a: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            with R.dataflow():
                b = R.multiply(a, a)
                R.output(b)
            return b

        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
            cls = Before
            with R.dataflow():
                s = cls.square(x)
                t = (s, y)
                u = t[1]
                v = R.subtract(s, u)
                R.output(v, t)
            return (v, t)

    def test_imports_runs_and_agrees(self):
        args = [np.full((2, 3), 1.5, "float32"), np.arange(6, dtype="float32").reshape(2, 3)]
        program = agrees(self.Before, args)
        call = next(n for n in program.nodes if n.op == "call")
        assert call.attrs["local"] is False and [v["op"] for v in call.attrs["body"]["values"]] == ["multiply"]
        assert {"tuple", "tuple_get_item", "subtract"} <= {n.op for n in program.nodes}


class TestFunctionReturningATupleWrittenInline:
    """test_transform_remove_unused_outputs' modules: a private function of no parameters returns
    ``(A, B)`` written inline, one value (a tuple node in its body), whose items main reads."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            cls = Before  # noqa: F821 - the module TVMScript parses, by its own name
            args = cls.func(x)
            fills = cls.fills()
            return (args[0], fills[1])

        @R.function(private=True)
        def func(x: R.Tensor((2, 3), "float32")) -> R.Tuple([R.Tensor((2, 3), "float32"), R.Tensor((2, 3), "float32")]):
            a = R.negative(x)
            b = R.exp(x)
            return (a, b)

        @R.function(private=True)
        def fills() -> R.Tuple([R.Tensor((4,), "int32"), R.Tensor((4,), "int32")]):
            a = R.zeros([4], "int32")
            b = R.ones([4], "int32")
            return (a, b)

    def test_imports_builds_back_runs_and_agrees(self):
        program = agrees(self.Before, [np.arange(6, dtype="float32").reshape(2, 3) / 4])
        calls = [n for n in program.nodes if n.op == "call"]
        assert [n.args for n in calls] == [(0,), ()]
        assert all(n.attrs["body"]["values"][-1]["op"] == "tuple" for n in calls)
        comes_back_exactly(program)


class TestClosureAndIf:
    @I.ir_module
    class Before:
        @R.function
        def main(c: R.Tensor((), "bool"), x: R.Tensor((2, 3), "float32")):
            @R.function
            def inner(y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
                z = R.exp(y)
                return z

            e = inner(x)
            if c:
                r = R.add(e, x)
            else:
                r = R.negative(x)
            return r

    @pytest.mark.parametrize("cond", [True, False])
    def test_imports_runs_and_agrees(self, cond):
        args = [np.array(cond), np.linspace(-1, 1, 6, dtype="float32").reshape(2, 3)]
        program = agrees(self.Before, args)
        call = next(n for n in program.nodes if n.op == "call")
        branch = next(n for n in program.nodes if n.op == "if")
        assert call.attrs["local"] is True
        assert [v["op"] for v in branch.attrs["then"]["values"]] == ["add"]
        assert [v["op"] for v in branch.attrs["else"]["values"]] == ["negative"]


class TestLayoutTransform:
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 8, 3, 3), "float32")):
            with R.dataflow():
                y = R.layout_transform(x, index_map=lambda n, c, h, w: (n, h, w, c), pad_value=None)
                z = R.layout_transform(y, index_map=lambda n, h, w, c: (n, c // 4, h, w, c % 4))
                u = R.layout_transform(z, index_map=T.index_map(lambda a, b, c, d, e: (a, b * 4 + e, c, d),
                                                                index_dtype="int32"), pad_value=None)
                R.output(u)
            return u

    def test_imports_runs_and_agrees(self):
        args = [np.arange(2 * 8 * 3 * 3, dtype="float32").reshape(2, 8, 3, 3)]
        program = agrees(self.Before, args)
        assert [n.attrs["index_map"] for n in program.nodes] == [
            [["var", 0], ["var", 2], ["var", 3], ["var", 1]],
            [["var", 0], ["//", ["var", 3], 4], ["var", 1], ["var", 2], ["%", ["var", 3], 4]],
            [["var", 0], ["+", ["*", ["var", 1], 4], ["var", 4]], ["var", 2], ["var", 3]]]
        assert program.nodes[2].attrs["index_dtype"] == "int32" and "index_dtype" not in program.nodes[1].attrs

    def test_a_map_that_pads_is_rejected_in_one_line(self):
        @I.ir_module
        class Padded:
            @R.function
            def main(x: R.Tensor((14,), "float32")):
                with R.dataflow():
                    y = R.layout_transform(x, index_map=lambda i: (i // 4, i % 4), pad_value=0.0)
                    R.output(y)
                return y

        with pytest.raises(ImportRejected, match="one to one \\(padding\\)") as rejected:
            import_module(Padded)
        assert "\n" not in str(rejected.value)


class TestConv2dInALayoutNotDrawn:
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((1, 6, 6, 4), "float32"), w: R.Tensor((8, 3, 3, 4), "float32")):
            with R.dataflow():
                y = R.nn.conv2d(x, w, padding=(1, 1), data_layout="NHWC", kernel_layout="OHWI")
                R.output(y)
            return y

    def test_imports_runs_and_agrees(self):
        rng = np.random.default_rng(0)
        program = agrees(self.Before, [rng.uniform(-1, 1, s).astype("float32") for s in ((1, 6, 6, 4), (8, 3, 3, 4))])
        assert program.nodes[0].attrs["kernel_layout"] == "OHWI"


class TestConv2dOfUnknownShapes:
    """As TVM's convert-layout tests write it: nothing fixes the dims, each is drawn; a first draw
    whose kernel is larger than its input is drawn again (seed 0 drew one)."""
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor("float32", ndim=4), w: R.Tensor("float32", ndim=4)) -> R.Tensor("float32", ndim=4):
            with R.dataflow():
                gv: R.Tensor("float32", ndim=4) = R.nn.conv2d(x, w, out_dtype="float32")
                R.output(gv)
            return gv

    def test_imports_runs_and_agrees(self):
        program, notes = import_with_notes(self.Before, seed=0)
        analyse(program)
        np.testing.assert_allclose(run(build_module(program), program.arguments())[0], evaluate(program)[0], rtol=1e-5, atol=1e-4)


class TestUnknownDtype:
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3)), y: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                z = R.add(x, y)
                R.output(z)
            return z

    @I.ir_module
    class Cast:
        @R.function
        def main(x: R.Tensor((2, 3))):
            with R.dataflow():
                a = R.match_cast(x, R.Tensor((2, 3), "int32"))
                z = R.add(a, a)
                R.output(z)
            return z

    @I.ir_module
    class AddsAnInt:
        @R.function
        def main(a: R.Tensor):
            with R.dataflow():
                b = R.add(a, R.const(1))
                R.output(b)
            return b

    def test_a_tensor_without_dtype_takes_the_first_dtype_the_body_accepts(self):
        program, notes = import_with_notes(self.AddsAnInt)
        assert program.values[0].dtype == "int32" and "parameter x0: of unknown dtype, given int32" in notes

    def test_a_tensor_without_dtype_is_float32_unless_cast_or_given_otherwise(self):
        assert import_module(self.Cast).values[0].dtype == "int32"
        assert import_module(self.Cast, arguments=[np.full((2, 3), 3, "int32")]).values[0].dtype == "int32"
        program = import_module(self.Before)
        assert program.values[0].dtype == "float32"
        # TVM cannot compile the module as written (its add has no dtype); the Program's can
        np.testing.assert_allclose(run(build_module(program), program.arguments())[0], evaluate(program)[0])


class TestKnownRankWithoutShape:
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(ndim=2, dtype="float32")):
            with R.dataflow():
                a = R.match_cast(x, R.Tensor((2, 3), "float32"))
                z = R.exp(a)
                R.output(z)
            return z

    def test_a_variable_per_dim_sized_by_the_argument_or_the_match_cast(self):
        program = import_module(self.Before)
        assert (program.values[0].shape, program.values[0].dims) == ((2, 3), ("x_0", "x_1"))
        given = import_module(self.Before, arguments=[np.ones((2, 3), "float32")])
        assert given.values[0].shape == (2, 3)
        np.testing.assert_allclose(run(build_module(program), program.arguments())[0], evaluate(program)[0], rtol=1e-6)


class TestUnknownRankAndShape:
    """``x: R.Tensor``, as TVM's tests type a parameter whose type does not matter: the first of a
    few shapes the body takes."""

    @I.ir_module
    class Aliases:
        @R.function
        def main(x: R.Tensor):
            y = x
            z = y
            return z

    @I.ir_module
    class ThirdAxis:
        @R.function
        def main(x: R.Tensor, y: R.Tensor):
            with R.dataflow():
                z = R.add(x, y)
                w = R.sum(z, axis=[2])
                R.output(w)
            return w

    def test_the_first_shape_the_body_takes(self):
        aliases, notes = import_with_notes(self.Aliases)
        assert [p.shape for _, p in aliases.params] == [(2, 3)] and not aliases.nodes and "unknown rank" in notes[0]
        program = import_module(self.ThirdAxis)
        assert [p.shape for _, p in program.params] == [(2, 3, 4), (2, 3, 4)]
        assert all(p.unknown_rank for _, p in program.params)
        np.testing.assert_allclose(run(build_module(program), program.arguments())[0], evaluate(program)[0], rtol=1e-6)


class TestSymbolicPrimAndMatchCast:
    @I.ir_module
    class Before:
        @R.function
        def main(n: T.int64, x: R.Tensor(("n", 4), "float32"), v: R.Tensor(("m",), "float32"), s: R.Shape(["m"])):
            with R.dataflow():
                y = R.exp(x)
                z = R.match_cast(y, R.Tensor((3, 4), "float32"))
                t = R.sum(z, axis=[1], keepdims=False)
                u = R.add(t, R.const(1.0, "float32"))
                w = R.negative(v)
                R.output(u, w)
            return (u, w)

    def test_imports_runs_and_agrees(self):
        args = [3, np.linspace(-1, 1, 12, dtype="float32").reshape(3, 4), np.ones(5, "float32"), (5,)]
        program = agrees(self.Before, args)
        (_, x), (_, v) = program.params
        assert x.dims == ("n", "") and x.shape == (3, 4) and v.dims == ("m",) and v.shape == (5,)
        assert [p.name for p in program.prim_params] == ["n"] and program.shape_params == (("m",),)
        assert "match_cast" not in program.node_ops()  # match_casts are typing, not values

    def test_without_arguments_the_casts_give_the_dims(self):
        program = import_module(self.Before)
        assert program.values[0].shape == (3, 4)
        analyse(program)


class TestRangeInference:
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4, 3), "float32"), i: R.Tensor((2,), "int64"), a: R.Tensor((3,), "int32"),
                 d: R.Tensor((3,), "int32"), p: R.Tensor((3,), "float32")):
            with R.dataflow():
                t = R.take(x, i, axis=0)
                q = R.floor_divide(a, d)
                g = R.log(p)
                R.output(t, q, g)
            return (t, q, g)

    def test_index_divisor_and_log_domain_get_ranges_the_analysis_accepts(self):
        program, notes = import_with_notes(self.Before)
        analyse(program)  # valid for every argument in the declared ranges
        x, i, a, d, p = (param for _, param in program.params)
        assert 0 <= i.lo and i.hi <= 3  # inside the axis
        assert d.lo > 0 or d.hi < 0  # no zero divisor
        assert p.lo > 0  # inside log's domain
        assert len(notes) == 3 and all("narrowed" in n for n in notes)
        assert import_module(self.Before) == program

    def test_imported_without_arguments_runs_and_agrees(self):
        program = import_module(self.Before)
        original = run(self.Before, program.arguments())
        for a, c in zip(original, evaluate(program)):
            np.testing.assert_allclose(a, c.astype(a.dtype), rtol=1e-4, atol=1e-5)


class TestClipWhereTheArgumentsLeaveTheDomain:
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4, 3), "float32"), i: R.Tensor((2,), "int64")):
            with R.dataflow():
                t = R.take(x, i, axis=0)
                R.output(t)
            return t

    def test_an_index_argument_outside_the_axis_is_clipped(self):
        args = [np.zeros((4, 3), "float32"), np.array([1, 9], "int64")]  # 9 leaves the axis: undefined
        program, notes = import_with_notes(self.Before, arguments=args)
        analyse(program)
        assert [n.op for n in program.nodes] == ["clip", "take"]
        assert program.nodes[0].args == (1,) and program.nodes[1].args == (0, 2)  # take reads the clip
        assert len(notes) == 1 and "clip(" in notes[0] and "x1" in notes[0]


class TestRejections:
    @I.ir_module
    class UnknownOp:
        @R.function
        def main(x: R.Tensor((1, 1, 4), "float32"), w: R.Tensor((1, 1, 2), "float32")):
            with R.dataflow():
                y = R.ewise_fma(x, x, x)
                R.output(y)
            return y

    @I.ir_module
    class Unreachable:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            with R.dataflow():
                y = R.exp(x)
                R.output(y)
            return y

        @R.function
        def other(x: R.Tensor((2,), "float32")):
            return x

    @I.ir_module
    class Int16:
        @R.function
        def main(x: R.Tensor((2,), "int16")):
            with R.dataflow():
                y = R.abs(x)
                R.output(y)
            return y

    @pytest.mark.parametrize("module, message", [
        ("UnknownOp", "cannot import main: binding y = R.ewise_fma(...): op relax.ewise_fma "
                      "is not in passfuzz's catalogue"),
        ("Unreachable", "cannot import module: function other is not reachable from main"),
        ("Int16", "cannot import main: parameter x: dtype int16 is not among passfuzz's dtypes"),
    ])
    def test_one_line_naming_the_construct_and_where(self, module, message):
        with pytest.raises(ImportRejected) as info:
            import_module(getattr(self, module))
        assert str(info.value) == message


def test_a_tuple_item_read_in_both_branches_of_an_if_is_one_operand():
    # t0[0][1] read by each branch is two Relax expressions of one item: imported as two operands,
    # it did not come back as drawn (found by the round trip above, one draw in a few thousand).
    program = Program(values=(Param(shape=(4,), dtype='int64', lo=0, hi=1, value=[0, 0, 1, 1], role='input', pack=(0, 0), dims=(), unknown_rank=False), Param(shape=(4,), dtype='int32', lo=-4.0, hi=4.0, value=[0, -1, 0, -1], role='input', pack=(0, 1, 0), dims=(), unknown_rank=False), Node(op='const', args=(), attrs={'shape': [4], 'dtype': 'int32', 'value': [0, 0, 1, 1]}), Node(op='add', args=(1, 2), attrs={}), Node(op='add', args=(1, 2), attrs={}), Param(shape=(), dtype='bool', lo=0, hi=1, value=True, role='input', pack=(0, 1, 1), dims=(), unknown_rank=False), Node(op='if', args=(5, 1), attrs={'then': {'values': [{'op': 'negative', 'args': [0], 'attrs': {}}], 'outputs': [1]}, 'else': {'values': [{'op': 'bitwise_xor', 'args': [0, 0], 'attrs': {}}], 'outputs': [1]}})), outputs=(3, 4, 6), shape_params=(), prim_params=())
    imported = comes_back_exactly(program)
    assert [len(v.args) for v in imported.values if isinstance(v, Node) and v.op == "if"] == [2]  # cond, t0[0][1]


class TestSplitReturnedWhole:
    """test_transform_legalize_ops_manipulate's Split and test_transform_convert_layout's: the
    tuple of every part returned, as one split_tuple node (not a split node per part)."""

    @I.ir_module
    class ByIndices:
        @R.function
        def main(x: R.Tensor((2, 10, 4), "float32")):
            gv = R.split(x, [3, 7], axis=1)
            return gv

    @I.ir_module
    class InSections:
        @R.function
        def main(x: R.Tensor((2, 8, 3), "float32")):
            with R.dataflow():
                y = R.nn.relu(x)
                gv = R.split(y, indices_or_sections=2, axis=1)
                R.output(gv)
            return gv

    @pytest.mark.parametrize("module, shape", [(ByIndices, (2, 10, 4)), (InSections, (2, 8, 3))])
    def test_imports_builds_back_runs_and_agrees(self, module, shape):
        x = np.random.default_rng(0).uniform(-1, 1, shape).astype("float32")
        program = agrees(module, [x])
        assert program.node_ops()[-1] == "split_tuple" and "split" not in program.node_ops()
        assert len(evaluate(program)) == (3 if module is self.ByIndices else 2)


class TestCheckpointMarkers:
    """test_transform_gradient_checkpoint's modules: start_checkpoint and end_checkpoint are
    catalogue ops computing the identity (catalogue/markers.py)."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 3), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                x_scp = R.grad.start_checkpoint(x)
                lv1 = R.multiply(x_scp, x_scp)
                lv1_ecp = R.grad.end_checkpoint(lv1)
                lv2 = R.exp(lv1_ecp)
                gv = R.sum(lv2, axis=None, keepdims=False)
                R.output(gv)
            return gv

    def test_imports_builds_back_runs_and_agrees(self):
        x = np.random.default_rng(0).uniform(-1, 1, (3, 3)).astype("float32")
        program = agrees(self.Before, [x])
        assert program.node_ops() == ["start_checkpoint", "multiply", "end_checkpoint", "exp", "sum"]

    def test_a_constant_marked_is_bound_to_a_variable_first_and_comes_back(self):
        """The markers' type rules take a variable only; relax_build writes other constants inline."""
        program = Program((param((3,), "float32", [1.0, 2.0, 3.0]),
                           Node("const", (), {"shape": [3], "dtype": "float32", "value": [0.5, 1.0, 2.0]}),
                           Node("start_checkpoint", (1,), {}), Node("add", (0, 2), {}),
                           Node("end_checkpoint", (3,), {})), (4,))
        comes_back_exactly(program)
        np.testing.assert_array_equal(run(build_module(program), program.arguments())[0], [1.5, 3.0, 5.0])


class TestPrint:
    """test_transform_convert_dataflow's modules: a print between two runs of ops is an effect
    (catalogue/markers.py), kept in main between two dataflow blocks of an impure function."""

    @I.ir_module
    class Before:
        @R.function(pure=False)
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            z = R.add(x, y)
            w = R.multiply(z, y)
            R.print(w, format=R.str("w: {}"))
            a = R.multiply(w, w)
            b = R.add(a, a)
            return b

    def test_imports_builds_back_between_dataflow_blocks_runs_and_agrees(self):
        rng = np.random.default_rng(0)
        program = agrees(self.Before, [rng.uniform(-1, 1, (2, 3)).astype("float32") for _ in range(2)])
        assert program.node_ops() == ["add", "multiply", "print", "multiply", "add"]
        main = build_module(program)["main"]
        assert not main.is_pure
        blocks = main.body.blocks
        assert [type(block).__name__ for block in blocks] == ["DataflowBlock", "BindingBlock", "DataflowBlock"]
        assert blocks[1].bindings[0].value.op.name == "relax.print"
        comes_back_exactly(program)

    def test_a_print_in_a_function_body_is_rejected_in_one_line(self):
        @I.ir_module
        class Extra:
            @R.function(private=True, pure=False)
            def extra(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
                R.print(format=R.str("Whoa"))
                return x

            @R.function(pure=False)
            def main(x: R.Tensor((2,), "float32")):
                cls = Extra
                y = cls.extra(x)
                return y

        with pytest.raises(ImportRejected, match=r"^cannot import main -> extra: binding .*: a print inside a function body"):
            import_module(Extra)


class TestWeightsInATupleParameter:
    """test_transform_bundle_model_params' Expected and the nn frontend's ``packed_params``: the
    weights as one tuple parameter after the inputs."""

    @I.ir_module
    class Bundled:
        @R.function
        def main(a: R.Tensor((16,), "float32"), params: R.Tuple(R.Tensor((16,), "float32"), R.Tensor((16,), "float32"))):
            R.func_attr({"num_input": 1})
            with R.dataflow():
                b = params[0]
                c = params[1]
                d = R.add(a, b)
                e = R.multiply(d, c)
                R.output(e)
            return e

    def test_imports_builds_back_runs_and_agrees(self):
        rng = np.random.default_rng(0)
        a, b, c = (rng.uniform(-1, 1, (16,)).astype("float32") for _ in range(3))
        program = agrees(self.Bundled, [a, (b, c)])
        assert [(p.role, p.pack) for _, p in program.params] == [("input", ()), ("weight", (0, 0)), ("weight", (0, 1))]
        assert program.num_input == 1
        assert isinstance(build_module(program)["main"].params[1].ty, relax.TupleType)
        comes_back_exactly(program)


class TestTupleWrittenInline:
    """test_transform_cse's and test_transform_gradient's modules: a tuple written inside another
    (``((x, x), (x, (x, x)))``) is a tuple node of its own, before the one that holds it."""

    @I.ir_module
    class Nested:
        @R.function
        def main(x: R.Tensor((2,), "int32")):
            with R.dataflow():
                tup = ((x, x), (x, (x, x)))
                lv1 = tup[1]
                lv2 = lv1[1]
                gv = lv2[0]
                y = R.add(gv, x)
                R.output(y)
            return y

    def test_imports_builds_back_runs_and_agrees(self):
        program = agrees(self.Nested, [np.array([1, -2], "int32")])
        assert program.node_ops().count("tuple") == 4
        comes_back_exactly(program)


class TestTupleInsideTheResult:
    """test_training_setup_trainer's adjoints and the nn frontend's modules return
    ``(loss, (grad_a, grad_b))``: the inner tuple, written inline, is a tuple node among the outputs."""

    @I.ir_module
    class Nested:
        @R.function
        def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")):
            with R.dataflow():
                a = R.add(x, y)
                b = R.negative(x)
                c = R.multiply(x, y)
                R.output(a, b, c)
            return (a, (b, c))

    def test_imports_builds_back_runs_and_agrees(self):
        program = agrees(self.Nested, [np.array([1.0, -2.0], "float32"), np.array([0.5, 3.0], "float32")])
        assert [program.values[o].op for o in program.outputs] == ["add", "tuple"]


class TestMemoryView:
    """test_op_view's modules: R.memory.view reads its operand's bytes with another shape, from an
    offset, or as an integer dtype (catalogue/shapes.py's ``view``); TVMScript binds the missing
    dtype's null value to a var of its own, which the view absorbs."""

    @I.ir_module
    class Views:
        @R.function
        def main(A: R.Tensor([64], "float32")):
            B = R.memory.view(A, shape=R.shape([8, 8]))
            C = R.memory.view(A, shape=R.shape([2, 8]), dtype=R.dtype("int32"), relative_byte_offset=R.prim_value(64))
            D = R.memory.view(A)
            E = R.add(D, A)
            return (B, C, E)

    @I.ir_module
    class AsFloat:
        @R.function
        def main(A: R.Tensor([16], "uint8")):
            B = R.memory.view(A, shape=R.shape([8]), dtype=R.dtype("float16"))
            return B

    def test_imports_builds_back_runs_and_agrees_and_reinterpreting_as_a_float_is_rejected(self):
        program = agrees(self.Views, [np.linspace(-2, 2, 64, dtype="float32")])
        assert [(n.op, n.attrs) for n in program.nodes[:3]] == [
            ("view", {"shape": [8, 8]}), ("view", {"shape": [2, 8], "dtype": "int32", "offset": 64}), ("view", {})]
        comes_back_exactly(program)
        with pytest.raises(ImportRejected, match="uint8's bytes read as float16 may be any value float16 cannot hold"):
            import_module(self.AsFloat)


class TestSymbolicDimsInATupleParameter:
    """test_transform_canonicalize_bindings' ``x: R.Tuple(R.Tensor((m, n)))``: an item of a tuple
    parameter typed with symbolic dims, as main takes it back."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tuple(R.Tensor(("m", "n"), "float32"), R.Tensor(("n",), "float32"))):
            with R.dataflow():
                a = x[0]
                b = x[1]
                c = R.add(a, b)
                R.output(c)
            return c

    def test_imports_builds_back_runs_and_agrees(self):
        rng = np.random.default_rng(0)
        a, b = rng.uniform(-1, 1, (2, 3)).astype("float32"), rng.uniform(-1, 1, (3,)).astype("float32")
        program = agrees(self.Before, [(a, b)])
        assert [p.dims for _, p in program.params] == [("m", "n"), ("n",)]
        assert "m" in build_module(program)["main"].params[0].ty.fields[0].__str__()
        comes_back_exactly(program)


class TestLocalFunctionNothingCalls:
    """test_transform_bundle_model_params' and test_utils' modules: a local function nothing calls
    is dead code, left out; one called twice (test_transform_cse's) is a closure per call, as a
    Program's closure is its one call; one that calls itself (a loop) is rejected."""

    @I.ir_module
    class Unused:
        @R.function
        def main(x: R.Tensor((16,), "float32"), weight: R.Tensor((16,), "float32")):
            R.func_attr({"num_input": 1})

            @R.function
            def inner(inner_x: R.Tensor((16,), "float32")) -> R.Tensor((16,), "float32"):
                gv = R.negative(inner_x)
                return gv

            gv1 = R.add(x, weight)
            return gv1

    @I.ir_module
    class CalledTwice:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            @R.function
            def inner(y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
                z = R.negative(y)
                return z

            a = inner(x)
            b = inner(a)
            return b

    @I.ir_module
    class CallsItself:
        @R.function
        def main(x: R.Tensor((), "int32")):
            @R.function
            def countdown(i: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
                if R.equal(i, R.const(0, "int32")):
                    out = i
                else:
                    out = countdown(R.subtract(i, R.const(1, "int32")))
                return out

            y = countdown(x)
            return y

    def test_an_unused_one_is_left_out_one_called_twice_is_a_closure_per_call_and_a_loop_is_rejected(self):
        rng = np.random.default_rng(0)
        program = agrees(self.Unused, [rng.uniform(-1, 1, (16,)).astype("float32") for _ in range(2)])
        assert program.node_ops() == ["add"]
        twice = agrees(self.CalledTwice, [np.array([1.5, -2.0], "float32")])
        assert [(n.op, n.attrs.get("local")) for n in twice.nodes] == [("call", True), ("call", True)]
        assert twice.nodes[0].attrs["body"] == twice.nodes[1].attrs["body"]
        with pytest.raises(ImportRejected, match="binding countdown = Function: a local function that calls itself"):
            import_module(self.CallsItself)

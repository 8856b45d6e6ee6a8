"""Opaque kernels: a ``R.call_tir`` of a PrimFunc the module holds is one Program node
(passfuzz/ir/catalogue/kernels.py), carrying the kernel as TVMScript.

Such a module imports, builds back and computes what it computed; the Program stays plain data;
numpy has no reference for what the kernel computes, so the reference oracle passes over it while
the differential oracle still catches a wrong pass on either side of the kernel; and nothing that
needs a value's range, nor a retyped operand, is accepted on it.
"""

import json
from dataclasses import replace

import numpy as np
import pytest
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

from passfuzz.ir.catalogue import infer_application
from passfuzz.ir.catalogue.base import NO_REFERENCE, OpError
from passfuzz.ir.graph import analyse, evaluate
from passfuzz.ir.program import Node, Program, ProgramError
from passfuzz.judge.oracle import reference_verdict
from passfuzz.judge.trial import check
from passfuzz.passes.names import resolve, resolve_list
from passfuzz.portable.standalone import load, numpy_outputs, to_tvm
from passfuzz.relax.build import build_module
from passfuzz.relax.importer import ImportRejected, import_module
from passfuzz.run.execute import run_side
from passfuzz.testing import compare

PLANTED = "tests.planted_passes:"


@I.ir_module(s_tir=True)
class Scaled:
    """TVM's test style: a hand-written kernel (symbolic buffers, called on static tensors) and
    Relax ops after it."""

    @T.prim_func(private=True, s_tir=True)
    def scale_add(a: T.handle, b: T.handle, c: T.handle):
        m = T.int64()
        n = T.int64()
        A = T.match_buffer(a, [m, n], "float32")
        B = T.match_buffer(b, [m, n], "float32")
        C = T.match_buffer(c, [m, n], "float32")
        for i, j in T.grid(m, n):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] * T.float32(2) + B[vi, vj]

    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        cls = Scaled
        with R.dataflow():
            s = R.call_tir(cls.scale_add, (x, y), out_ty=R.Tensor((2, 3), "float32"))
            t = R.negative(s)
            u = R.add(t, y)
            R.output(u)
        return u


@I.ir_module(s_tir=True)
class TwoOutputs:
    @T.prim_func(private=True, s_tir=True)
    def split_sign(A: T.Buffer((4,), "float32"), P: T.Buffer((4,), "float32"), N: T.Buffer((4,), "int32")):
        for i in range(4):
            with T.sblock("compute"):
                vi = T.axis.remap("S", [i])
                P[vi] = T.max(A[vi], T.float32(0))
                N[vi] = T.Cast("int32", A[vi] < T.float32(0))

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = TwoOutputs
        with R.dataflow():
            parts = R.call_tir(cls.split_sign, (x,), out_ty=[R.Tensor((4,), "float32"), R.Tensor((4,), "int32")])
            p = parts[0]
            n = parts[1]
            R.output(p, n)
        return (p, n)


def run(mod, arguments):
    executable, device = load(mod, "llvm")
    vm = relax.VirtualMachine(executable, device)
    return numpy_outputs(vm["main"](*[to_tvm(a, device) for a in arguments]))


@pytest.mark.parametrize("module", [Scaled, TwoOutputs], ids=["one-output", "tuple-of-outputs"])
def test_a_kernel_call_imports_builds_back_and_computes_the_same(module):
    program = import_module(module)
    assert "call_tir" in program.node_ops()
    again = Program.from_json(json.loads(json.dumps(program.to_json())))  # plain data, through JSON
    assert again == program
    rebuilt = build_module(again)
    kernels = [f for f in rebuilt.functions.values() if isinstance(f, tvm.tirx.PrimFunc)]
    assert len(kernels) == 1
    arguments = program.arguments()
    for want, got in zip(run(module, arguments), run(rebuilt, arguments)):
        np.testing.assert_array_equal(got, want)
    assert import_module(rebuilt, arguments=arguments).nodes == program.nodes  # and imports back the same


def test_numpy_has_no_reference_for_what_a_kernel_computes_and_the_reference_oracle_passes_over_it():
    program = import_module(Scaled)
    assert evaluate(program) == [NO_REFERENCE]
    original = run_side(program, None, ["llvm"], 60)
    assert original.ok
    assert reference_verdict(program, original).finding is None
    # a Program with an output numpy can compute still has it judged: a wrong original is caught
    both = Program(program.values, (1, *program.outputs))  # the raw input y as an output too
    wrong = run_side(both, None, ["llvm"], 60)
    wrong.outputs["llvm"][0] = wrong.outputs["llvm"][0] + 1
    assert reference_verdict(both, wrong).finding.kind == "reference-mismatch"


def test_an_exact_output_of_a_kernel_is_no_reason_to_skip_compiling_the_original():
    # the kernel's int32 output is exact, but numpy computes no value for it: the original is needed
    imported = import_module(TwoOutputs)
    program = Program(imported.values, imported.outputs[1:])  # the int32 output alone
    verdict, optimized = check(program, resolve_list("FoldConstant"), ["llvm"], 60, exact_first=True)
    assert verdict.finding is None and not verdict.generator_defect and optimized is not None and optimized.ok


def test_a_wrong_pass_after_a_kernel_is_caught_and_its_correct_twin_is_not():
    program = import_module(Scaled)
    assert compare(program, [f"{PLANTED}scaled_negative(2.0)"]).verdict.finding.kind == "wrong-result"
    assert compare(program, [f"{PLANTED}scaled_negative(1.0)"]).verdict.finding is None


@tvm.transform.module_pass(opt_level=0, name="SwapKernelOperands")
def swap_kernel_operands(mod, ctx):
    """A wrong pass on the kernel call itself: its two operands swapped (x*2 + y becomes y*2 + x)."""
    @relax.expr_functor.mutator
    class Swap(relax.PyExprMutator):
        def visit_call_(self, call):
            call = super().visit_call_(call)
            if isinstance(call.op, tvm.ir.Op) and call.op.name == "relax.call_tir":
                fields = list(call.args[1].fields)
                return relax.call_tir(call.args[0], relax.Tuple(fields[::-1]), call.ty_args[0])
            return call

    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            mod[gv] = Swap(mod).visit_expr(func)
    return mod


def test_a_wrong_pass_on_the_kernel_call_itself_is_caught():
    program = import_module(Scaled)
    spec = resolve(f"{__name__}:swap_kernel_operands")
    assert compare(program, [spec]).verdict.finding.kind == "wrong-result"
    assert compare(program, ["FoldConstant"]).verdict.finding is None


def test_an_op_that_needs_its_operands_range_is_refused_on_a_kernels_float_output():
    program = import_module(Scaled)
    infos = analyse(program)
    kernel = next(i for i, v in enumerate(program.values) if isinstance(v, Node) and v.op == "call_tir")
    assert not infos[kernel].bounded and not infos[kernel].exact
    for op, args, attrs in [("log", [kernel], {}), ("sqrt", [kernel], {}), ("divide", [0, kernel], {}),
                            ("astype", [kernel], {"dtype": "int32"}), ("less", [kernel, 0], {})]:
        with pytest.raises(OpError):
            infer_application(op, args, infos, attrs)
    # an op that needs no range takes it, and what it computes is unbounded too
    assert not infer_application("exp", [kernel], infos, {}).bounded
    assert infer_application("exp", [0], infos, {}).bounded


def test_a_kernels_operands_keep_the_types_it_was_imported_with():
    program = import_module(Scaled)
    kernel = next(i for i, v in enumerate(program.values) if isinstance(v, Node) and v.op == "call_tir")
    node = program.values[kernel]
    retyped = [Node("const", (), {"shape": [3, 2], "dtype": "float32", "value": np.zeros((3, 2)).tolist()}),
               Node("const", (), {"shape": [2, 3], "dtype": "float16", "value": np.zeros((2, 3)).tolist()})]
    for other in retyped:
        values = (*program.values[:kernel], other, Node("call_tir", (node.args[0], kernel), node.attrs),
                  *program.values[kernel + 1:])
        mutated = Program(values, tuple(o + 1 for o in program.outputs))
        with pytest.raises(ProgramError, match="the kernel takes"):
            analyse(mutated)


def test_an_integer_operand_of_a_kernel_is_imported_inside_zero_to_one():
    @I.ir_module(s_tir=True)
    class Gather:
        @T.prim_func(private=True, s_tir=True)
        def pick(A: T.Buffer((2, 3), "float32"), K: T.Buffer((2,), "int32"), B: T.Buffer((2,), "float32")):
            for i in range(2):
                with T.sblock("compute"):
                    vi = T.axis.remap("S", [i])
                    B[vi] = A[vi, K[vi]]

        @R.function
        def main(x: R.Tensor((2, 3), "float32"), k: R.Tensor((2,), "int32")):
            cls = Gather
            with R.dataflow():
                y = R.call_tir(cls.pick, (x, k), out_ty=R.Tensor((2,), "float32"))
                R.output(y)
            return y

    program = import_module(Gather)
    k = program.values[1]
    assert (k.lo, k.hi) == (0, 1) and set(np.ravel(k.value)) <= {0, 1}


@I.ir_module(s_tir=True)
class SymbolicCopy:
    @T.prim_func(private=True, s_tir=True)
    def copy(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, [n, 3], "float32")
        B = T.match_buffer(b, [n, 3], "float32")
        for i, j in T.grid(n, 3):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)

    @R.function
    def main(x: R.Tensor(("n", 3), "float32")):
        n = T.int64()
        cls = SymbolicCopy
        with R.dataflow():
            y = R.call_tir(cls.copy, (x,), out_ty=R.Tensor((n, 3), "float32"))
            R.output(y)
        return y


def test_a_kernel_on_symbolically_typed_tensors_takes_the_sizes_the_importer_chose():
    program = import_module(SymbolicCopy)
    (n,) = {p.shape[0] for _, p in program.params}
    kernel = program.nodes[0]
    assert kernel.attrs["inputs"] == kernel.attrs["outputs"] == [[[n, 3], "float32"]]
    for want, got in zip(run(SymbolicCopy, program.arguments()), run(build_module(program), program.arguments())):
        np.testing.assert_array_equal(got, want)


# test_transform_lazy_transform_params' test_param_shape_symbolic: a kernel whose buffer has a
# static dim where the Relax call types a symbolic one (the module runs for that size only).
@I.ir_module(s_tir=True)
class FixedByTheKernel:
    @T.prim_func(private=True, s_tir=True)
    def transpose(a: T.handle, b: T.handle):
        m = T.int32()  # its own variable, not the module's: TVM cannot check the call's out_ty
        w = T.match_buffer(a, (m, 16), "float32")
        out = T.match_buffer(b, (16, m), "float32")
        for i, j in T.grid(16, m):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                out[vi, vj] = w[vj, vi]

    @R.function
    def main(x: R.Tensor((2, "ic"), "float32")):
        ic = T.int64()
        cls = FixedByTheKernel
        with R.dataflow():
            y = R.call_tir(cls.transpose, (x,), out_ty=R.Tensor((ic, 2), "float32"))
            R.output(y)
        return y


def test_a_symbolic_dim_a_kernels_buffer_fixes_takes_that_size_and_a_contrary_argument_is_rejected():
    program = import_module(FixedByTheKernel)
    assert [p.shape for _, p in program.params] == [(2, 16)]
    (x,) = program.arguments()
    np.testing.assert_array_equal(run(build_module(program), [x])[0], x.T)
    with pytest.raises(ImportRejected, match="a kernel's buffer gives ic = 16, the arguments 4"):
        import_module(FixedByTheKernel, arguments=[np.zeros((2, 4), "float32")])


# test_transform_legalize_ops_manipulate's *_symbolic Expected modules: a kernel's result typed
# with an expression of the module's variables.
@I.ir_module(s_tir=True)
class Doubled:
    @T.prim_func(private=True, s_tir=True)
    def twice(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, [n], "float32")
        B = T.match_buffer(b, [n * 2], "float32")
        for i in range(n * 2):
            with T.sblock("compute"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi // 2]

    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        cls = Doubled
        with R.dataflow():
            y = R.call_tir(cls.twice, (x,), out_ty=R.Tensor((n * 2,), "float32"))
            R.output(y)
        return y


def test_a_kernel_result_typed_with_an_expression_of_sizes_takes_its_value():
    program = import_module(Doubled)
    (x,) = program.arguments()
    assert program.nodes[0].attrs["outputs"] == [[[2 * len(x)], "float32"]]
    np.testing.assert_array_equal(run(build_module(program), [x])[0], np.repeat(x, 2))


# test_tvmscript_parser's test_call_tir_with_tir_var, test_transform_legalize_ops_nn's
# test_group_norm_symbolic: the kernel takes a size as a scalar beside the buffers it sizes.
@I.ir_module(s_tir=True)
class SizeOperand:
    @T.prim_func(private=True, s_tir=True)
    def copy(x: T.handle, n: T.int64, y: T.handle):
        X = T.match_buffer(x, (n * 2,), "float32")
        Y = T.match_buffer(y, (n * 2,), "float32")
        for i in range(n * 2):
            with T.sblock("compute"):
                vi = T.axis.remap("S", [i])
                Y[vi] = X[vi] + T.Cast("float32", n)

    @R.function
    def main(x: R.Tensor(("n * 2",), "float32"), w: R.Tensor(("n",), "float32")):
        n = T.int64()
        cls = SizeOperand
        with R.dataflow():
            y = R.call_tir(cls.copy, (x, n), out_ty=R.Tensor((n * 2,), "float32"))
            R.output(y)
        return y


def test_a_size_the_kernel_takes_as_a_scalar_is_no_value_and_builds_back_as_the_size_chosen():
    program = import_module(SizeOperand)
    x, w = program.arguments()
    (kernel,) = program.nodes
    assert len(kernel.args) == 1 and kernel.attrs["sizes"] == [[1, len(w)]]
    again = Program.from_json(json.loads(json.dumps(program.to_json())))
    assert again == program
    for want, got in zip(run(SizeOperand, [x, w]), run(build_module(again), [x, w])):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(run(build_module(again), [x, w])[0], x + len(w))
    assert import_module(build_module(program), arguments=[x, w]).nodes == program.nodes


# test_transform_legalize_ops_create_datatype's test_shape_to_tensor_symbolic: the sizes only stored
@I.ir_module(s_tir=True)
class StoredSizes:
    @T.prim_func(private=True, s_tir=True)
    def shape_to_tensor(m: T.int64, n: T.int64, out: T.Buffer((2,), "int64")):
        for i in range(2):
            with T.sblock("compute"):
                vi = T.axis.remap("S", [i])
                out[vi] = T.if_then_else(vi == 0, m, n * 2)

    @R.function
    def main(x: R.Tensor(("m", "n"), "float32")):
        m = T.int64()
        n = T.int64()
        cls = StoredSizes
        y = R.call_tir(cls.shape_to_tensor, (m, n), out_ty=R.Tensor((2,), "int64"))
        return y


def test_sizes_a_kernel_only_stores_are_passed_as_the_sizes_chosen():
    program = import_module(StoredSizes)
    (x,) = program.arguments()
    assert [k for k, _ in program.nodes[0].attrs["sizes"]] == [0, 1]
    np.testing.assert_array_equal(run(build_module(program), [x])[0], [x.shape[0], 2 * x.shape[1]])


def test_a_scalar_the_kernel_indexes_with_and_no_buffer_sizes_stays_rejected():
    # test_blockbuilder_emit_te's test_emit_te_with_symbolic_arg: A[i + m] reads past A for m > 0,
    # and nothing checks m at the call
    @I.ir_module(s_tir=True)
    class Offset:
        @T.prim_func(private=True, s_tir=True)
        def shifted(A: T.Buffer((10,), "float32"), m: T.int64, B: T.Buffer((10,), "float32")):
            for i in range(10):
                with T.sblock("compute"):
                    vi = T.axis.remap("S", [i])
                    B[vi] = A[vi + m]

        @R.function
        def main(x: R.Tensor((10,), "float32"), s: R.Shape(["m"])):
            m = T.int64()
            cls = Offset
            y = R.call_tir(cls.shifted, (x, m), out_ty=R.Tensor((10,), "float32"))
            return y

    with pytest.raises(ImportRejected, match="call_tir operand not a tensor"):
        import_module(Offset)


def test_an_int64_scalar_parameter_a_kernel_indexes_with_is_a_value_inside_zero_to_one():
    # test_blockbuilder_emit_te's test_symbolic_shape_in_prim_value: a row index no type names
    @I.ir_module(s_tir=True)
    class Row:
        @T.prim_func(private=True, s_tir=True)
        def row(A: T.Buffer((3, 4), "float32"), r: T.int64, B: T.Buffer((4,), "float32")):
            for j in range(4):
                with T.sblock("compute"):
                    vj = T.axis.remap("S", [j])
                    B[vj] = A[r, vj]

        @R.function
        def main(x: R.Tensor((3, 4), "float32"), r: T.int64):
            cls = Row
            y = R.call_tir(cls.row, (x, r), out_ty=R.Tensor((4,), "float32"))
            return y

    program = import_module(Row)
    r = program.values[1]
    assert r.prim and r.dtype == "int64" and (r.lo, r.hi) == (0, 1)
    assert program.nodes[0].attrs["prims"] == [1]
    x, index = program.arguments()
    np.testing.assert_array_equal(run(build_module(program), [x, index])[0], x[int(index)])


def test_an_r_prim_of_another_dtype_than_the_kernels_scalar_is_rejected():
    # test_analysis_well_formed's test_call_tir_with_incorrect_primitive_argument_dtype: TVM cannot build it
    @I.ir_module(check_well_formed=False, s_tir=True)
    class Mistyped:
        @T.prim_func(s_tir=True)
        def scale(A: T.Buffer((4,), "float32"), s: T.float32, B: T.Buffer((4,), "float32")):
            for i in range(4):
                with T.sblock("compute"):
                    vi = T.axis.remap("S", [i])
                    B[vi] = A[vi] * s

        @R.function
        def main(x: R.Tensor((4,), "float32"), s: R.Prim("int64")):
            y = R.call_tir(Mistyped.scale, (x, s), out_ty=R.Tensor((4,), "float32"))
            return y

    with pytest.raises(ImportRejected, match="passing an R.Prim int64 where the kernel takes float32"):
        import_module(Mistyped)


def test_a_drawn_r_prim_value_where_the_kernel_takes_a_size_is_rejected():
    @I.ir_module(s_tir=True)
    class SizedByAValue:
        @T.prim_func(private=True, s_tir=True)
        def first(x: T.handle, n: T.int64, y: T.handle):
            X = T.match_buffer(x, (n,), "float32")
            Y = T.match_buffer(y, (1,), "float32")
            for i in range(1):
                with T.sblock("compute"):
                    vi = T.axis.remap("S", [i])
                    Y[vi] = X[vi]

        @R.function
        def main(x: R.Tensor((4,), "float32"), k: T.int64):  # k is drawn in [0, 1], not 4
            cls = SizedByAValue
            y = R.call_tir(cls.first, (x, k), out_ty=R.Tensor((1,), "float32"))
            return y

    with pytest.raises(ImportRejected, match="a drawn R.Prim value where the kernel takes a size"):
        import_module(SizedByAValue)


def test_a_kernel_call_the_importer_cannot_keep_is_rejected_in_one_line():
    @I.ir_module(s_tir=True)
    class Widened:
        @T.prim_func(private=True, s_tir=True)
        def widen(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, [n], "float32")
            B = T.match_buffer(b, [n], "int16")  # a dtype passfuzz has no values of
            for i in range(n):
                with T.sblock("compute"):
                    vi = T.axis.remap("S", [i])
                    B[vi] = T.Cast("int16", A[vi])

        @R.function
        def main(x: R.Tensor(("n",), "float32")):
            n = T.int64()
            cls = Widened
            with R.dataflow():
                y = R.call_tir(cls.widen, (x,), out_ty=R.Tensor((n,), "int16"))
                R.output(y)
            return y

    with pytest.raises(ImportRejected, match="call_tir whose result is not a tensor") as rejected:
        import_module(Widened)
    assert "\n" not in str(rejected.value)


def test_a_finding_on_a_program_holding_a_kernel_is_saved_and_its_script_reproduces_it(tmp_path):
    from passfuzz.findings.corpus import load

    from .test_reproducer import (
        assert_fixed,
        assert_reproduces,
        run_scripts,
        saved_wrong_result,
    )

    program = import_module(Scaled)
    script, _ = saved_wrong_result(program, f"{PLANTED}scaled_negative(2.0)", tmp_path)
    assert load(script.with_suffix(".json")).program == program  # the kernel's TVMScript kept in the record
    twin = script.with_name(f"fixed-{script.name}")
    twin.write_text(script.read_text().replace("scaled_negative(2.0)", "scaled_negative(1.0)"))
    bug, fixed = run_scripts(script, twin)
    assert_reproduces(bug, "wrong-result")
    assert_fixed(fixed)


@I.ir_module
class PurePacked:
    # test_transform's use_call_pure_packed: a pure call of one of TVM's global functions by name
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        with R.dataflow():
            y = R.add(x, x)
            z = R.call_pure_packed("vm.builtin.copy", y, ty_args=(R.Tensor((2, 3), "float32"),))
            w = R.multiply(z, y)
            R.output(w)
        return w


def test_a_pure_packed_call_of_tvms_function_imports_opaque_builds_back_and_computes_the_same():
    program = import_module(PurePacked)
    assert program.node_ops() == ["add", "call_pure_packed", "multiply"]
    assert evaluate(program) == [NO_REFERENCE]  # what the function computes is not numpy's to say
    arguments = program.arguments()
    np.testing.assert_array_equal(run(build_module(program), arguments)[0], run(PurePacked, arguments)[0])


def test_a_call_packed_of_a_copy_is_the_pure_packed_node_and_another_function_is_rejected():
    """test_analysis' modules call vm.builtin.copy with R.call_packed in an impure function: a copy
    computes a new tensor and does nothing else, so it is the call_pure_packed node; a function
    not known pure (vm.builtin.reshape here, which returns a view of its operand) is rejected."""
    @I.ir_module
    class Impure:
        @R.function(pure=False)
        def main(x: R.Tensor((2, 3), "float32")):
            y = R.add(x, x)
            z = R.call_packed("vm.builtin.copy", y, ty_args=(R.Tensor((2, 3), "float32")))
            return z

    program = import_module(Impure)
    assert program.node_ops() == ["add", "call_pure_packed"]
    assert program.nodes[1].attrs["name"] == "vm.builtin.copy"
    arguments = program.arguments()
    np.testing.assert_array_equal(run(build_module(program), arguments)[0], run(Impure, arguments)[0])

    @I.ir_module
    class Other:
        @R.function(pure=False)
        def main(x: R.Tensor((2, 3), "float32")):
            z = R.call_packed("vm.builtin.reshape", x, R.shape([3, 2]), ty_args=(R.Tensor((3, 2), "float32")))
            return z

    with pytest.raises(ImportRejected, match="op call is not in passfuzz's catalogue"):
        import_module(Other)


def test_a_packed_function_the_test_registers_itself_is_rejected():
    """The function must exist where the Program is built and run, not only in the process that
    executed the test file: one registered after TVM's own is not taken."""
    name = "passfuzz_test.registered_by_a_test"
    tvm.register_global_func(name, lambda x: x, override=True)

    @I.ir_module
    class Registered:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            y = R.call_pure_packed(name, x, ty_args=(R.Tensor((2,), "float32"),))
            return y

    with pytest.raises(ImportRejected, match=f"a call_pure_packed of {name}, which TVM does not register"):
        import_module(Registered)


def test_a_kernel_that_never_writes_its_output_is_rejected_since_its_result_is_uninitialized_memory():
    """TVM's tests write placeholder kernels as ``T.evaluate(0)``: run, their output is whatever
    the allocation held, which differs between the original and the optimized module."""

    @I.ir_module(s_tir=True)
    class Placeholder:
        @T.prim_func(private=True, s_tir=True)
        def exp(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
            T.evaluate(0)

        @R.function
        def main(x: R.Tensor((4,), "float32")):
            cls = Placeholder
            with R.dataflow():
                y = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((4,), "float32"))
                R.output(y)
            return y

    with pytest.raises(ImportRejected, match="never writes its output B .*uninitialized"):
        import_module(Placeholder)


def test_a_kernel_that_writes_part_of_its_output_is_rejected_and_one_that_fills_it_is_not():
    """TVM's tests also write placeholder kernels that set one element (test_multi_arg_return of
    specialize_primfunc_based_on_callsite): the rest is uninitialized memory, which differed between
    the original and the optimized module (a false wrong-result)."""

    @I.ir_module(s_tir=True)
    class OneElement:
        @T.prim_func(private=True, s_tir=True)
        def kernel(A: T.Buffer((2, 4), "float32"), B: T.Buffer((2, 4), "float32")):
            B[0, 0] = T.float32(0)

        @R.function
        def main(x: R.Tensor((2, 4), "float32")):
            with R.dataflow():
                y = R.call_tir(OneElement.kernel, (x,), out_ty=R.Tensor((2, 4), "float32"))
                R.output(y)
            return y

    @I.ir_module(s_tir=True)
    class FirstRow:
        @T.prim_func(private=True, s_tir=True)
        def kernel(A: T.Buffer((2, 4), "float32"), B: T.Buffer((2, 4), "float32")):
            for j in range(4):
                B[0, j] = A[0, j]

        @R.function
        def main(x: R.Tensor((2, 4), "float32")):
            with R.dataflow():
                y = R.call_tir(FirstRow.kernel, (x,), out_ty=R.Tensor((2, 4), "float32"))
                R.output(y)
            return y

    @I.ir_module(s_tir=True)
    class Filled:
        @T.prim_func(private=True, s_tir=True)
        def kernel(A: T.Buffer((2, 4), "float32"), B: T.Buffer((2, 4), "float32")):
            for i in range(2):
                B[i, T.Ramp(0, 1, 4)] = A[i, T.Ramp(0, 1, 4)]  # one vector store per row

        @R.function
        def main(x: R.Tensor((2, 4), "float32")):
            with R.dataflow():
                y = R.call_tir(Filled.kernel, (x,), out_ty=R.Tensor((2, 4), "float32"))
                R.output(y)
            return y

    for partial in (OneElement, FirstRow):
        with pytest.raises(ImportRejected, match="writes part of its output B .*uninitialized"):
            import_module(partial)
    assert import_module(Filled).outputs


def test_a_kernel_indexing_a_buffer_past_its_bounds_is_rejected_and_one_indexing_inside_is_not():
    # test_transform_fuse_ops.py's test_layer_norm_silu: a (64, 64) temporary indexed up to 511,
    # which built writes past its allocation (SIGSEGV); (1, 512) is what it meant
    def with_temporary(rows: int, columns: int):
        @I.ir_module(s_tir=True)
        class RowSums:
            @T.prim_func(private=True, s_tir=True)
            def kernel(A: T.Buffer((1, 512, 8), "float32"), B: T.Buffer((1, 512, 8), "float32")):
                total = T.sblock_alloc_buffer((rows, columns))
                for i0, i1, k in T.grid(1, 512, 8):
                    with T.sblock("sum"):
                        v0, v1, vk = T.axis.remap("SSR", [i0, i1, k])
                        with T.init():
                            total[v0, v1] = T.float32(0)
                        total[v0, v1] = total[v0, v1] + A[v0, v1, vk]
                for i0, i1, j in T.grid(1, 512, 8):
                    with T.sblock("out"):
                        v0, v1, vj = T.axis.remap("SSS", [i0, i1, j])
                        B[v0, v1, vj] = A[v0, v1, vj] - total[v0, v1]

            @R.function
            def main(x: R.Tensor((1, 512, 8), "float32")):
                with R.dataflow():
                    y = R.call_tir(RowSums.kernel, (x,), out_ty=R.Tensor((1, 512, 8), "float32"))
                    R.output(y)
                return y
        return RowSums

    with pytest.raises(ImportRejected, match=r"a kernel that stores outside a buffer .*; kernel kernel stores total "
                                             r"dimension 1 of range \[0, 64\] at v1 in \[0, 511\]"):
        import_module(with_temporary(64, 64))
    assert import_module(with_temporary(1, 512)).outputs

    @I.ir_module(s_tir=True)
    class Padded:  # a load the checker flags, its if_then_else keeping it in bounds (LegalizeOps' padding)
        @T.prim_func(private=True, s_tir=True)
        def kernel(A: T.Buffer((5,), "float32"), B: T.Buffer((2, 3), "float32")):
            for i, j in T.grid(2, 3):
                with T.sblock("pad"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = T.if_then_else(vi == 1 and vj == 2, T.float32(0), A[vi * 3 + vj])

        @R.function
        def main(x: R.Tensor((5,), "float32")):
            with R.dataflow():
                y = R.call_tir(Padded.kernel, (x,), out_ty=R.Tensor((2, 3), "float32"))
                R.output(y)
            return y

    assert import_module(Padded).outputs


@I.ir_module(s_tir=True)
class InPlace:
    # test_transform's test_call_tir_inplace_some_new: output 0 overwrites operand x, output 1 is fresh
    @T.prim_func(s_tir=True)
    def copy(A: T.Buffer((2, 3), "int32"), B: T.Buffer((2, 3), "int32"), C: T.Buffer((2, 3), "int32")):
        T.func_attr({"tirx.noalias": True})
        for i0, i1 in T.grid(2, 3):
            with T.sblock("copy"):
                ax0, ax1 = T.axis.remap("SS", [i0, i1])
                A[ax0, ax1] = B[ax0, ax1] + A[ax0, ax1]
                C[ax0, ax1] = B[ax0, ax1]

    @R.function
    def main(x: R.Tensor((2, 3), "int32"), y: R.Tensor((2, 3), "int32")):
        res = R.call_tir_inplace(InPlace.copy, (x, y), [0, -1], [R.Tensor((2, 3), "int32"), R.Tensor((2, 3), "int32")])
        return res


def test_an_in_place_kernel_imports_builds_back_in_place_and_computes_the_same():
    program = import_module(InPlace)
    (kernel,) = program.nodes
    assert kernel.attrs["inplace"] == [0, -1]
    rebuilt = build_module(program)
    assert rebuilt["main"].body.blocks[0].bindings[0].value.op.name == "relax.call_tir_inplace"
    arguments = program.arguments()
    for want, got in zip(run(InPlace, arguments), run(rebuilt, arguments)):
        np.testing.assert_array_equal(got, want)
    assert import_module(rebuilt, arguments=arguments).nodes == program.nodes
    assert compare(program, ["EliminateCommonSubexpr", "FoldConstant"]).verdict.finding is None


@pytest.mark.parametrize("change, message", [
    (lambda p: Program((*p.values, Node("negative", (0,))), (*p.outputs, 3)), "read elsewhere or is an output"),
    (lambda p: Program(p.values, (*p.outputs, 0)), "read elsewhere or is an output"),
    (lambda p: Program((replace(p.values[0], role="weight"), *p.values[1:]), p.outputs), "not a tensor input of main"),
], ids=["read-after", "an-output", "a-weight"])
def test_an_in_place_kernel_overwrites_only_an_input_nothing_else_reads(change, message):
    """Relax types the call as pure: a pass may read the overwritten value where a later reader
    sits (CSE, fusion reorder), or make a weight a constant (BindParams) that the next call of
    the same VM finds overwritten. The Program keeps none of those."""
    program = import_module(InPlace)
    analyse(program)
    with pytest.raises(ProgramError, match=message):
        analyse(change(program))


def test_an_in_place_kernel_in_a_function_body_is_rejected_in_one_line():
    @I.ir_module(s_tir=True)
    class Fused:
        @T.prim_func(s_tir=True)
        def exp_inplace(A: T.Buffer((4,), "float32")):
            for i in range(4):
                with T.sblock("exp"):
                    vi = T.axis.remap("S", [i])
                    A[vi] = T.exp(A[vi])

        @R.function(private=True)
        def fused(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            y = R.call_tir_inplace(Fused.exp_inplace, (x,), [0], R.Tensor((4,), "float32"))
            return y

        @R.function
        def main(x: R.Tensor((4,), "float32")):
            y = Fused.fused(x)
            return y

    with pytest.raises(ImportRejected, match=r"^cannot import main -> fused: binding y = R.call_tir_inplace\(...\): "
                                             "an in-place kernel inside a function body or branch$"):
        import_module(Fused)


@I.ir_module(s_tir=True)
class ShiftedByADrawnScalar:
    @T.prim_func(private=True, s_tir=True)
    def shifted(A: T.Buffer((10,), "float32"), m: T.int64, B: T.Buffer((10,), "float32")):
        for i in range(10):
            with T.sblock("compute"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi + m]  # m = 1 reads past A

    @R.function
    def main(x: R.Tensor((10,), "float32"), m: T.int64):
        cls = ShiftedByADrawnScalar
        y = R.call_tir(cls.shifted, (x, m), out_ty=R.Tensor((10,), "float32"))
        return y


@I.ir_module(s_tir=True)
class LoopingToADrawnScalar:
    @T.prim_func(private=True, s_tir=True)
    def upto(A: T.Buffer((4,), "float32"), m: T.int64, B: T.Buffer((4,), "float32")):
        for i in range(m):  # m = 0 leaves B as the allocation held it
            with T.sblock("compute"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi]

    @R.function
    def main(x: R.Tensor((4,), "float32"), m: T.int64):
        cls = LoopingToADrawnScalar
        y = R.call_tir(cls.upto, (x, m), out_ty=R.Tensor((4,), "float32"))
        return y


@pytest.mark.parametrize("module", [ShiftedByADrawnScalar, LoopingToADrawnScalar])
def test_a_drawn_integer_scalar_a_kernel_offsets_an_index_or_bounds_a_loop_with_is_rejected(module):
    # drawn in [0, 1], it may read past a buffer or leave an output unwritten: a result its
    # inputs do not determine. A bare index of an axis longer than 1 stays bounded (the test above).
    with pytest.raises(ImportRejected, match="drawn R.Prim int64 the kernel indexes, loops or branches with"):
        import_module(module)

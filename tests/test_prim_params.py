"""R.Prim parameters: each is the symbolic variable it names (``n: T.int64``), an input or a weight
placed before the first parameter that uses it; the VM takes a Python int for it. They are drawn,
validated, round-trip, shrink toward static typing, are passed through every calling-convention
adapter, and reproduce standalone."""

import json
from dataclasses import replace

import jsonschema
import numpy as np
import pytest
import tvm
from hypothesis import HealthCheck, Phase, find, given, settings
from tvm import relax
from tvm.script import relax as R
from tvm.script import tirx as T

from passfuzz.findings.corpus import schema
from passfuzz.findings.known_bugs import shipped
from passfuzz.findings.reduce import _static, complexity
from passfuzz.ir.graph import analyse, evaluate
from passfuzz.ir.program import Node, Param, PrimParam, Program, ProgramError
from passfuzz.judge.oracle import Verdict
from passfuzz.judge.trial import check
from passfuzz.passes.catalogue import with_prerequisites
from passfuzz.passes.names import resolve, resolve_list
from passfuzz.relax.build import build_module, to_tvm
from passfuzz.relax.importer import import_module
from passfuzz.run.calling import choose_adapter
from strategies import relax_programs

from .test_importer import run
from .test_reproducer import fixed_twin, run_scripts, saved_wrong_result

ALL = {"axis": None, "keepdims": False}
FAST = settings(deadline=None, database=None, suppress_health_check=list(HealthCheck))

X = Param((2, 3), "float32", -4, 4, [[1.0, 2.0, 3.0], [0.0, -1.0, 2.0]])
W = Param((4, 3), "float32", -2, 2, [[1.0, 0.0, 2.0], [0.5, 1.0, -1.0], [-2.0, 2.0, 1.0], [0.0, 0.0, 1.0]],
          role="weight", dims=("n", ""))


def lifted(role: str) -> Program:
    """main(x0, n, w1: (n, 3)) = x0 + sum(exp(w1), axis=0): exp of the weight alone is lifted,
    and every op takes the symbolic shape as typed (no match_cast, which global lifting refuses)."""
    return Program((X, W, Node("exp", (1,)), Node("sum", (2,), {"axis": [0], "keepdims": False}),
                    Node("add", (0, 3))), (4,), (), (PrimParam("n", role),))


def permuted(role: str) -> Program:
    """main(x0, n, w1: (n, 3)) = x0 @ permute_dims(w1), for the planted permute bug."""
    return Program((X, W, Node("permute_dims", (1,), {"axes": None}), Node("matmul", (0, 2))), (3,), (),
                   (PrimParam("n", role),))


@pytest.mark.parametrize("role, num_input", [("input", 2), ("weight", 1)])
def test_the_prim_parameter_is_the_variable_that_types_the_weight(role, num_input):
    program = lifted(role)
    analyse(program)
    main = build_module(program)["main"]
    assert [p.name for p in main.params] == ["x0", "n", "w1"] and str(main.params[1].ty) == "int64"
    assert main.params[2].ty.shape.values[0].same_as(main.params[1])  # one object: the parameter is the variable
    assert int(main.attrs["num_input"]) == program.num_input == num_input
    arguments = program.arguments()
    assert arguments[1] == 4 and type(arguments[1]) is int and to_tvm(arguments[1]) == 4
    assert "n: T.int64" in build_module(program).script()


def test_a_prim_parameter_sits_before_the_first_parameter_of_its_role_that_uses_it():
    v = Param((3,), "float32", -4, 4, [0.0, 1.0, 2.0], dims=("m",))
    program = Program((X, v, W, Node("sum", (2,), {"axis": [0], "keepdims": False}), Node("add", (1, 3))), (4,), (("m",),),
                      (PrimParam("n", "weight"),))
    analyse(program)
    assert [kind for _, kind, _ in program.main_parameters()] == ["tensor", "tensor", "shape", "prim", "tensor"]
    assert [p.name for p in build_module(program)["main"].params] == ["x0", "x1", "s0", "n", "w2"]
    assert program.num_input == 3 and program.arguments()[2:4] == [(3,), 4]
    assert relax.analysis.check_well_formed(build_module(program))


@pytest.mark.parametrize("prims, shapes", [
    ((PrimParam("m", "input"),), ()),  # no tensor uses m
    ((PrimParam("n", "input"), PrimParam("n", "input")), ()),  # defined twice
    ((PrimParam("n", "input"),), (("n",),)),  # an R.Shape parameter defines it too
    ((PrimParam("n", "other"),), ()),
])
def test_inconsistent_prim_parameters_are_rejected(prims, shapes):
    with pytest.raises(ProgramError):
        analyse(Program(lifted("input").values, (4,), shapes, prims))


def test_a_weight_cannot_define_a_variable_an_input_uses():
    x = Param((4,), "float32", -4, 4, [0.0] * 4, dims=("n",))
    with pytest.raises(ProgramError, match="weight"):
        analyse(Program((x, W, Node("sum", (1,), ALL), Node("add", (0, 2))), (3,), (), (PrimParam("n", "weight"),)))
    analyse(Program((x, W, Node("sum", (1,), ALL), Node("add", (0, 2))), (3,), (), (PrimParam("n", "input"),)))


@pytest.mark.parametrize("role", ["input", "weight"])
def test_prim_parameters_of_both_roles_are_drawn_and_round_trip(role):
    # The first drawn program with one is enough: shrinking it would only cost time.
    program = find(relax_programs(), lambda p: any(q.role == role for q in p.prim_params),
                   settings=settings(FAST, max_examples=2000, phases=[Phase.generate]))
    analyse(program)
    doc = json.loads(json.dumps(program.to_json()))
    assert doc["prim_params"] == [{"name": q.name, "role": q.role} for q in program.prim_params]
    assert role in {q["role"] for q in doc["prim_params"]}
    assert Program.from_json(doc) == program
    jsonschema.validate(doc, schema()["properties"]["program"])
    assert len(program.arguments()) == len(build_module(program)["main"].params)


def test_an_old_record_without_prim_parameters_loads_and_a_static_program_writes_none():
    doc = lifted("input").to_json()
    assert doc["prim_params"] == [{"name": "n", "role": "input"}]
    del doc["prim_params"]
    assert Program.from_json(doc).prim_params == () and "prim_params" not in Program.from_json(doc).to_json()


def test_the_reducer_drops_or_inlines_a_prim_parameter_toward_static_typing():
    program = lifted("weight")
    candidates = list(_static(program))
    for candidate in candidates:
        analyse(candidate)
        assert complexity(candidate) < complexity(program)
    assert any(not c.prim_params and any(p.dims for _, p in c.params) for c in candidates)  # defined by w1 alone
    assert any(not c.prim_params and not c.symbolic for c in candidates)  # inlined: w1 static
    assert Program(program.values, program.outputs).without_unused().prim_params == ()
    assert program.without_unused().prim_params == program.prim_params


# Every calling-convention adapter, with the prim parameter as an input and as a weight: each
# compiles, runs and matches the unoptimized module, except where TVM itself fails (below).
ADAPTERS = [
    ("LiftTransformParams", "main_transform_params"),
    ("LiftTransformParams(shared_transform=True)", "transform_params"),
    ("BundleModelParams", "main(inputs, tuple)"),
    ("BindParams", "main(inputs, ); without argument(s) 1"),
    ("BindSymbolicVars", "without argument(s) 1"),
    ("LazyGetInput", "main(inputs, getter)"),
    ("LazySetOutput", None),
    ("ExpandTupleArguments", "plain"),
    ("RemoveUnusedParameters", "plain"),
    ("LiftTransformParams,BundleModelParams", "main_transform_params (bundled); main(inputs, tuple)"),
    ("BundleModelParams,BundleModelParams", "main(inputs, tuple) (bundled)"),
    ("LiftTransformParams,ToNonDataflow,RemovePurityChecking,LazyTransformParams", "lazy main_transform_params"),
]
# A prim *weight* moved into a tuple parameter (BundleModelParams, or the bundle LiftTransformParams
# gives main_transform_params) is bound back with `n: T.int64 = model_params[0]` and the weight loses
# its shape; TVM's VMShapeLower then segfaults while compiling (apache/tvm#20335, open).
TVM_CRASHES = {"BundleModelParams", "LiftTransformParams", "LiftTransformParams(shared_transform=True)",
               "LiftTransformParams,BundleModelParams", "BundleModelParams,BundleModelParams"}
# LazyGetInput reads a prim weight through fget_param *after* the weights typed by it, into a fresh
# variable (`n_1: T.int64 = R.match_cast(n_untyped, T.int64)`), and keeps num_input at 2: VMShapeLower
# rejects the module ("Explicit binding for symbolic variable n must be a primitive expression").
TVM_COMPILE_ERRORS = {"LazyGetInput"}


@pytest.mark.parametrize("role", ["input", "weight"])
@pytest.mark.parametrize("passes, adapter", ADAPTERS)
def test_each_calling_convention_takes_prim_parameters(role, passes, adapter):
    specs = resolve_list(passes)
    if "LazyTransformParams" not in passes:
        specs = with_prerequisites(specs)
    verdict, optimized = check(lifted(role), specs, ["llvm"], timeout=120)
    if role == "weight" and passes in TVM_CRASHES:
        assert verdict.finding is not None and verdict.finding.kind == "crash", verdict
        assert verdict.finding.stage == "compile:llvm"
        return
    if role == "weight" and passes in TVM_COMPILE_ERRORS:
        assert verdict.finding is not None and verdict.finding.kind == "compile-error", verdict
        return
    if role == "weight" and "LazyTransformParams" in passes:
        # The lazy transform of a bundle holding an int: no adapter is known, so nothing is compared.
        assert verdict.finding is None and verdict.incomparable, verdict
        return
    assert verdict.finding is None and not verdict.incomparable and not verdict.generator_defect, verdict
    if adapter is not None:
        assert optimized.adapter.name == adapter
    assert optimized.changed or passes == "RemoveUnusedParameters"


def test_binding_the_variable_leaves_its_argument_out_and_the_naive_call_fails():
    program = lifted("input")
    original = build_module(program)
    bound = resolve("BindSymbolicVars").for_program(program).instantiate()(build_module(program))
    assert [p.name for p in bound["main"].params] == ["x0", "w1"]  # TVM removes the bound parameter
    adapter = choose_adapter(original, bound, program.num_input, program.symbol_values())
    assert adapter.dropped == (1,)
    args = [to_tvm(a) for a in program.arguments()]
    assert adapter.split(program, args)[0] == args[:1] and len(adapter.split(program, args)[1]) == 1


def test_a_prim_weight_bound_away_is_dropped_even_when_an_input_is_a_tuple():
    # main((x0,), n, w1): the input tuple is not a sign that the weights moved into a tuple.
    program = Program((Param((2, 3), "float32", -4, 4, X.value, pack=(0, 0)), *lifted("weight").values[1:]),
                      (4,), (), (PrimParam("n", "weight"),))
    original = build_module(program)
    bound = resolve("BindSymbolicVars").for_program(program).instantiate()(build_module(program))
    adapter = choose_adapter(original, bound, program.num_input, program.symbol_values())
    assert adapter is not None and adapter.dropped == (1,)
    verdict, _ = check(program, [resolve("BindSymbolicVars")], ["llvm"], timeout=120)
    assert verdict.finding is None and not verdict.incomparable, verdict


@settings(FAST, max_examples=4)
@given(relax_programs(max_nodes=4).filter(lambda p: any(q.role == "input" for q in p.prim_params)))
def test_drawn_prim_inputs_agree_through_the_binding_and_bundling_adapters(program):
    # A known TVM bug (the shipped baseline: BundleModelParams with a prim weight, apache/tvm#20335)
    # is TVM's to fix; anything else is passfuzz's or new.
    known = {bug.fingerprint for bug in shipped(tvm.__version__).bugs}
    for name in ("Normalize", "BindSymbolicVars", "BindParams", "BundleModelParams"):
        verdict, _ = check(program, [resolve(name)], ["llvm"], timeout=120)
        new = verdict.finding is not None and verdict.finding.fingerprint not in known
        assert not new and not verdict.incomparable and not verdict.generator_defect, (name, verdict)


def test_reproducers_pass_the_prim_argument_as_an_int_and_leave_a_bound_one_out(tmp_path):
    plain, _ = saved_wrong_result(permuted("input"), "tests.planted_passes:permute_as_reshape", tmp_path / "a")
    bound, _ = saved_wrong_result(permuted("input"), "BindSymbolicVars,tests.planted_passes:permute_as_reshape",
                                  tmp_path / "b")
    assert "n: T.int64" in plain.read_text() and "\n    4,\n" in plain.read_text()
    assert "args = [a for k, a in enumerate(args) if k not in (1,)]" in bound.read_text()
    twins = [fixed_twin(s, "permute_as_reshape", "permute_as_reshape_fixed") for s in (plain, bound)]
    results = run_scripts(plain, bound, *twins)
    for result in results[:2]:
        assert result.returncode == 1 and result.stdout.startswith("BUG REPRODUCES (wrong-result)"), result
    for result in results[2:]:
        assert result.returncode == 0 and result.stdout.startswith("fixed"), result


# -- R.Prim scalars of other dtypes: values, not variables ---------------------------------------

class TestPrimScalars:
    """As TVM's tests write them (test_transform_legalize_ops_binary, test_transform_cse): a float
    R.Prim operand of a binary op, a bool R.Prim as an If's condition."""

    @tvm.script.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Prim("float32"), condition: R.Prim("bool")):
            if condition:
                out = R.add(x, y)
            else:
                out = R.multiply(y, x)
            return out

    def test_they_import_as_scalar_parameters_build_back_run_and_agree(self):
        rng = np.random.default_rng(1)
        x = rng.uniform(-1, 1, (2, 3)).astype("float32")
        for y, condition in [(0.75, True), (-1.5, False)]:
            program = import_module(self.Before, arguments=[x, y, condition])
            assert [(p.shape, p.dtype, p.prim) for _, p in program.params] == \
                [((2, 3), "float32", False), ((), "float32", True), ((), "bool", True)]
            assert program.arguments()[1:] == [y, condition]
            assert Program.from_json(json.loads(json.dumps(program.to_json()))) == program
            rebuilt = build_module(program)
            assert [str(p.ty) for p in rebuilt["main"].params][1:] == ["float32", "bool"]
            (original,) = run(self.Before, [x, y, condition])
            (imported,) = run(rebuilt, program.arguments())
            (reference,) = evaluate(program)
            expected = x + np.float32(y) if condition else x * np.float32(y)
            assert np.array_equal(original, expected) and np.array_equal(imported, expected)
            np.testing.assert_allclose(reference, expected, rtol=1e-6)

    def test_a_trial_compares_both_sides_and_redraws_the_scalars(self):
        program = import_module(self.Before, arguments=[np.ones((2, 3), "float32"), 0.5, True])
        verdict, _ = check(program, resolve_list("LegalizeOps"), ["llvm"], timeout=120, argument_draws=3)
        assert verdict.finding is None and not verdict.incomparable and not verdict.generator_defect, verdict

    def test_only_binary_ops_and_an_if_take_one_and_it_is_no_output(self):
        program = import_module(self.Before, arguments=[np.ones((2, 3), "float32"), 0.5, True])
        analyse(program)
        read_by_exp = replace(program, values=program.values + (Node("exp", (1,)),), outputs=(3, 4))
        with pytest.raises(ProgramError, match="read by exp, which takes no R.Prim operand"):
            analyse(read_by_exp)
        with pytest.raises(ProgramError, match="no output"):
            analyse(replace(program, outputs=(3, 1)))
        then_exp = {"values": [{"op": "exp", "args": [1], "attrs": {}}, {"op": "add", "args": [0, 2], "attrs": {}}],
                    "outputs": [3]}
        wrong_branch = Node("if", program.values[3].args, {**program.values[3].attrs, "then": then_exp})
        with pytest.raises(ProgramError, match="read by exp"):
            analyse(replace(program, values=program.values[:3] + (wrong_branch,)))


@tvm.script.ir_module(s_tir=True)
class ScaledByKernel:
    """test_transform_legalize_ops_binary's Expected: a kernel taking the R.Prim scalar."""

    @T.prim_func(private=True, s_tir=True)
    def add(lhs: T.Buffer((T.int64(2), T.int64(3)), "float32"), rhs: T.float32,
            output: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_add"):
                vi, vj = T.axis.remap("SS", [i, j])
                output[vi, vj] = lhs[vi, vj] + rhs

    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Prim("float32")):
        cls = ScaledByKernel
        gv = R.call_tir(cls.add, (x, y), R.Tensor((2, 3), dtype="float32"))
        return gv


def test_a_kernel_taking_a_prim_scalar_imports_builds_back_runs_and_keeps_it_a_scalar():
    x = np.arange(6, dtype="float32").reshape(2, 3)
    program = import_module(ScaledByKernel, arguments=[x, 0.25])
    (kernel,) = program.nodes
    assert kernel.op == "call_tir" and kernel.attrs["prims"] == [1] and kernel.attrs["inputs"][1] == [[], "float32"]
    (original,) = run(ScaledByKernel, [x, 0.25])
    (imported,) = run(build_module(program), program.arguments())
    assert np.array_equal(original, x + 0.25) and np.array_equal(imported, original)
    # a 0-d tensor in the scalar's place is refused, and so is the scalar where a kernel takes a 0-d tensor
    tensor = Param((), "float32", -4, 4, 0.5)
    with pytest.raises(ProgramError, match="operand 1 is the kernel's R.Prim scalar"):
        analyse(replace(program, values=program.values[:1] + (tensor,) + program.values[2:]))
    takes_tensor = Node("call_tir", kernel.args, {k: v for k, v in kernel.attrs.items() if k != "prims"})
    with pytest.raises(ProgramError, match="read by call_tir, which takes no R.Prim operand"):
        analyse(replace(program, values=program.values[:2] + (takes_tensor,)))


def test_a_reproducer_passes_an_r_prim_scalar_as_a_python_float(tmp_path):
    """permute_dims(x + y) with y an R.Prim("float32"): the planted pass's wrong result is saved,
    its script types y as R.Prim and passes it as a float, and reproduces; the fixed twin does not."""
    program = Program((X, Param((), "float32", -4, 4, 0.75, prim=True), Node("add", (0, 1)),
                       Node("permute_dims", (2,), {"axes": [1, 0]})), (3,))
    script, _ = saved_wrong_result(program, "tests.planted_passes:permute_as_reshape", tmp_path)
    text = script.read_text()
    assert "x1: T.float32" in text and "0.75" in text
    results = run_scripts(script, fixed_twin(script, "permute_as_reshape", "permute_as_reshape_fixed"))
    assert results[0].returncode == 1 and results[0].stdout.startswith("BUG REPRODUCES (wrong-result)"), results[0]
    assert results[1].returncode == 0 and results[1].stdout.startswith("fixed"), results[1]


# main(n0, x0: (n0,), x2) = argmin(x0) <= x2, no num_input: LazyGetInput makes every parameter a
# weight read through fget_param by its position in the original signature (x0 is weight 1), and
# never reads n0, which x0's shape defines.
LAZY_ALL = Program((replace(X, shape=(2,), value=[-1.0, 2.0], dims=("n0",)),
                    Node("argmin", (0,), {"axis": 0, "keepdims": False}), Param((), "int64", -4, 4, 0),
                    Node("less_equal", (1, 2))), (3,), (), (PrimParam("n0", "input"),))


@pytest.mark.parametrize("passes, dropped", [("LazyGetInput", ()), ("BindSymbolicVars,LazyGetInput", (0,))])
def test_the_getter_reads_weights_by_the_index_lazy_get_input_gave_them_a_prim_one_counted_unless_bound_before(
        passes, dropped):
    # Counting n0 only when a pass bound it away first (BindSymbolicVars: LazyGetInput then never
    # saw it). Dropping it after LazyGetInput alone handed x2 for x0: a false runtime error.
    verdict, optimized = check(LAZY_ALL, resolve_list(passes), ["llvm"], timeout=120)
    assert verdict == Verdict(), verdict  # no finding, no defect, comparable
    assert optimized.adapter.slots == ("getter",) and optimized.adapter.dropped == dropped

"""Symbolic shapes: symbolic dims, R.Shape parameters, unknown ranks and shape programs are drawn,
build, compile, run and agree with numpy; BindParams and BindSymbolicVars bind the program's own
values and are compared through the calling adapter; symbolic programs round-trip and reproduce."""

import json

import jsonschema
import numpy as np
import pytest
import tvm
from hypothesis import HealthCheck, find, given, settings
from tvm import relax

from passfuzz.findings.corpus import schema
from passfuzz.findings.known_bugs import known_set, shipped
from passfuzz.ir.graph import analyse
from passfuzz.ir.program import Node, Param, Program, ProgramError
from passfuzz.judge.trial import check
from passfuzz.passes.names import resolve
from passfuzz.relax.build import build_module, to_tvm
from passfuzz.run.calling import PLAIN, choose_adapter
from strategies import relax_programs

from .test_reproducer import fixed_twin, run_script, saved_wrong_result

FAST = settings(deadline=None, database=None, suppress_health_check=list(HealthCheck))
KNOWN = set(known_set(shipped(tvm.__version__)))

X = Param((3, 2), "float32", -4, 4, [[1.0, -2.0], [0.5, 3.0], [-1.0, 0.0]], dims=("n0", ""))
W = Param((3,), "float32", -4, 4, [2.0, -1.0, 0.5], role="weight", dims=("n0",))
U = Param((2, 2), "float32", -4, 4, [[1.0, 2.0], [3.0, 4.0]], unknown_rank=True)
# main(x0: (n0, 2), x1: unknown rank, s0: R.Shape([n0]), w2: (n0,)), num_input 3:
# sum over the static axis, plus the weight; permute_dims needs static shapes (a match_cast);
# exp of the unknown-rank input (a match_cast); the shape of x0; x1 reshaped to x0's run-time shape... of 4.
SYMBOLIC = Program((X, U, W,
                    Node("sum", (0,), {"axis": [1], "keepdims": False}),
                    Node("add", (3, 2)),
                    Node("permute_dims", (0,), {"axes": None}),
                    Node("exp", (1,)),
                    Node("shape_of", (0,)),
                    Node("reshape_runtime", (1, 1))),
                   (4, 5, 6, 7, 8), (("n0",),))


def _drawn(predicate, **kwargs):
    return find(relax_programs(**kwargs), predicate, settings=settings(FAST, max_examples=500))


@pytest.mark.parametrize("structure, predicate", [
    ("symbolic dim", lambda p: any(v.dims for _, v in p.params)),
    ("R.Shape parameter", lambda p: bool(p.shape_params)),
    ("unknown rank", lambda p: any(v.unknown_rank for _, v in p.params)),
    ("match_cast", lambda p: "match_cast" in build_module(p).script()),
])
def test_each_symbolic_structure_is_drawn(structure, predicate):
    program = _drawn(predicate)
    analyse(program)


@pytest.mark.parametrize("op, text", [("shape_of", "R.shape_to_tensor(lv"), ("reshape_runtime", "R.tensor_to_shape")])
def test_each_shape_op_is_drawn_and_emitted(op, text):
    program = _drawn(lambda p: op in p.op_counts(), ops=[op])
    assert text in build_module(program).script()


def test_a_symbolic_program_is_typed_symbolically_and_well_formed():
    analyse(SYMBOLIC)
    mod = build_module(SYMBOLIC)
    main = mod["main"]
    assert [str(p.ty) for p in main.params] == ['R.Tensor((n0, 2), dtype="float32")', 'R.Tensor(dtype="float32")',
                                                 "R.Shape([n0])", 'R.Tensor((n0,), dtype="float32")']
    assert int(main.attrs["num_input"]) == 3 and relax.analysis.check_well_formed(mod)
    assert mod.script().count("R.match_cast") == 3  # x0 for permute_dims, x1 for exp and the run-time shape
    assert SYMBOLIC.arguments()[2] == (3,) and isinstance(to_tvm((3,)), tvm.runtime.ShapeTuple)


def test_inconsistent_symbolic_typing_is_rejected():
    for bad in (Program((X, Param((2,), "float32", -4, 4, [0.0, 0.0], dims=("n0",))), (0,)),  # n0 is 3 and 2
                Program((X,), (0,), (("m",),)),  # a shape parameter for a name no tensor uses
                Program((Param((2,), "float32", -4, 4, [0.0, 0.0], role="weight", unknown_rank=True),), (0,))):
        with pytest.raises(ProgramError):
            analyse(bad)


@settings(FAST, max_examples=12)
@given(relax_programs(max_nodes=5).filter(lambda p: p.symbolic))
def test_symbolic_programs_compile_run_and_agree_with_numpy(program):
    verdict, _ = check(program, [resolve("Normalize")], ["llvm"], timeout=120)
    # a known TVM bug a drawn program reaches (an If's memory planning, apache/tvm#17348) is the
    # fuzzer's to report against the shipped baseline, not a failure of the symbolic typing
    known = verdict.finding is not None and verdict.finding.fingerprint in KNOWN
    assert (verdict.finding is None or known) and not verdict.generator_defect and not verdict.incomparable, verdict


def test_the_example_agrees_with_numpy_and_both_binding_passes_are_adapted():
    for name, adapter in (("BindSymbolicVars", "plain"), ("BindParams", "main(inputs, )")):
        verdict, optimized = check(SYMBOLIC, [resolve(name)], ["llvm"], timeout=120)
        assert verdict.finding is None and not verdict.incomparable and not verdict.generator_defect, verdict
        assert optimized.changed and optimized.adapter.name == adapter


def test_binding_passes_take_the_programs_own_values():
    bind_params = resolve("BindParams").for_program(SYMBOLIC)
    assert bind_params.args[0] == "main" and list(bind_params.args[1]) == ["w2"]
    np.testing.assert_array_equal(bind_params.args[1]["w2"], W.array())
    assert resolve("BindSymbolicVars").for_program(SYMBOLIC).args == ({"n0": 3},)
    assert resolve("BindParams('main', {})").for_program(SYMBOLIC).args == ("main", {})  # given arguments stay
    expr = bind_params.python_expr()
    assert expr == "relax.transform.BindParams('main', {'w2': np.array([2.0, -1.0, 0.5], dtype='float32')})"
    assert isinstance(eval(expr, {"relax": relax, "np": np}), tvm.transform.Pass)


def test_the_naive_call_after_the_binding_passes_is_wrong_and_the_adapter_knows_it():
    original = build_module(SYMBOLIC)
    symbols = SYMBOLIC.symbol_values()
    specialized = resolve("BindSymbolicVars").for_program(SYMBOLIC).instantiate()(build_module(SYMBOLIC))
    assert "n0" not in specialized.script()
    # Without the argument values the specialized main looks like an unknown convention change...
    assert choose_adapter(original, specialized, SYMBOLIC.num_input) is None
    assert choose_adapter(original, specialized, SYMBOLIC.num_input, symbols) == PLAIN
    bound = resolve("BindParams").for_program(SYMBOLIC).instantiate()(build_module(SYMBOLIC))
    adapter = choose_adapter(original, bound, SYMBOLIC.num_input, symbols)
    assert adapter is not None and adapter.slots == ()
    vm = relax.VirtualMachine(tvm.compile(bound, target="llvm"), tvm.cpu())
    args = [to_tvm(a) for a in SYMBOLIC.arguments()]
    with pytest.raises(Exception):  # ...and the old call, weights included, does not fit the new main
        vm["main"](*args)
    outputs = adapter.call(vm, SYMBOLIC, args, adapter.prepare(SYMBOLIC, args))
    np.testing.assert_allclose(outputs[0].numpy(), X.array().sum(axis=1) + W.array(), rtol=1e-6)


@settings(FAST, max_examples=6)
@given(relax_programs(max_nodes=4).filter(lambda p: p.symbolic and p.num_input is not None))
def test_binding_passes_give_no_finding_on_drawn_programs(program):
    for name in ("BindSymbolicVars", "BindParams"):
        verdict, _ = check(program, [resolve(name)], ["llvm"], timeout=120)
        assert verdict.finding is None and not verdict.incomparable and not verdict.generator_defect, (name, verdict)


@settings(FAST, max_examples=30)
@given(relax_programs().filter(lambda p: p.symbolic))
def test_symbolic_programs_round_trip_through_json(program):
    doc = json.loads(json.dumps(program.to_json()))
    assert Program.from_json(doc) == program
    record_schema = schema()["properties"]["program"]
    jsonschema.validate(doc, record_schema)


def test_a_static_program_writes_no_new_fields_and_old_documents_load():
    static = Program((Param((2,), "float32", -4, 4, [1.0, 2.0]), Node("negative", (0,))), (1,))
    doc = static.to_json()
    assert "shape_params" not in doc and set(doc["values"][0]) == {"kind", "role", "shape", "dtype", "range", "value"}
    assert Program.from_json(doc) == static


def test_reproducer_of_a_planted_bug_in_a_symbolic_program_runs_standalone(tmp_path):
    script, _ = saved_wrong_result(SYMBOLIC, "BindSymbolicVars,tests.planted_passes:permute_as_reshape", tmp_path)
    text = script.read_text()
    assert "relax.transform.BindSymbolicVars({'n0': 3})" in text and "(3,)" in text.split("arguments = ", 1)[1]
    result = run_script(script)
    assert result.returncode == 1 and result.stdout.startswith("BUG REPRODUCES (wrong-result)"), result
    result = run_script(fixed_twin(script, "permute_as_reshape", "permute_as_reshape_fixed"))
    assert result.returncode == 0 and result.stdout.startswith("fixed"), result

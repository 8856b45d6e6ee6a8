"""Program structure: tuple values and parameters, private functions, closures and R.If.

Each structure is drawn, builds into the Relax construct it names, compiles, runs, agrees with
numpy, survives the JSON round trip, and reaches a pass under test (a planted bug inside a
branch and a private function is found and reproduced by its script).
"""

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from tvm import relax

from passfuzz.findings.corpus import known_fingerprints
from passfuzz.ir.catalogue import OpError
from passfuzz.ir.catalogue.structure import IF
from passfuzz.ir.graph import analyse
from passfuzz.ir.program import Node, Param, Program, ProgramError
from passfuzz.judge.trial import check
from passfuzz.passes.names import resolve_list
from passfuzz.relax.build import build_module
from strategies import relax_programs

from .catalogue_support import F
from .conftest import ROOT
from .test_reproducer import fixed_twin, run_script, saved_wrong_result

KNOWN = known_fingerprints(ROOT / "corpus")  # e.g. CanonicalizeBindings across dataflow blocks
STRUCTURE = ["tuple", "tuple_get_item", "call", "if"]
FEW_OPS = STRUCTURE + ["add", "exp", "permute_dims", "less", "sum", "where", "take"]
FIND = settings(max_examples=300, database=None, phases=[Phase.generate], suppress_health_check=list(HealthCheck),
                deadline=None)


def _has_local_call(program):
    return any(n.op == "call" and n.attrs["local"] for n in program.nodes)


def _has_nested_region(program):
    return any(v["op"] in ("call", "if") for n in program.nodes if n.op == "call" for v in n.attrs["body"]["values"])


@pytest.mark.parametrize("what, holds", [
    ("tuple value", lambda p: "tuple" in p.op_counts()),
    ("tuple_get_item chain", lambda p: "tuple_get_item" in p.op_counts()),
    ("flat tuple parameter", lambda p: any(isinstance(e, tuple) and all(isinstance(i, int) for i in e)
                                           for e in p.signature())),
    ("nested tuple parameter", lambda p: any(isinstance(e, tuple) and any(isinstance(i, tuple) for i in e)
                                             for e in p.signature())),
    ("private function", lambda p: any(n.op == "call" and not n.attrs["local"] for n in p.nodes)),
    ("local closure", _has_local_call),
    ("region inside a region", _has_nested_region),
    ("if", lambda p: "if" in p.op_counts()),
    ("tuple output", lambda p: any(n.op == "tuple" for i, n in enumerate(p.values) if i in p.outputs)),
])
def test_each_structure_is_drawn(what, holds):
    find(relax_programs(ops=FEW_OPS), holds, settings=FIND)


def test_structures_build_into_the_relax_constructs_they_name():
    x = Param((2, 2), "float32", -4, 4, [[1, 2], [3, 4]], pack=(0, 0))
    c = Param((), "bool", 0, 1, True, pack=(0, 1, 0))
    body = {"values": [{"op": "permute_dims", "args": [0], "attrs": {"axes": None}}], "outputs": [1]}
    branch_then = {"values": [{"op": "negative", "args": [0], "attrs": {}}], "outputs": [1]}
    program = Program((x, c,
                       Node("call", (0,), {"local": False, "body": body}),
                       Node("call", (2,), {"local": True, "body": body}),
                       Node("if", (1, 3), {"then": branch_then, "else": {"values": [], "outputs": [0]}}),
                       Node("tuple", (4, 2))), (5,))
    analyse(program)
    text = build_module(program).script()
    assert "def f2(" in text and "R.function(private=True)" in text  # the private helper
    assert "if x1:" not in text and "if " in text and "else:" in text  # R.If on the tuple's bool
    assert "t0: R.Tuple(R.Tensor((2, 2), dtype=\"float32\"), R.Tuple(R.Tensor((), dtype=\"bool\")))" in text
    assert text.count("@R.function") == 3  # main, f2 and the closure inside main
    assert Program.from_json(json.loads(json.dumps(program.to_json()))) == program


def test_if_branches_compute_as_much_as_a_function_body():
    # TVM's memory planning mishandles some such branches (apache/tvm#17348): that is a pipeline
    # finding blaming StaticPlanBlockMemory (tests/test_pipeline_blame.py), not an invalid program.
    two_ops = {"values": [{"op": "exp", "args": [0], "attrs": {}}, {"op": "exp", "args": [1], "attrs": {}}],
               "outputs": [2]}
    one_op = {"values": [{"op": "exp", "args": [0], "attrs": {}}], "outputs": [1]}
    cond, x = F((), 0, 1, "bool"), F((2, 3), -1, 1)
    assert IF.infer([cond, x], {"then": two_ops, "else": one_op}).hi == pytest.approx(np.exp(np.e), rel=1e-5)
    dead = {"values": [{"op": "exp", "args": [0], "attrs": {}}], "outputs": [0]}
    assert IF.infer([cond, x], {"then": dead, "else": one_op}).hi == pytest.approx(np.e, rel=1e-5)


def test_drawn_if_branches_compute_intermediate_values():
    def rich(program):
        return any(len(n.attrs[b]["values"]) >= 2 for n in program.nodes if n.op == "if" for b in ("then", "else"))
    program = find(relax_programs(ops=FEW_OPS), rich, settings=FIND)
    analyse(program)


def test_if_joins_the_ranges_of_its_branches_and_requires_a_bool_scalar():
    negate = {"values": [{"op": "negative", "args": [0], "attrs": {}}], "outputs": [1]}
    same = {"values": [], "outputs": [0]}
    info = IF.infer([F((), 0, 1, "bool"), F((3,), 1, 2)], {"then": negate, "else": same})
    assert (info.lo, info.hi, info.exact) == (pytest.approx(-2, rel=1e-5), 2, True)
    with pytest.raises(OpError, match="bool scalar"):
        IF.infer([F((2,), 0, 1, "bool"), F((3,), 1, 2)], {"then": negate, "else": same})
    wider = {"values": [{"op": "expand_dims", "args": [0], "attrs": {"axis": 0}}], "outputs": [1]}
    with pytest.raises(OpError, match="same type"):
        IF.infer([F((), 0, 1, "bool"), F((3,), 1, 2)], {"then": wider, "else": same})


def test_tuple_parameters_must_nest():
    a = Param((1,), "float32", 0, 1, [0.0], pack=(0, 1))
    b = Param((1,), "float32", 0, 1, [0.0], pack=(0, 1, 0))  # position 1 cannot be a tensor and a tuple
    with pytest.raises(ProgramError, match="tensor and a tuple"):
        analyse(Program((a, b, Node("add", (0, 1))), (2,)))
    w = Param((1,), "float32", 0, 1, [0.0], "weight", pack=(0, 0))
    analyse(Program((w, Node("abs", (0,))), (1,)))  # weights in one tuple parameter (packed_params)
    x = Param((1,), "float32", 0, 1, [0.0], pack=(0, 1))
    with pytest.raises(ProgramError, match="holds inputs and weights"):
        analyse(Program((w, x, Node("add", (0, 1))), (2,)))


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(relax_programs(ops=FEW_OPS))
def test_structured_programs_run_agree_with_numpy_and_survive_correct_passes(program):
    passes = resolve_list("CanonicalizeBindings,InlinePrivateFunctions,LambdaLift,DeadCodeElimination")
    verdict, _ = check(program, passes, ["llvm"], timeout=120)
    assert not verdict.generator_defect, verdict.generator_defect
    assert verdict.finding is None or verdict.finding.fingerprint in KNOWN, verdict.finding.message
    relax.analysis.well_formed(build_module(program))


def test_planted_bug_inside_a_branch_and_a_private_function_is_found_and_reproduced(tmp_path):
    x = Param((2, 3), "float32", 0, 8, [[1, 2, 3], [4, 5, 6]], pack=(0, 0))
    c = Param((), "bool", 0, 1, True, pack=(0, 1))
    permute = {"values": [{"op": "permute_dims", "args": [0], "attrs": {"axes": None}}], "outputs": [1]}
    branch = {"values": [{"op": "call", "args": [0], "attrs": {"local": False, "body": permute}}], "outputs": [1]}
    flip = {"values": [{"op": "permute_dims", "args": [0], "attrs": {"axes": [1, 0]}}], "outputs": [1]}
    program = Program((x, c, Node("if", (1, 0), {"then": branch, "else": flip})), (2,))
    script, _ = saved_wrong_result(program, "tests.planted_passes:permute_as_reshape", tmp_path)
    result = run_script(script)
    assert result.returncode == 1 and result.stdout.startswith("BUG REPRODUCES (wrong-result)"), result
    result = run_script(fixed_twin(script, "permute_as_reshape", "permute_as_reshape_fixed"))
    assert result.returncode == 0 and result.stdout.startswith("fixed"), result

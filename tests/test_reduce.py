"""The reducer: it drops what the bug does not need (passes, nodes, outputs, typing, values) and
keeps the bug. ``interesting`` stands in for "same fingerprint" so that these tests run no TVM."""

from hypothesis import HealthCheck, given, settings

from passfuzz.findings.reduce import Reducer, complexity
from passfuzz.ir.graph import analyse
from passfuzz.ir.program import Node, Param, Program
from passfuzz.passes.contracts import sequence_violation
from passfuzz.passes.names import PassSpec
from strategies import relax_programs

X = Param((2, 2), "float32", -4, 4, [[0.0, 1.0], [2.0, 3.0]])
UNUSED = Param((1,), "bool", 0, 1, [True])


def reduce(program, interesting, passes=(), unchanged=()):
    return Reducer(interesting, budget_seconds=30).reduce(program, passes, unchanged)


def test_drops_unused_parameters_bypasses_and_extra_outputs():
    program = Program((UNUSED, X, Node("negative", (1,)), Node("abs", (2,)), Node("permute_dims", (3,), {"axes": None}),
                       Node("exp", (1,))), (4, 5))
    reduced, _ = reduce(program, lambda p, _: "permute_dims" in p.op_counts())
    assert reduced.op_counts() == {"permute_dims": 1}
    assert [p.shape for _, p in reduced.params] == [(2, 2)]


def test_keeps_what_the_bug_needs_and_zeroes_the_values():
    program = Program((X, Node("negative", (0,)), Node("permute_dims", (1,), {"axes": None})), (2,))
    reduced, _ = reduce(program, lambda p, _: {"negative", "permute_dims"} <= set(p.op_counts()))
    assert reduced.nodes == program.nodes
    assert reduced.values[0].value == [[0.0, 0.0], [0.0, 0.0]]


def test_values_go_to_ones_where_zeros_lose_the_bug_and_stay_in_range():
    positive = Param((3,), "int32", 2, 8, [7, 5, 3])  # 0 is out of range: its nearest value is 2
    program = Program((X, positive, Node("negative", (0,)), Node("negative", (1,))), (2, 3))
    zeros = [[0.0, 0.0], [0.0, 0.0]]
    nonzero = lambda p: all(v.value != zeros for v in p.values if isinstance(v, Param))  # noqa: E731
    reduced, _ = reduce(program, lambda p, _: len(p.nodes) == 2 and nonzero(p))
    assert reduced.values[0].value == [[0.0, 0.0], [0.0, 1.0]]  # one element is all the bug needs
    assert reduced.values[1].value == [2.0, 2.0, 2.0] and reduced.values[1].dtype == "float32"


def test_cuts_an_operand_that_cannot_be_bypassed_into_a_parameter():
    # astype changes the dtype, so skipping it is no option; cutting it leaves an int32 input
    # holding the values it computed (int32 kept: the bug here needs it).
    program = Program((X, Node("astype", (0,), {"dtype": "int32"}), Node("negative", (1,))), (2,))
    needs_int = lambda p, _: "negative" in p.op_counts() and any(v.dtype == "int32" for _, v in p.params)  # noqa: E731
    reduced, _ = reduce(program, needs_int)
    assert reduced.op_counts() == {"negative": 1}
    [(_, param)] = reduced.params
    assert param.dtype == "int32" and param.lo <= 0 <= param.hi


def test_a_pass_through_output_is_dropped():
    program = Program((X, Node("negative", (0,))), (1, 0))
    reduced, _ = reduce(program, lambda p, _: "negative" in p.op_counts())
    assert reduced.outputs == (1,)


def test_an_output_is_replaced_by_the_operand_the_bug_sits_in():
    program = Program((X, Node("permute_dims", (0,), {"axes": None}), Node("concat", (0, 1), {"axis": 0})), (2,))
    reduced, _ = reduce(program, lambda p, _: "permute_dims" in p.op_counts())
    assert reduced.op_counts() == {"permute_dims": 1}


def test_symbolic_and_unknown_rank_parameters_become_static():
    n = Param((2, 2), "float32", -4, 4, [[0.0, 1.0], [2.0, 3.0]], dims=("n", "n"))
    anything = Param((2,), "float32", -4, 4, [1.0, 1.0], unknown_rank=True)
    program = Program((n, anything, Node("negative", (0,)), Node("exp", (1,))), (2, 3), shape_params=(("n",),))
    analyse(program)
    reduced, _ = reduce(program, lambda p, _: {"negative", "exp"} <= set(p.op_counts()))
    assert not reduced.symbolic and reduced.shape_params == ()


def test_symbolic_typing_the_bug_needs_stays():
    n = Param((2, 2), "float32", -4, 4, [[0.0, 1.0], [2.0, 3.0]], dims=("n", ""))
    program = Program((n, Node("negative", (0,))), (1,))
    reduced, _ = reduce(program, lambda p, _: p.symbolic)
    assert reduced.values[0].dims == ("n", "")


def _call(body_values, result):
    return Node("call", (0,), {"local": False, "body": {"values": body_values, "outputs": [result]}})


def test_dead_nodes_inside_a_function_body_are_removed():
    body = [{"op": "abs", "args": [0], "attrs": {}}, {"op": "exp", "args": [0], "attrs": {}}]
    program = Program((X, _call(body, 2)), (1,))
    analyse(program)
    reduced, _ = reduce(program, lambda p, _: {"call", "exp"} <= set(p.node_ops()))
    assert reduced.values[1].attrs["body"] == {"values": [{"op": "exp", "args": [0], "attrs": {}}], "outputs": [1]}


def test_region_nodes_are_bypassed_and_cut_into_constants():
    # exp(astype(negative(x))): negative is bypassed, astype (a dtype change) is cut into a constant
    body = [{"op": "negative", "args": [0], "attrs": {}}, {"op": "astype", "args": [1], "attrs": {"dtype": "float16"}},
            {"op": "exp", "args": [2], "attrs": {}}]
    program = Program((X, _call(body, 3)), (1,))
    analyse(program)
    reduced, _ = reduce(program, lambda p, _: {"call", "exp"} <= set(p.node_ops()))
    assert [node["op"] for node in reduced.values[1].attrs["body"]["values"]] == ["const", "exp"]


def test_a_call_the_bug_does_not_need_is_inlined():
    body = [{"op": "negative", "args": [0], "attrs": {}}, {"op": "astype", "args": [1], "attrs": {"dtype": "int32"}}]
    program = Program((X, _call(body, 2), Node("abs", (1,))), (2,))
    analyse(program)
    reduced, _ = reduce(program, lambda p, _: {"negative", "astype"} <= set(p.node_ops()))
    assert [node.op for node in reduced.nodes] == ["negative", "astype"]


def test_if_branches_lose_what_the_bug_does_not_need():
    cond = Param((), "bool", 0, 1, True)
    branch = {"values": [{"op": "negative", "args": [0], "attrs": {}}], "outputs": [1]}
    program = Program((cond, X, Node("if", (0, 1), {"then": branch, "else": branch}), Node("exp", (2,))), (3,))
    analyse(program)
    reduced, _ = reduce(program, lambda p, _: {"if", "exp"} <= set(p.node_ops()))
    assert reduced.node_ops() == ["if", "exp"]  # both branches return their operand


# -- passes -----------------------------------------------------------------------------------

def specs(text):
    return tuple(PassSpec(name) for name in text.split(","))


def test_passes_that_change_nothing_go_first_and_in_one_run():
    passes = specs("Normalize,LegalizeOps,DeadCodeElimination,FoldConstant,Bug")
    tried = []

    def needs_legalize(program, candidate):
        tried.append([p.name for p in candidate])
        return [p.name for p in candidate][-1] == "Bug" and "LegalizeOps" in [p.name for p in candidate]

    program = Program((X, Node("negative", (0,))), (1,))
    _, reduced = reduce(program, needs_legalize, passes, unchanged=["Normalize", "DeadCodeElimination", "FoldConstant"])
    assert [p.name for p in reduced] == ["LegalizeOps", "Bug"]
    assert tried[0] == ["LegalizeOps", "Bug"]  # the three idle passes, dropped in one run


def test_the_last_pass_stays_unless_it_is_repeated():
    program = Program((X, Node("negative", (0,))), (1,))
    _, reduced = reduce(program, lambda p, candidate: True, specs("AttachGlobalSymbol,Normalize,AttachGlobalSymbol"))
    assert [p.name for p in reduced] == ["AttachGlobalSymbol"]


def test_a_prerequisite_is_never_dropped():
    passes = specs("LiftTransformParams,ToNonDataflow,RemovePurityChecking,LazyTransformParams")
    offered = []

    def anything(program, candidate):
        offered.append(candidate)
        return True

    program = Program((X, Node("negative", (0,))), (1,))
    _, reduced = reduce(program, anything, passes, unchanged=["ToNonDataflow"])
    assert reduced == passes
    assert all(not sequence_violation(candidate) for candidate in offered)
    assert sequence_violation(specs("ToNonDataflow,RemovePurityChecking,LazyTransformParams"))


# -- validity by construction ------------------------------------------------------------------

@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(relax_programs(max_nodes=6))
def test_every_candidate_and_the_result_pass_analyse(program):
    """Whatever the reducer is told, it never offers or returns a Program analyse rejects, and
    the result is never more complex than what it started from."""
    offered = []
    wanted = program.node_ops()[-1]

    def keeps_the_last_op(candidate, passes):
        analyse(candidate)  # raises ProgramError: the test fails
        offered.append(candidate)
        return wanted in candidate.node_ops() and len(offered) % 3 != 0

    reduced, _ = Reducer(keeps_the_last_op, budget_seconds=5).reduce(program)
    analyse(reduced)
    assert complexity(reduced) <= complexity(program)
    assert wanted in reduced.node_ops()

"""The graph-level reducer: it drops what the bug does not need and keeps the bug."""

from passfuzz.program import Node, Param, Program
from passfuzz.reduce import Reducer

X = Param((2, 2), "float32", -4, 4, [[0.0, 1.0], [2.0, 3.0]])
UNUSED = Param((1,), "bool", 0, 1, [True])


def test_drops_unused_parameters_bypasses_and_extra_outputs():
    program = Program((UNUSED, X, Node("negative", (1,)), Node("abs", (2,)), Node("permute_dims", (3,), {"axes": None}),
                       Node("exp", (1,))), (4, 5))
    reduced = Reducer(lambda p, _: "permute_dims" in p.op_counts(), budget_seconds=30).reduce(program)[0]
    assert reduced.op_counts() == {"permute_dims": 1}
    assert [p.shape for _, p in reduced.params] == [(2, 2)]


def test_keeps_what_the_bug_needs():
    program = Program((X, Node("negative", (0,)), Node("permute_dims", (1,), {"axes": None})), (2,))
    needs_negative = lambda p, _: {"negative", "permute_dims"} <= set(p.op_counts())  # noqa: E731
    assert Reducer(needs_negative, budget_seconds=30).reduce(program)[0] == program


def test_cuts_an_operand_that_cannot_be_bypassed_into_a_parameter():
    # astype changes the dtype, so skipping it is no option; cutting it leaves an int32 input
    # holding the values it computed.
    program = Program((X, Node("astype", (0,), {"dtype": "int32"}), Node("negative", (1,))), (2,))
    reduced = Reducer(lambda p, _: "negative" in p.op_counts(), budget_seconds=30).reduce(program)[0]
    assert reduced.op_counts() == {"negative": 1}
    [(_, param)] = reduced.params
    assert param.dtype == "int32" and param.value == [[0, 1], [2, 3]]

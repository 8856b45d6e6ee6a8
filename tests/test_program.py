"""The Program data model: exact JSON round trips and the structural helpers the reducer uses."""

import json
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from passfuzz.ir.graph import analyse
from passfuzz.ir.program import Node, Param, Program, ProgramError, numpy_dtype
from strategies import relax_programs


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(relax_programs())
def test_json_round_trip_is_exact(program):
    text = json.dumps(program.to_json())
    again = Program.from_json(json.loads(text))
    assert again == program
    for (_, a), (_, b) in zip(program.params, again.params):
        assert a.array().tobytes() == b.array().tobytes()  # bit-exact, -0.0 included
    analyse(again)


def test_negative_zero_and_float16_survive_json():
    value = np.array([-0.0, 0.1, 65504.0], dtype="float16")
    param = Param((3,), "float16", -65504.0, 65504.0, value.tolist())
    program = Program((param, Node("negative", (0,))), (1,))
    again = Program.from_json(json.loads(json.dumps(program.to_json())))
    assert again.values[0].array().tobytes() == value.tobytes()


def test_without_unused_renumbers():
    p = Param((2,), "float32", -1, 1, [0.0, 1.0])
    program = Program((p, Node("exp", (0,)), Node("negative", (0,)), Node("abs", (2,))), (3,))
    pruned = program.without_unused()
    assert [v.op for v in pruned.nodes] == ["negative", "abs"]
    assert pruned.outputs == (2,)
    assert pruned.values[2].args == (1,)


def test_from_json_names_the_problem():
    with pytest.raises(ProgramError, match="values\\[0\\].kind"):
        Program.from_json({"values": [{"kind": "tensor"}], "outputs": [0]})
    with pytest.raises(ProgramError, match="malformed"):
        Program.from_json({"values": [{"kind": "op"}], "outputs": [0]})


def test_param_order_puts_weights_last_and_sets_num_input():
    x = Param((1,), "float32", 0, 1, [0.0])
    w = Param((1,), "float32", 0, 1, [0.0], role="weight")
    program = Program((w, x, Node("add", (0, 1))), (2,))
    assert [i for i, _ in program.params] == [1, 0]
    assert program.num_input == 1
    assert Program((x, Node("abs", (0,))), (1,)).num_input is None


def test_bfloat16_survives_json_bit_for_bit():
    # -0.0, the smallest normal, an 8-significant-bit value and the largest finite bfloat16
    value = np.array([-0.0, 2.0 ** -126, 3.140625, -3.3895313892515355e38], dtype=numpy_dtype("bfloat16"))
    param = Param((4,), "bfloat16", -4e38, 4e38, value.tolist())
    program = Program((param, Node("negative", (0,))), (1,))
    again = Program.from_json(json.loads(json.dumps(program.to_json())))
    assert again.values[0].array().dtype == value.dtype
    assert again.values[0].array().tobytes() == value.tobytes()


def _printing(*nodes, outputs=(2,)):
    x = Param((2,), "float32", -1, 1, [0.5, -0.5])
    return Program((x, Node("print", (0,), {"format": "x: {}"}), Node("negative", (0,)), *nodes), outputs)


def test_a_print_nothing_reads_is_kept_and_nothing_may_read_it_nor_return_it():
    """A print is an effect (program.EFFECTS): kept though no output needs it, and its value is none."""
    program = _printing(Node("abs", (0,)))
    assert [n.op for n in program.without_unused().nodes] == ["print", "negative"]
    analyse(program)
    with pytest.raises(ProgramError, match="print's value"):
        analyse(_printing(Node("tuple", (1,)), outputs=(3,)))
    with pytest.raises(ProgramError, match="a print, whose value is none"):
        analyse(_printing(outputs=(1, 2)))
    with pytest.raises(ProgramError, match="does not take 1 values"):
        analyse(replace(program, values=(program.values[0], Node("print", (0,), {"format": "{} {}"}),
                                         *program.values[2:])))


def test_a_print_inside_a_function_body_is_refused():
    body = {"values": [{"op": "print", "args": [0], "attrs": {"format": ""}}, {"op": "negative", "args": [0], "attrs": {}}],
            "outputs": [2]}
    x = Param((2,), "float32", -1, 1, [0.5, -0.5])
    with pytest.raises(ProgramError, match="inside a function body or branch"):
        analyse(Program((x, Node("call", (0,), {"local": False, "body": body})), (1,)))


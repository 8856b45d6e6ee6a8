"""The Gradient oracle: finite differences, loss programs, the float64 twin, and the planted
gradient bug found through the command line (with its control)."""

import collections
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from passfuzz.findings import corpus
from passfuzz.ir.graph import analyse, evaluate
from passfuzz.ir.program import Node, Param, Program
from passfuzz.judge import gradient
from passfuzz.judge.trial import check
from passfuzz.passes.catalogue import fuzzable_pool
from passfuzz.passes.names import resolve, resolve_list
from passfuzz.portable.finite_differences import STEP, central_differences, gradient_mismatch
from strategies import relax_programs

from .conftest import ROOT

PLANTED = "tests.planted_gradient:"


def cubes(args):
    return float(np.sum(args[0] ** 3) + np.sum(np.sin(args[1])))


ARGS = [np.array([[0.5, -1.5], [2.0, 3.0]]), np.array([0.25, -2.0, 1.0])]
RIGHT = [3 * ARGS[0] ** 2, np.cos(ARGS[1])]


def test_central_differences_approach_the_derivative():
    fine = central_differences(cubes, ARGS, STEP)
    assert all(np.allclose(f, r, rtol=1e-7, atol=1e-9) for f, r in zip(fine, RIGHT))


def test_right_gradients_pass_and_a_wrong_element_is_named():
    assert gradient_mismatch(cubes, ARGS, cubes(ARGS), RIGHT, noise=1e-15) == ""
    wrong = [RIGHT[0].copy(), RIGHT[1]]
    wrong[0][1, 0] *= 1.001  # 0.1 % off one partial derivative of 12
    problem = gradient_mismatch(cubes, ARGS, cubes(ARGS), wrong, noise=1e-15)
    assert problem.startswith("gradient 0: 1 of 4 elements differ") and "first at [1, 0]" in problem


def test_wrong_loss_nan_gradient_and_missing_gradient_are_mismatches():
    assert gradient_mismatch(cubes, ARGS, cubes(ARGS) + 1e-3, RIGHT, noise=1e-15).startswith("loss")
    nan = [RIGHT[0], np.full(3, np.nan)]
    assert gradient_mismatch(cubes, ARGS, cubes(ARGS), nan, noise=1e-15).startswith("gradient 1")
    assert "1 gradients for 2 parameters" in gradient_mismatch(cubes, ARGS, cubes(ARGS), RIGHT[:1], noise=1e-15)


def test_rounding_noise_widens_the_tolerance():
    off = [RIGHT[0] + 1e-3, RIGHT[1]]
    assert gradient_mismatch(cubes, ARGS, cubes(ARGS), off, noise=1e-15)
    assert gradient_mismatch(cubes, ARGS, cubes(ARGS), off, noise=2e-7) == ""  # 2e-7 / STEP = 2e-3


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(relax_programs(ops=gradient.loss_ops(), loss=True, max_nodes=8))
def test_loss_programs_are_judgeable_and_their_twin_computes_the_same_loss(program):
    assert gradient.unjudgeable(program) == ""
    twin = gradient.promote(program)
    assert all(p.dtype == "float64" for _, p in twin.params)
    [loss32] = evaluate(program)
    [loss64] = evaluate(twin)
    assert loss64.dtype == np.float64  # the references keep float64: no float32 rounding in the differences
    bound = analyse(program)[program.outputs[0]].magnitude
    assert abs(float(loss32) - float(loss64)) <= 1e-4 * max(1.0, bound)


@pytest.mark.parametrize("op, attrs, loss", [("cumsum", {"axis": None, "exclusive": False}, 1.5 + 1.75),
                                             ("collapse_sum_to", {"shape": [1]}, 1.75)])
def test_the_float64_twin_keeps_fractions(op, attrs, loss):
    # The twin's references once widened float64 as a non-float, to int64: cumsum([1.5]) was 1.
    param = Param(shape=(2,), dtype="float32", lo=-4.0, hi=4.0, value=[1.5, 0.25], role="input")
    program = Program((param, Node(op, (0,), attrs), Node("sum", (1,), {"axis": None, "keepdims": False})), (2,))
    [loss32], [loss64] = evaluate(program), evaluate(gradient.promote(program))
    assert loss64.dtype == np.float64 and float(loss64) == float(loss32) == loss


def test_loss_programs_draw_take_with_integer_indices_held_constant():
    # take is linear in its data; Gradient's programs once never drew it, since a loss program's
    # constants were float32 only and take's indices could be nothing else.
    takes = []

    @settings(max_examples=80, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(relax_programs(ops=["take", "sum", "add"], loss=True, max_nodes=4))
    def look(program):
        assert gradient.unjudgeable(program) == ""
        for node in program.nodes:
            if node.op == "take":
                indices = program.values[node.args[1]]
                assert isinstance(indices, Node) and indices.op == "const" and "int" in indices.attrs["dtype"]
                takes.append(node)

    look()
    assert len(takes) >= 5, len(takes)
    assert {node.attrs.get("mode", "fast") for node in takes} > {"fast"}  # clip and wrap too


def test_loss_programs_keep_conv2d_and_avg_pool2d_inside_what_tvms_gradient_takes():
    # conv2d_grad asserts NCHW/OIHW; avg_pool2d_backward is not legalized with a dilation. Both
    # are TVM's documented limits: a loss program holding either would be a false finding.
    seen = collections.Counter()

    @settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(relax_programs(ops=["conv2d", "avg_pool2d", "sum"], loss=True, max_nodes=3))
    def look(program):
        assert gradient.unjudgeable(program) == ""
        for node in program.nodes:
            if node.op == "conv2d":
                assert (node.attrs["data_layout"], node.attrs["kernel_layout"]) == ("NCHW", "OIHW"), node.attrs
            if node.op == "avg_pool2d":
                assert set(node.attrs["dilation"]) == {1}, node.attrs
            seen[node.op] += 1

    look()
    assert seen["conv2d"] and seen["avg_pool2d"], seen
    x = Param((1, 1, 3, 3), "float32", -4.0, 4.0, np.zeros((1, 1, 3, 3)).tolist())
    nhwc = Program((x, Node("conv2d", (0, 0), {"strides": [1, 1], "padding": [0, 0, 0, 0], "dilation": [1, 1],
                                                 "groups": 1, "data_layout": "NHWC", "kernel_layout": "HWIO",
                                                 "out_layout": "NHWC", "out_dtype": None}),
                    Node("sum", (1,), {"axis": None, "keepdims": False})), (2,))
    assert gradient.unjudgeable(nhwc) == "Gradient's conv2d_grad takes NCHW data and OIHW kernels only"


def test_a_program_that_is_not_a_loss_is_not_judged():
    x = Param((2,), "float32", -4.0, 4.0, [1.0, 2.0])
    assert "0-d" in gradient.unjudgeable(Program((x, Node("exp", (0,), {})), (1,)))
    kinked = Program((x, Node("abs", (0,), {}), Node("sum", (1,), {"axis": None, "keepdims": False})), (2,))
    assert "abs bends at 0" in gradient.unjudgeable(kinked)
    stepped = Program((x, Node("floor", (0,), {}), Node("sum", (1,), {"axis": None, "keepdims": False})), (2,))
    assert "smooth" in gradient.unjudgeable(stepped)
    # log needs operands >= 0.2: [0.2, 4] is valid, but not a finite-difference step below it
    edge = Param((2,), "float32", 0.2, 4.0, [0.2, 2.0])
    logs = Program((edge, Node("log", (0,), {}), Node("sum", (1,), {"axis": None, "keepdims": False})), (2,))
    assert analyse(logs) and "finite-difference step" in gradient.unjudgeable(logs)


def test_gradient_is_named_bare_and_stays_out_of_the_random_pool():
    assert resolve("Gradient").text == "Gradient('main')"
    assert "Gradient" not in fuzzable_pool()


def test_loss_ops_have_registered_gradients_and_exclude_steps():
    ops = gradient.loss_ops()
    assert {"exp", "matmul", "sum", "log_softmax"} <= set(ops)
    assert {"abs", "relu", "maximum", "sqrt"} <= set(ops)  # drawn only clear of their kinks
    assert not {"clip", "less", "floor", "max_pool2d", "astype"} & set(ops)
    assert gradient.loss_ops(["exp", "floor"]) == ["exp"]


def _records(directory):
    return [json.loads(p.read_text()) for p in sorted(directory.glob("*.json"))]


@pytest.mark.slow
def test_planted_gradient_bug_is_found_shrunk_saved_and_reproduces(run_cli, tmp_path):
    result = run_cli("--passes", PLANTED + "doubled_exp_gradient,Gradient", "--ops", "exp,add,multiply,sum",
                     "--max-examples", "60", "--seed", "3", "-x", "--reduce-time", "20", "--corpus", str(tmp_path))
    assert result.returncode == 1, result.stderr
    [record] = _records(tmp_path)
    assert record["kind"] == "wrong-result" and record["shrunk"] and "Gradient('main')" in record["signature"]
    program = corpus.load(tmp_path / f"{record['id']}.json").program
    assert program.op_counts().get("exp") and len(program.nodes) <= 2, program.summary()
    script = subprocess.run([sys.executable, str(tmp_path / f"{record['id']}.py")], cwd=ROOT, capture_output=True,
                            text=True, timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert script.returncode == 1, script.stderr
    assert script.stdout.startswith("BUG REPRODUCES (wrong-result): main_adjoint: gradient")


@pytest.mark.slow
def test_right_gradient_yields_no_finding_in_the_same_budget(run_cli, tmp_path):
    result = run_cli("--passes", PLANTED + "right_exp_gradient,Gradient", "--ops", "exp,add,multiply,sum",
                     "--max-examples", "60", "--seed", "3", "-x", "--corpus", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "incomparable 0" in result.stdout and _records(tmp_path) == []


def test_adjoint_adapter_is_read_off_a_gradient_module():
    from tvm import relax

    from passfuzz.relax.build import build_module
    from passfuzz.run.calling import ADJOINT, choose_adapter

    x = Param((2,), "float32", -4.0, 4.0, [1.0, 2.0])
    program = Program((x, Node("exp", (0,), {}), Node("sum", (1,), {"axis": None, "keepdims": False})), (2,))
    assert choose_adapter(build_module(program), relax.transform.Gradient("main")(build_module(program)), None) \
        == ADJOINT


def test_the_float64_twin_widens_a_matmuls_out_dtype_too():
    # out_dtype="float32" kept on float64 operands made a mixed-dtype matmul, whose gradient
    # Gradient cannot build (a false pass-error of Gradient, not a bug of the float32 program).
    weights = Node("const", (), {"shape": [2, 1, 4], "dtype": "float32", "value": [[[0.5, 0.0, -1.0, 2.0]]] * 2})
    x = Param((4, 2), "float32", -4.0, 4.0, [[1.0, 0.0], [0.5, -1.0], [0.0, 2.0], [1.5, 1.0]])
    program = Program((weights, x, Node("matmul", (0, 1), {"out_dtype": "float32"}),
                       Node("sum", (2,), {"axis": None, "keepdims": False})), (3,))
    assert gradient.promote(program).values[2].attrs == {"out_dtype": "float64"}
    verdict, _ = check(program, [resolve("Gradient")], ["llvm"], timeout=120)
    assert verdict.finding is None and not verdict.incomparable, verdict


def _drawn(ops, examples=80, max_nodes=5):
    """The loss programs Hypothesis draws from ``ops``, each checked judgeable."""
    programs = []

    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(relax_programs(ops=ops, loss=True, max_nodes=max_nodes))
    def look(program):
        assert gradient.unjudgeable(program) == ""
        programs.append(program)

    look()
    return programs


def test_loss_programs_draw_negative_axes_for_take_split_and_concat():
    # TVM's take gradient once misplaced a negative axis that loss programs never drew
    # (corpus/faults/gradient-take-negative-axis-misplaced.json).
    signs = collections.defaultdict(set)
    for program in _drawn(["take", "split", "concat", "sum"], examples=120, max_nodes=4):
        for node in program.nodes:
            if node.op in ("take", "split", "concat"):
                signs[node.op].add(node.attrs["axis"] < 0)
    assert all(signs[op] == {True, False} for op in ("take", "split", "concat")), dict(signs)


def test_loss_programs_draw_kinked_ops_only_clear_of_their_kinks():
    from passfuzz.ir.catalogue import BY_NAME
    from passfuzz.ir.catalogue.base import kinked_here

    seen = collections.Counter()
    drawn = _drawn(["abs", "relu", "sqrt", "exp", "negative", "sigmoid", "add", "sum"], 100) + \
        _drawn(["maximum", "minimum", "exp", "negative", "sum"], 120, max_nodes=8)  # disjoint: exp against -exp
    for program in drawn:
        infos = analyse(program)
        for node in program.nodes:
            if BY_NAME[node.op].kinks is not None:
                assert kinked_here(BY_NAME[node.op], [infos[a] for a in node.args]) == "", program.summary()
                seen[node.op] += 1
    assert all(seen[op] for op in ("abs", "relu", "sqrt", "maximum")), seen  # minimum: the same rule


def test_loss_programs_hold_constant_what_tvms_gradient_leaves_out():
    from passfuzz.ir.program import parameter_dependent

    held = {"where": (0,), "nll_loss": (1, 2)}
    seen = collections.Counter()
    for program in _drawn(["where", "nll_loss", "full", "full_like", "zeros_like", "exp", "add", "sum"], 120):
        varying = parameter_dependent(program.values)
        for node in program.nodes:
            assert not {node.args[k] for k in held.get(node.op, ()) if k < len(node.args)} & varying
            assert node.op not in ("full", "full_like") or node.attrs["value"] is not None or \
                not set(node.args[-1:]) & varying
            seen[node.op] += 1
    assert all(seen[op] for op in ("where", "nll_loss", "full", "full_like", "zeros_like")), seen
    x = Param((2, 3), "float32", -4.0, 4.0, np.zeros((2, 3)).tolist())
    t = Node("const", (), {"shape": [2], "dtype": "int64", "value": [0, 2]})
    weights = Param((3,), "float32", 0.5, 2.0, [1.0, 1.0, 1.0])
    weighted = Program((x, t, weights, Node("nll_loss", (0, 1, 2), {"reduction": "sum", "ignore_index": -1})), (3,))
    assert "nll_loss's operand 2 is computed from a parameter" in gradient.unjudgeable(weighted)


LOSS = {"axis": None, "keepdims": False}
X = Param((3,), "float32", -4.0, 4.0, [-1.5, 0.5, 2.0])


@pytest.mark.parametrize("planted, program", [
    ("sign_blind_relu_gradient",  # relu of negative values: a zero gradient
     Program((X, Node("exp", (0,), {}), Node("negative", (1,), {}), Node("relu", (2,), {}),
              Node("add", (3, 0), {}), Node("sum", (4,), LOSS)), (5,))),
    ("swapped_where_gradient",
     Program((X, Node("const", (), {"shape": [3], "dtype": "bool", "value": [True, False, True]}),
              Node("exp", (0,), {}), Node("sin", (0,), {}), Node("where", (1, 2, 3), {}), Node("sum", (4,), LOSS)),
             (5,))),
])
def test_a_planted_gradient_of_a_newly_drawn_op_is_found_and_tvms_own_is_not(planted, program):
    assert gradient.unjudgeable(program) == ""
    verdict, _ = check(program, [resolve(PLANTED + planted), resolve("Gradient")], ["llvm"], timeout=120)
    assert verdict.finding is not None and verdict.finding.kind == "wrong-result", verdict
    assert "main_adjoint: gradient 0" in verdict.finding.message
    verdict, _ = check(program, [resolve("Gradient")], ["llvm"], timeout=120)
    assert verdict.finding is None and not verdict.incomparable, verdict


def test_loss_programs_draw_power_of_a_parameter_base_and_exponent():
    # The base was clipped into range (a clip is no smooth op, so loss programs dropped it): power
    # of a computed base or exponent, whose gradient is y x^(y-1) and x^y log x, was almost never drawn.
    from passfuzz.ir.program import parameter_dependent

    varying = collections.Counter()
    for program in _drawn(["power", "exp", "multiply", "sum"], examples=100, max_nodes=4):
        computed = parameter_dependent(program.values)
        for node in program.nodes:
            if node.op == "power":
                varying[(node.args[0] in computed, node.args[1] in computed)] += 1
    assert varying[(True, False)] and varying[(False, True)], varying


def _exp_tanh_loss(weights=(1.0, 2.0, 3.0)):
    """x -> exp -> tanh, weighted by distinct constants and summed."""
    x = Param((3,), "float32", -1.0, 1.0, [0.25, -0.5, 0.75])
    w = Node("const", (), {"shape": [3], "dtype": "float32", "value": list(weights)})
    return Program((x, Node("exp", (0,)), Node("tanh", (1,)), w, Node("multiply", (2, 3)),
                    Node("sum", (4,), {"axis": None, "keepdims": False})), (5,))


@pytest.mark.parametrize("planted, op", [("doubled_exp_gradient", "exp"), ("wrong_tanh_gradient", "tanh")])
def test_a_wrong_gradient_is_named_after_the_op_that_shows_it_alone(planted, op):
    verdict, _ = gradient.check(_exp_tanh_loss(), resolve_list(PLANTED + planted + ",Gradient"), ["llvm"], 60)
    assert verdict.finding is not None and verdict.finding.kind == "wrong-result"
    assert verdict.finding.signature.endswith(f"gradient differs at {op}"), verdict.finding.signature
    assert f"({op}) shows it alone" in verdict.finding.message


def test_two_ops_wrong_gradients_are_two_fingerprints_and_a_right_one_none():
    def found(planted):
        return gradient.check(_exp_tanh_loss(), resolve_list(PLANTED + planted + ",Gradient"), ["llvm"], 60)[0].finding

    exp, tanh = found("doubled_exp_gradient"), found("wrong_tanh_gradient")
    assert exp.fingerprint != tanh.fingerprint
    assert found("right_exp_gradient") is None


def test_a_gradient_wrong_only_under_an_uneven_upstream_is_still_named():
    # flip(dy) is dy where dy is uniform: the isolated loss weights exp's result by distinct
    # constants, or it would show nothing and the finding stay unnamed.
    x = Param((3,), "float32", -1.0, 1.0, [0.25, -0.5, 0.75])
    w = Node("const", (), {"shape": [3], "dtype": "float32", "value": [1.0, 2.0, 3.0]})
    program = Program((x, Node("exp", (0,)), w, Node("multiply", (1, 2)),
                       Node("sum", (3,), {"axis": None, "keepdims": False})), (4,))
    verdict, _ = gradient.check(program, resolve_list(PLANTED + "flipped_exp_gradient,Gradient"), ["llvm"], 60)
    assert verdict.finding is not None and verdict.finding.signature.endswith("gradient differs at exp")
    uniform = Program(program.values[:2] + (Node("sum", (1,), {"axis": None, "keepdims": False}),), (2,))
    assert gradient.check(uniform, resolve_list(PLANTED + "flipped_exp_gradient,Gradient"), ["llvm"], 60)[0].finding is None


def test_an_isolated_node_reads_the_values_its_operands_had_and_keeps_its_constants():
    x = Param((2, 3), "float32", -1.0, 1.0, [[0.1, 0.2, 0.3], [0.4, -0.5, 0.6]])
    indices = Node("const", (), {"shape": [2], "dtype": "int64", "value": [0, 2]})
    program = Program((x, Node("exp", (0,)), indices, Node("take", (1, 2), {"axis": 1, "mode": "fast"}),
                       Node("multiply", (3, 3)), Node("sum", (4,), {"axis": None, "keepdims": False})), (5,))
    alone = gradient.isolated(program, 3)
    assert gradient.unjudgeable(alone) == ""
    param, constant, take = alone.values[:3]
    np.testing.assert_allclose(param.array(), np.exp(x.array()), rtol=1e-6)
    assert param.lo <= float(param.array().min()) and float(param.array().max()) <= param.hi
    assert constant == indices and take == Node("take", (0, 1), {"axis": 1, "mode": "fast"})
    squared = gradient.isolated(program, 4)  # an operand read twice is one parameter
    assert [type(v).__name__ for v in squared.values[:2]] == ["Param", "Node"] and squared.values[1].args == (0, 0)
    assert gradient.isolated(program, 2) is None  # a constant is nothing to differentiate


def test_loss_programs_compute_no_float_but_float32():
    # A matmul with out_dtype float16 (most of those drawn) gave a value no smooth op casts back
    # to float32: it never reached the loss, and Gradient never differentiated it.
    matmuls = 0
    for program in _drawn(["matmul", "zeros_like", "exp", "sum"], examples=60):
        infos = analyse(program)
        assert all(info.dtype == "float32" for info in infos if getattr(info, "dtype", "int")[:5] == "float")
        matmuls += program.op_counts().get("matmul", 0)
    assert matmuls


def test_a_fault_of_the_sum_every_isolated_node_ends_in_names_no_op():
    # each node's loss alone ends in sum(node * weights): with sum's gradient wrong, every node
    # shows the finding, and naming the first (exp) would split one fault by the ops before it.
    verdict, _ = gradient.check(_exp_tanh_loss(), resolve_list(PLANTED + "doubled_sum_gradient,Gradient"),
                                ["llvm"], 60)
    assert verdict.finding is not None and verdict.finding.signature.endswith("| gradient differs")
    assert gradient.wrapper(_exp_tanh_loss(), 1).nodes[-1].op == "sum"

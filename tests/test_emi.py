"""The EMI oracle (passfuzz.ir.emi, passfuzz.judge.emi, strategies.emi_programs): a pass whose
rewrite of live code hinges on an untaken If branch is an emi-mismatch, which the differential
oracle's tolerance hides; its twin, which rewrites whatever the module holds, is not; the fuzz loop
finds the planted pass by mutating untaken branches and shrinks it; correct passes give none."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

from passfuzz.campaign.engine import FuzzConfig, Fuzzer
from passfuzz.findings import corpus
from passfuzz.ir.emi import dead_branches, pruned
from passfuzz.ir.graph import evaluate
from passfuzz.ir.program import Node, Param, Program
from passfuzz.judge.trial import check
from passfuzz.passes.names import resolve_list
from passfuzz.relax.importer import import_module
from strategies import emi_programs, relax_programs

from .test_reproducer import (
    assert_fixed,
    assert_reproduces,
    fixed_twin,
    lines,
    run_scripts,
)

PLANTED = "tests.planted_emi:"
X = Param((2, 3), "float32", -4, 4, [[1.0, 2.0, 3.0], [0.7, -1.3, 4.0]])
FALSE = Param((), "bool", 0, 1, False)
SEVEN = Node("const", (), {"shape": [], "dtype": "float32", "value": 7.0})


def branch(op: str) -> dict:
    return {"values": [{"op": op, "args": [0], "attrs": {}}], "outputs": [1]}


def divided_then_branched(untaken: str) -> Program:
    """x / 7, then an If on a false input: ``untaken`` in the branch it does not take, abs in the other."""
    return Program((X, FALSE, SEVEN, Node("divide", (0, 2)),
                    Node("if", (1, 3), {"then": branch(untaken), "else": branch("abs")})), (4,))


EXP_UNTAKEN = divided_then_branched("exp")


def test_pruning_replaces_only_the_branch_the_arguments_do_not_take():
    assert dead_branches(EXP_UNTAKEN) == [(4, "then")]
    twin = pruned(EXP_UNTAKEN)
    assert twin.values[4].attrs == {"then": {"values": [], "outputs": [0]}, "else": branch("abs")}
    assert [a.tolist() for a in evaluate(twin)] == [a.tolist() for a in evaluate(EXP_UNTAKEN)]
    assert pruned(twin) is None  # nothing left to prune: no second comparison
    taken = Program(tuple(Param((), "bool", 0, 1, True) if v is FALSE else v for v in EXP_UNTAKEN.values),
                    EXP_UNTAKEN.outputs)
    assert pruned(taken).values[4].attrs["else"] == {"values": [], "outputs": [0]}


@settings(max_examples=25, deadline=None)
@given(emi_programs(st.just(EXP_UNTAKEN), ops=["exp", "negative", "abs", "multiply", "sqrt"]))
def test_a_drawn_variant_changes_only_the_untaken_branch(variant):
    assert [a.tolist() for a in evaluate(variant)] == [a.tolist() for a in evaluate(EXP_UNTAKEN)]
    assert variant.values[:4] == EXP_UNTAKEN.values[:4]
    assert variant.values[4].attrs["else"] == branch("abs")
    assert (pruned(variant) or variant) == pruned(EXP_UNTAKEN)  # None: the mutation left it minimal


def test_a_pass_whose_rewrite_hinges_on_an_untaken_branch_is_an_emi_mismatch_and_its_twin_is_not(tmp_path):
    passes = resolve_list(PLANTED + "reciprocal_if_exp")
    hidden, _ = check(EXP_UNTAKEN, passes, ["llvm"], 60)
    assert hidden.finding is None, hidden  # x / 7 against x * (1 / 7): within the differential tolerance
    verdict, optimized = check(EXP_UNTAKEN, passes, ["llvm"], 60, emi=True)
    finding = verdict.finding
    assert finding is not None and finding.signature == f"emi-mismatch | {PLANTED}reciprocal_if_exp | values differ"
    assert "differ in their bits" in finding.message and finding.blamed
    twin, _ = check(EXP_UNTAKEN, resolve_list(PLANTED + "reciprocal_always"), ["llvm"], 60, emi=True)
    assert twin.finding is None, twin
    untaken_abs, _ = check(divided_then_branched("negative"), passes, ["llvm"], 60, emi=True)
    assert untaken_abs.finding is None, untaken_abs  # no exp anywhere: the pass leaves both alike
    fuzzer = Fuzzer(FuzzConfig(passes=passes, targets=["llvm"], corpus_dir=tmp_path, timeout=60, emi=True))
    script = fuzzer.save(finding, EXP_UNTAKEN, list(finding.passes), shrunk=True, optimized=optimized) \
        .with_suffix(".py")
    assert corpus.problem(script.with_suffix(".json")) == ""  # the schema takes the new kind
    assert "class Pruned:" in script.read_text() and lines(script) < 90, script.read_text()
    bug, fixed = run_scripts(script, fixed_twin(script, "reciprocal_if_exp", "reciprocal_always"))
    assert_reproduces(bug, "emi-mismatch")
    assert_fixed(fixed)


@pytest.mark.slow
def test_the_fuzz_loop_finds_the_planted_pass_by_mutating_an_untaken_branch_and_shrinks_it(tmp_path):
    # The seed's untaken branch holds no exp: only a mutation of that branch shows the bug.
    seed = divided_then_branched("negative")
    config = FuzzConfig(passes=resolve_list(PLANTED + "reciprocal_if_exp"), targets=["llvm"], corpus_dir=tmp_path,
                        max_examples=60, seed=3, round_size=10, seeds=(seed,), fresh_too=False,
                        ops=["exp", "negative", "abs", "divide", "if"], shrink_seconds=5, reduce_seconds=30, emi=True)
    stats = Fuzzer(config).run()
    assert len(stats.findings) == 1, stats
    [record] = [corpus.load(path).record for path in tmp_path.glob("emi-mismatch-*.json")]
    assert record["shrunk"] and record["passes"] == [PLANTED + "reciprocal_if_exp"]
    program = Program.from_json(record["program"])
    [(node, untaken)] = dead_branches(program)
    assert "exp" in [v["op"] for v in program.values[node].attrs[untaken]["values"]]
    assert len(program.node_ops()) <= 5, program  # divide, its constant, the If and a branch op each side


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(emi_programs(relax_programs()).filter(lambda program: pruned(program) is not None))
def test_correct_passes_give_no_emi_finding_on_programs_the_oracle_compares(program):
    verdict, _ = check(program, resolve_list("FoldConstant,DeadCodeElimination"), ["llvm"], 60, emi=True)
    assert verdict.finding is None or verdict.finding.kind != "emi-mismatch", verdict.finding


@I.ir_module(s_tir=True)
class KernelCondition:
    @T.prim_func(private=True, s_tir=True)
    def positive(A: T.Buffer((), "float32"), B: T.Buffer((), "bool")):
        with T.sblock("compute"):
            B[()] = A[()] > T.float32(0)

    @R.function
    def main(x: R.Tensor((), "float32"), y: R.Tensor((2,), "float32")):
        cls = KernelCondition
        c = R.call_tir(cls.positive, (x,), out_ty=R.Tensor((), "bool"))
        if c:
            z = R.exp(y)
        else:
            z = R.negative(y)
        return z


def test_an_if_whose_condition_an_opaque_kernel_computes_has_no_branch_known_dead():
    # numpy computes no value for the kernel's bool: pruning either branch could prune the one taken
    program = import_module(KernelCondition)
    assert "call_tir" in program.node_ops() and dead_branches(program) == []

"""Observations (passfuzz.judge.observations) and the PassContext configuration axis: each planted
defect is caught, its correct twin is not. The planted passes are in tests/planted_observations.py."""

import json
from dataclasses import replace
from pathlib import Path

import pytest
import tvm
from hypothesis import HealthCheck, given, settings

from passfuzz.campaign.engine import FuzzConfig, Fuzzer
from passfuzz.cli.replay import replay_one
from passfuzz.findings import corpus
from passfuzz.findings.reduce import fewest_keys
from passfuzz.findings.reproducer import render_script
from passfuzz.ir.program import Node, Param, Program
from passfuzz.judge.boundaries import BoundaryChecks
from passfuzz.judge.trial import check
from passfuzz.passes import catalogue
from passfuzz.passes.names import resolve_list
from passfuzz.passes.pass_configs import BY_KEY, as_config
from passfuzz.passes.variants import promised_rewrites
from passfuzz.relax.build import build_module
from passfuzz.run.builds import parse_build
from strategies import pass_configs

from . import planted_observations
from .test_reproducer import run_scripts

PLANTED = "tests.planted_observations:"
X = Param((2, 3), "float32", -4, 4, [[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]])
EXP_OF_CONSTANT_PLUS_X = Program((X, Node("const", (), {"shape": [2, 3], "dtype": "float32",
                                                       "value": [[1.0, 0.5, -2.0], [3.0, 1.0, 0.0]]}),
                                  Node("exp", (1,)), Node("add", (0, 2))), (3,))
EXP_OF_NEGATIVE = Program((X, Node("negative", (0,)), Node("exp", (1,))), (2,))


def checked(program, passes: str, build=None):
    extra = {} if build is None else {"build": build}
    return check(program, resolve_list(passes), ["llvm"], 60, boundaries=BoundaryChecks(), **extra)[0]


def test_a_fold_constant_that_folds_nothing_misses_a_promised_rewrite_and_the_real_one_does_not(monkeypatch):
    assert checked(EXP_OF_CONSTANT_PLUS_X, "FoldConstant").observations == ()
    monkeypatch.setattr(tvm.relax.transform, "FoldConstant", planted_observations.leaves_everything)
    verdict = checked(EXP_OF_CONSTANT_PLUS_X, "FoldConstant")
    assert verdict.finding is None  # an observation is never a finding
    assert [o.signature for o in verdict.observations] == ["missed-rewrite | FoldConstant | op_on_constants"]


def test_a_pass_named_with_arguments_promises_nothing(monkeypatch):
    monkeypatch.setattr(tvm.relax.transform, "EliminateCommonSubexpr",
                        lambda *args, **kwargs: planted_observations.leaves_everything())
    twice = Program((X, Node("exp", (0,)), Node("exp", (0,)), Node("add", (1, 2))), (3,))
    assert [o.signature for o in checked(twice, "EliminateCommonSubexpr").observations] == \
        ["missed-rewrite | EliminateCommonSubexpr | duplicate_call"]
    assert checked(twice, "EliminateCommonSubexpr(call_only=True)").observations == ()


W = Param((3, 3), "float32", -1, 1, [[0.5] * 3] * 3, role="weight")


def test_matmuls_whose_shared_left_operand_is_also_a_right_operand_promise_no_combination():
    # combine_parallel_matmul.cc:86-92 matches one pattern node per value: matmul(w, w) beside
    # matmul(w, x) makes the whole group unmatched (a detector once promised it)
    x = Param((3, 3), "float32", -1, 1, [[0.25] * 3] * 3)
    both_sides = Program((x, W, Node("matmul", (1, 1)), Node("matmul", (1, 0))), (2, 3))
    apart = Program((x, W, Node("negative", (0,)), Node("matmul", (1, 2)), Node("matmul", (1, 0))), (3, 4))
    assert promised_rewrites(both_sides, "CombineParallelMatmul") == []
    assert "two_branches" in {v.name for v in promised_rewrites(apart, "CombineParallelMatmul")}


def test_parallel_matmuls_an_if_keeps_in_two_dataflow_blocks_are_no_missed_rewrite():
    """An If ends main's dataflow block; CombineParallelMatmul groups matmuls of one block. Seen in a
    campaign with --emi, whose inserted If split a group the detector promised."""
    x = Param((3, 3), "float32", -1, 1, [[0.25] * 3] * 3)
    flag = Param((), "bool", 0, 1, False)
    apart = Program((x, W, Node("negative", (0,)), Node("matmul", (1, 2)), Node("matmul", (1, 0))), (3, 4))
    split = Program((x, W, Node("negative", (0,)), Node("matmul", (1, 2)), flag,
                     Node("if", (4, 2), {"then": {"values": [], "outputs": [0]}, "else": {"values": [], "outputs": [0]}}),
                     Node("matmul", (1, 0))), (3, 5, 6))
    assert [o.kind for o in checked(apart, "CombineParallelMatmul").observations] == []  # combined: no miss
    assert checked(split, "CombineParallelMatmul").observations == ()


def test_a_reshape_of_a_symbolic_input_to_another_shape_promises_no_removal():
    symbolic = Param((2, 1, 4), "int8", -4, 4, [[[1, 2, 3, 4]], [[0, 1, 2, 3]]], dims=("", "", "n"))
    other_shape = Program((symbolic, Node("reshape", (0,), {"shape": [4, 2]})), (1,))
    chain = Program((symbolic, Node("reshape", (0,), {"shape": [4, 2]}), Node("reshape", (1,), {"shape": [8]})), (2,))
    assert promised_rewrites(other_shape, "RemoveRedundantReshape") == []
    assert "symbolic_operand" in {v.name for v in promised_rewrites(chain, "RemoveRedundantReshape")}


def test_no_form_of_adjust_matmul_order_promises_a_rewrite_its_cost_model_may_decline():
    x = Param((3, 3), "float32", -1, 1, [[0.25] * 3] * 3)
    chain = Program((x, W, Node("matmul", (0, 1)), Node("matmul", (2, 1))), (3,))
    assert promised_rewrites(chain, "AdjustMatmulOrder") == []


def test_a_pass_that_changes_its_own_output_again_is_not_idempotent_and_its_twin_is():
    verdict = checked(EXP_OF_NEGATIVE, PLANTED + "relabelled")
    assert verdict.finding is None
    assert [o.kind for o in verdict.observations] == ["not-idempotent"]
    assert verdict.observations[0].signature == \
        f"not-idempotent | {PLANTED}relabelled | changes again at functions.attrs.__dict__"
    assert checked(EXP_OF_NEGATIVE, PLANTED + "labelled_once").observations == ()


# For each pass the catalogue knows changes its own output again (PassInfo.not_idempotent says why),
# the reduced program on which a fuzzing run saw it do so.
CHANGED_AGAIN_BY_DESIGN = {
    "BundleModelParams": Program((Param((1, 4), "float32", -1, 1, [[0.0] * 4], role="weight"),), (0,)),
    "CanonicalizeBindings": Program((Node("const", (), {"shape": [1, 2], "dtype": "int64", "value": [[0, 0]]}),),
                                    (0,)),
    "ConvertToDataflow": Program((Param((3, 3), "float32", -16, 16, [[0.0] * 3] * 3), Param((), "bool", 0, 1, False),
                                  Node("if", (1, 0), {"then": {"values": [{"op": "reshape_runtime", "args": [0, 0],
                                                                           "attrs": {}}], "outputs": [1]},
                                                      "else": {"values": [], "outputs": [0]}})), (2,)),
    "EliminateCommonSubexpr": Program((Param((3, 1, 2), "float32", 0, 4, [[[0.0, 0.0]]] * 3),
                                       *[Node("permute_dims", (0,), {"axes": None})] * 3,
                                       Node("concat", (1, 2, 3, 1), {"axis": -3})), (4,)),
}


@pytest.mark.parametrize("name", sorted(CHANGED_AGAIN_BY_DESIGN))
def test_a_pass_the_catalogue_knows_changes_its_own_output_again_is_not_observed_and_others_still_are(
        name, monkeypatch):
    program = CHANGED_AGAIN_BY_DESIGN[name]
    assert catalogue.CATALOGUE[name].not_idempotent
    assert checked(program, name).observations == ()
    monkeypatch.setitem(catalogue.CATALOGUE, name, replace(catalogue.CATALOGUE[name], not_idempotent=""))
    assert [o.kind for o in checked(program, name).observations] == ["not-idempotent"]  # what the entry hides
    monkeypatch.undo()
    assert [o.kind for o in checked(EXP_OF_NEGATIVE, PLANTED + "relabelled").observations] == ["not-idempotent"]


def test_a_pass_that_fails_on_its_own_output_is_a_pass_error_of_the_repeated_sequence():
    verdict = checked(EXP_OF_NEGATIVE, PLANTED + "refuses_labelled")
    assert verdict.finding is not None and verdict.finding.kind == "pass-error"
    assert [p.text for p in verdict.finding.passes] == [PLANTED + "refuses_labelled"] * 2
    # the repeated sequence shows it as any failing pass: replay and reduction run it so
    again = check(EXP_OF_NEGATIVE, verdict.finding.passes, ["llvm"], 60, boundaries=BoundaryChecks())[0]
    assert again.finding is not None and again.finding.fingerprint == verdict.finding.fingerprint


def test_bind_params_of_the_programs_weights_is_not_repeated_on_its_own_output():
    # its second run would name weights the first bound: outside its contract, not a pass-error
    weight = Param((2, 3), "float32", -4, 4, [[0.5, 1.0, 2.0], [0.0, -1.0, 3.0]], role="weight")
    program = Program((X, weight, Node("add", (0, 1))), (2,))
    verdict = checked(program, "BindParams")
    assert verdict.finding is None and verdict.observations == (), verdict


def test_a_pass_that_crashes_on_its_own_output_has_a_script_that_crashes_at_the_second_run(tmp_path):
    verdict, optimized = check(EXP_OF_NEGATIVE, resolve_list(PLANTED + "aborts_on_labelled"), ["llvm"], 60,
                               boundaries=BoundaryChecks())
    assert verdict.finding is not None and verdict.finding.kind == "crash"
    assert [p.text for p in verdict.finding.passes] == [PLANTED + "aborts_on_labelled"] * 2
    script = tmp_path / "crash.py"
    script.write_text(render_script(EXP_OF_NEGATIVE, verdict.finding.passes, verdict.finding,
                                    build_module(EXP_OF_NEGATIVE).script(), ["llvm"], 60, optimized))
    (result,) = run_scripts(str(script))
    assert result.returncode == 1, result.stdout + result.stderr  # the child aborts at the second run, not the first


def test_observations_are_saved_apart_once_reduced_and_never_make_a_finding(tmp_path):
    config = FuzzConfig(passes=resolve_list(PLANTED + "relabelled"), targets=["llvm"], corpus_dir=tmp_path,
                        max_examples=3, seed=1, max_nodes=4, focus=())
    stats = Fuzzer(config).run()
    assert stats.findings == {} and stats.not_idempotent == stats.examples == 3
    (saved,) = stats.missed.values()  # one fingerprint: saved once
    assert saved.startswith(str(tmp_path / corpus.MISSED))
    record = json.loads(Path(saved).read_text())
    assert record["kind"] == "not-idempotent" and len(record["program"]["values"]) <= 2  # reduced
    (result,) = run_scripts(saved[:-5] + ".py")
    assert result.returncode == 1 and result.stdout.startswith("NOT IDEMPOTENT (not-idempotent)"), result
    assert replay_one(Path(saved), 60)[0] == "REPRODUCES"  # replayed as the run observed it, not as a finding
    record["passes"] = [PLANTED + "labelled_once"]  # the idempotent twin
    Path(saved).write_text(json.dumps(record))
    assert replay_one(Path(saved), 60) == ("FIXED", "no longer observed")


# -- the PassContext configuration axis -------------------------------------------------------------

DRAWN = (("relax.FuseOps.max_depth", 2), ("tirx.disable_vectorize", True), ("tirx.disable_cse_tir", True),
         ("tirx.UnrollLoop", (("auto_max_step", 16), ("explicit_unroll", True), ("unroll_local_access", False),
                              ("auto_max_extent", 0))))
CONFIGURED = parse_build("config=random")


def test_a_config_that_changes_nothing_observable_gives_no_finding():
    assert checked(EXP_OF_NEGATIVE, "FoldConstant", CONFIGURED.with_pass_config(DRAWN)).finding is None


def test_a_config_key_that_breaks_the_build_is_a_finding_reduced_to_that_key(monkeypatch):
    real = tvm.tirx.transform.VectorizeLoop

    def planted(enable=True):  # the TIR pipeline's VectorizeLoop, broken when tirx.disable_vectorize is set
        if not enable:
            raise RuntimeError("planted: VectorizeLoop(enable=False)")
        return real(enable)

    monkeypatch.setattr(tvm.tirx.transform, "VectorizeLoop", planted)
    finding = checked(EXP_OF_NEGATIVE, "FoldConstant", CONFIGURED.with_pass_config(DRAWN)).finding
    assert finding is not None and finding.kind == "compile-error" and finding.pass_config == DRAWN
    assert finding.passes == ()  # the build alone shows it: the passes are not to blame

    def shows(fewer):
        found = checked(EXP_OF_NEGATIVE, "FoldConstant", CONFIGURED.with_pass_config(fewer)).finding
        return found is not None and found.fingerprint == finding.fingerprint

    assert fewest_keys(DRAWN, shows) == [("tirx.disable_vectorize", True)]


@settings(max_examples=30, database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(pass_configs())
def test_every_drawn_configuration_is_one_tvm_accepts(items):
    assert all(key in BY_KEY for key, _ in items)
    with tvm.transform.PassContext(config=as_config(items)) as context:
        assert set(context.config.keys()) == {key for key, _ in items}


def test_config_random_is_a_build_of_its_own_and_parses_back():
    assert CONFIGURED.text == "config=random"
    assert parse_build(CONFIGURED.text) == CONFIGURED
    with pytest.raises(ValueError, match="config=random"):
        parse_build("config=fixed")


def test_a_program_checked_as_it_is_counts_and_saves_its_observation_outside_hypothesis(tmp_path):
    # check-tests checks TVM's modules outside a Hypothesis test, where hypothesis.event raises:
    # a not-idempotent pass there stopped the whole run
    config = FuzzConfig(passes=(), targets=["llvm"], corpus_dir=tmp_path, focus=())
    fuzzer = Fuzzer(config)
    verdict, _, _, saved = fuzzer.check_as_it_is(EXP_OF_NEGATIVE, resolve_list(PLANTED + "relabelled"))
    assert verdict.finding is None and saved is None
    assert fuzzer.stats.not_idempotent == 1
    (path,) = fuzzer.stats.missed.values()
    assert json.loads(Path(path).read_text())["kind"] == "not-idempotent"

"""--argument-draws: other arguments in the Program's ranges, run on the same compiled pair."""

import numpy as np
import pytest
from hypothesis import strategies as st

from passfuzz.campaign.engine import FuzzConfig, Fuzzer
from passfuzz.findings import corpus
from passfuzz.ir.argument_draws import argument_variants
from passfuzz.ir.program import Node, Param, Program
from passfuzz.judge.trial import check
from passfuzz.passes.names import resolve

# round(x) on values that are never an exact half, in a range whose ends are halves: the planted
# round_half_up (floor(x + 0.5)) agrees with round on the Program's own arguments, not on 0.5.
ROUND = Program((Param((4,), "float32", -0.5, 0.5, [0.1, -0.2, 0.3, 0.0]), Node("round", (0,))), (1,))
ROUND_HALF_UP = [resolve("tests.planted_passes:round_half_up")]
# an input and a weight, both integers in [-3, 5]
MIXED = Program((Param((2, 3), "int32", -3, 5, [[1, 2, 3], [4, 5, -3]]),
                 Param((2, 3), "int32", -3, 5, [[0, 0, 1], [1, 2, 2]], role="weight"), Node("add", (0, 1))), (2,))


def test_draws_stay_in_range_keep_weights_and_are_the_same_each_time():
    variants = argument_variants(MIXED, 6)
    assert len(variants) == 6 and variants == argument_variants(MIXED, 6)
    for variant in variants:
        drawn = variant.values[0].array()
        assert drawn.dtype == np.int32 and drawn.shape == (2, 3) and -3 <= drawn.min() and drawn.max() <= 5
        assert variant.values[1] == MIXED.values[1] and variant.values[2:] == MIXED.values[2:]
    edges, ties = variants[0].values[0].array(), variants[1].values[0].array()
    assert {-3, 0, 5} == set(edges.ravel().tolist())  # each end and zero, nothing else
    assert len(set(ties.ravel().tolist())) == 1
    assert len({tuple(v.values[0].array().ravel()) for v in variants}) > 3  # not one draw repeated


def test_an_edges_draw_holds_each_end_once_the_tensor_has_room_for_them():
    flags = Program((Param((2,), "bool", 0, 1, [True, True]), Node("logical_not", (0,))), (1,))
    assert sorted(argument_variants(flags, 1)[0].values[0].value) == [False, True]


def test_a_program_with_no_input_to_redraw_gets_no_draws():
    weights_only = Program((Param((2,), "float32", -1, 1, [0.5, 0.25], role="weight"), Node("exp", (0,))), (1,))
    assert argument_variants(weights_only, 4) == []


def test_weights_are_redrawn_in_range_only_when_asked():
    """`passfuzz reduce` on an imported module builds both sides from each draw, weights too."""
    variants = argument_variants(MIXED, 4, weights=True)
    assert any(variant.values[1] != MIXED.values[1] for variant in variants)
    for variant in variants:
        weight = variant.values[1].array()
        assert variant.values[1].role == "weight" and -3 <= weight.min() and weight.max() <= 5


def test_a_wrong_rewrite_only_a_draw_shows_is_found_with_that_draws_arguments():
    verdict, _ = check(ROUND, ROUND_HALF_UP, ["llvm"], 60)
    assert verdict.finding is None  # the Program's own arguments never show it

    verdict, _ = check(ROUND, ROUND_HALF_UP, ["llvm"], 60, argument_draws=4)
    assert verdict.finding is not None and verdict.finding.kind == "wrong-result", verdict
    assert 0.5 in verdict.program.values[0].value  # the draw that showed it is the example's now
    again, _ = check(verdict.program, ROUND_HALF_UP, ["llvm"], 60)  # and shows it alone, as a record replays
    assert again.finding is not None and again.finding.fingerprint == verdict.finding.fingerprint


def test_a_correct_pass_that_changes_every_module_shows_nothing_on_any_draw():
    verdict, optimized = check(ROUND, [resolve("LegalizeOps")], ["llvm"], 60, argument_draws=4)
    assert verdict.finding is None and not verdict.generator_defect, verdict
    assert optimized.changed and len(optimized.draws) == 3  # compared on three draws besides its own


@pytest.mark.parametrize("pass_name,found", [("permute_as_reshape", True), ("permute_as_reshape_fixed", False)])
def test_the_fuzz_loop_with_draws_still_finds_a_planted_pass_and_not_its_fixed_twin(tmp_path, pass_name, found):
    config = FuzzConfig(passes=[resolve(f"tests.planted_passes:{pass_name}")], targets=["llvm"],
                        corpus_dir=tmp_path, max_examples=6, seed=2, round_size=3, focus=("permute_dims",),
                        shrink_seconds=2, reduce_seconds=3, argument_draws=4)
    stats = Fuzzer(config).run()
    assert bool(stats.findings) == found, stats.findings


def test_the_fuzz_loop_saves_the_draw_that_showed_a_finding(tmp_path, monkeypatch):
    monkeypatch.setattr(Fuzzer, "programs", lambda self: st.just(ROUND))
    config = FuzzConfig(passes=ROUND_HALF_UP, targets=["llvm"], corpus_dir=tmp_path, max_examples=1,
                        shrink_seconds=1, reduce_seconds=3, argument_draws=4)
    stats = Fuzzer(config).run()
    assert len(stats.findings) == 1, stats
    [saved] = [corpus.load(path).record for path in tmp_path.glob("*.json")]
    assert saved["kind"] == "wrong-result" and 0.5 in Program.from_json(saved["program"]).values[0].value

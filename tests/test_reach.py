"""Reach grounded in evidence: the probe decides what a pass matches (its source only orders the
probe), a run re-plans when a named pass stays untested, and a run that tested too little says so
(--min-fire-rate)."""

import pytest

from passfuzz.campaign.engine import FuzzConfig, Fuzzer
from passfuzz.campaign.events import Replanned
from passfuzz.passes.names import resolve_list
from passfuzz.reach import replan
from passfuzz.reach.focus import Probing, resolve, source_hints
from passfuzz.reach.probe import cached, probe_pass

MISLEADING = "tests.planted_passes:sigmoid_as_exp"


def test_the_source_of_the_misleading_pass_names_only_what_it_builds():
    looked_for, built = source_hints(resolve_list(MISLEADING)[0])
    assert looked_for == [] and built == ["exp"]  # what a reader of the source alone would focus on
    assert resolve("auto", resolve_list(MISLEADING)).ops == ("exp",)  # no probe: the source decides


def test_the_probe_finds_what_the_pass_changes_not_what_its_source_names(tmp_path):
    plan = resolve("auto", resolve_list(MISLEADING), probing=Probing(budget=30, cache=tmp_path))
    assert plan.ops == ("sigmoid",), plan
    assert "probe: changes sigmoid" in plan.reason, plan.reason
    [stored] = tmp_path.glob("*.json")  # cached: the next run reads it back
    assert cached(tmp_path, stored.stem).ops == ("sigmoid",)


def test_the_probe_finds_two_ops_meeting_where_neither_alone_fires():
    # neg_into_subtract rewrites subtract(a, negative(b)): a one-op program never shows it.
    spec = resolve_list("benchmarks.planted_focus.passes:neg_into_subtract")[0]
    seen = probe_pass(spec, ["add", "negative", "subtract", "exp", "multiply"], budget=20,
                      hints=["negative", "subtract"])
    assert seen.stage == 2 and {"negative", "subtract"} <= set(seen.ops), seen


def test_a_partner_firing_only_through_a_helper_it_brings_is_not_credited_and_the_feeds_seen_are_kept():
    # even_of_negation rewrites abs/square/tanh(negative(x)) with op names composed at run time;
    # acosh and sqrt bring an abs before them (their domain), so their pairs with negative fire too.
    spec = resolve_list("benchmarks.planted_reach.passes:even_of_negation")[0]
    seen = probe_pass(spec, ["negative", "abs", "tanh", "acosh", "sqrt", "exp"], budget=20, hints=["negative"])
    assert seen.stage == 2 and {"negative", "abs", "tanh"} <= set(seen.ops), seen
    assert not {"acosh", "sqrt", "exp"} & set(seen.ops), seen
    assert ("negative", "tanh", 0) in seen.feeds and ("negative", "abs", 0) in seen.feeds, seen.feeds


def test_a_pass_left_untested_is_planned_for_again_from_evidence(tmp_path):
    spec = resolve_list(MISLEADING)[0]
    config = FuzzConfig(passes=[spec], targets=["llvm"], corpus_dir=tmp_path, focus=("exp",), named=(spec.text,),
                        probe_time=10, replan=True)
    events = []
    fuzzer = Fuzzer(config, notify=events.append)
    fuzzer.stats.pass_runs[spec.text] = replan.AFTER
    fuzzer.stats.pass_fired[spec.text] = 0
    fuzzer._replan_if_untested()
    assert "sigmoid" in fuzzer.config.focus and "exp" in fuzzer.config.focus, fuzzer.config.focus
    [event] = events
    assert isinstance(event, Replanned) and "0.0% of 100 examples" in event.reason, event
    assert fuzzer.progress.focus == fuzzer.config.focus and fuzzer.progress.replanned == [spec.text]
    fuzzer._replan_if_untested()  # once per pass
    assert len(events) == 1


def test_a_pass_that_fires_often_enough_is_left_alone():
    assert replan.untested({"P": 100, "Q": 99}, {"P": 1, "Q": 0}, ["P", "Q"], []) == []
    assert replan.untested({"P": 100}, {"P": 0}, ["P"], []) == [("P", 0.0, 100)]
    assert replan.untested({"P": 100}, {"P": 0}, ["P"], ["P"]) == []


@pytest.mark.slow
def test_a_run_that_tested_nothing_says_so_and_exits_5_with_min_fire_rate(run_cli, tmp_path):
    common = ("--passes", "tests.planted_passes:leave_unchanged", "--max-examples", "3", "--corpus", str(tmp_path),
              "--seed", "1")
    strict = run_cli(*common, "--min-fire-rate", "1%", timeout=600)
    assert strict.returncode == 5, strict.stderr
    assert "warning: tests.planted_passes:leave_unchanged changed the module in 0.0% of 3 examples, below " \
           "--min-fire-rate 1%" in strict.stdout, strict.stdout
    lenient = run_cli(*common, timeout=600)
    assert lenient.returncode == 0, lenient.stderr
    assert "warning: tests.planted_passes:leave_unchanged changed the module in 0.0% of 3 examples:" in lenient.stdout
    bad = run_cli(*common, "--min-fire-rate", "150%", timeout=600)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--min-fire-rate must be between" in bad.stderr


# -- the behaviour corpus --------------------------------------------------------------------------

def _program(nodes: int):
    from passfuzz.ir.program import Node, Param, Program

    values = [Param((2,), "float32", -1.0, 1.0, [0.0, 0.5])] + [Node("negative", (i,)) for i in range(nodes)]
    return Program(tuple(values), (len(values) - 1,))


def test_a_behaviour_is_what_a_named_pass_removed_and_added_and_how_the_example_ended():
    from passfuzz.reach.behaviours import observed

    changes = [("P", ("relax.add",), ("relax.multiply",)), ("Prerequisite", ("relax.exp",), ())]
    assert observed(changes, ["P"], "ok") == [("P", "P: -relax.add +relax.multiply -> ok")]
    assert observed(changes, ["P"], "wrong-result") != observed(changes, ["P"], "ok")


def test_rewrites_differing_only_in_an_attribute_are_two_behaviours():
    """LegalizeOps rewrites sum over the first axis and sum over the last: two behaviours. Sum over
    axis 1 and over axis -1 of a matrix, with other arguments, is one (attributes are bucketed, so
    the behaviours stay few)."""
    from passfuzz.ir.program import Node, Param, Program
    from passfuzz.passes.names import PassSpec
    from passfuzz.reach.behaviours import observed
    from passfuzz.run.execute import run_side

    def behaviour(axis: int, values: list) -> list:
        program = Program((Param((2, 3), "float32", -1.0, 1.0, values),
                           Node("sum", (0,), {"axis": [axis], "keepdims": False})), (1,))
        outcome = run_side(program, [PassSpec("LegalizeOps")], ["llvm"], timeout=120)
        assert outcome.status == "ok", outcome
        return observed(outcome.changes, ["LegalizeOps"], "ok")

    values, others = [[0.0, 0.5, 1.0], [-1.0, 0.25, 0.0]], [[1.0, 1.0, -0.5], [0.0, 0.0, 0.75]]
    first, last = behaviour(0, values), behaviour(1, values)
    assert first != last, first
    assert "relax.sum[axis=first,keepdims=false]" in first[0][1] and "relax.sum[axis=last" in last[0][1], (first, last)
    assert behaviour(-1, others) == last


def test_the_store_keeps_the_smallest_program_of_each_behaviour_across_stores(tmp_path):
    from passfuzz.reach.behaviours import BehaviourStore

    store = BehaviourStore(tmp_path)
    assert store.offer("P: -a +b -> ok", _program(3), "P") is True
    assert store.offer("P: -a +b -> ok", _program(4), "P") is False  # larger: the kept one stays
    assert store.offer("P: -a +b -> ok", _program(1), "P") is False  # smaller: kept, but not a new behaviour
    assert store.offer("Q: -a + -> ok", _program(2), "Q") is True
    other = BehaviourStore(tmp_path)  # another worker, or the next run
    assert {k: len(p.values) for k, p in other.load(["P"]).items()} == {"P: -a +b -> ok": 2}
    assert other.offer("P: -a +b -> ok", _program(1), "P") is False  # known from disk
    assert not list((tmp_path / ".reach" / "behaviours").glob(".*.tmp"))


@pytest.mark.slow
def test_a_second_run_starts_from_the_behaviours_the_first_kept(run_cli, tmp_path):
    import json

    common = ("--passes", "tests.planted_passes:permute_as_reshape_fixed", "--max-examples", "15", "--corpus",
              str(tmp_path), "--seed", "3", "--probe-time", "0")
    first = run_cli(*common, timeout=900)
    assert first.returncode == 0, first.stderr
    kept = list((tmp_path / ".reach" / "behaviours").glob("*.json"))
    assert kept, first.stderr
    assert f"behaviours of the named passes first seen: {len(kept)}," in first.stdout, first.stdout
    second = run_cli(*common, timeout=900)
    assert second.returncode == 0, second.stderr
    assert f"passfuzz: behaviours: {len(kept)} kept in " in second.stderr, second.stderr
    runs_ = sorted((tmp_path / ".runs").iterdir())
    assert len(json.loads((runs_[-1] / "started.json").read_text())["behaviours"]) == len(kept)  # what --resume uses
    assert json.loads((runs_[0] / "started.json").read_text())["behaviours"] == []


def test_a_behaviour_kept_by_another_catalogue_is_skipped(tmp_path):
    import json

    from passfuzz.reach.behaviours import BehaviourStore

    store = BehaviourStore(tmp_path)
    store.offer("P: -a +b -> ok", _program(1), "P")
    [path] = (tmp_path / ".reach" / "behaviours").glob("*.json")
    doc = json.loads(path.read_text())
    doc["program"]["values"][1]["op"] = "an_op_no_catalogue_has"  # what an upgrade can leave behind
    path.write_text(json.dumps(doc))
    assert BehaviourStore(tmp_path).load(["P"]) == {}


@pytest.mark.parametrize("module_name, name", [
    (module_name, name) for module_name in ("benchmarks.planted_reach.passes", "benchmarks.planted_reach_heldout.passes")
    for name in __import__(module_name, fromlist=["PLANTED"]).PLANTED])
def test_each_planted_reach_pass_is_a_real_defect_that_leaves_other_modules_alone(module_name, name):
    """What the reach benchmark measures is worth measuring: each planted pass changes its
    pattern's module, the compiled result then differs, and a module without the pattern is left
    as it was (benchmarks/planted_reach/check.py)."""
    from benchmarks.planted_reach.check import check

    line = check(module_name, name)
    assert "NO" not in line.split(), line

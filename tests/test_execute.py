"""Each way an optimized side can fail is classified as its finding kind (in-process, no CLI)."""

import os
import signal
import time

import pytest

from passfuzz.ir.program import Node, Param, Program
from passfuzz.judge.trial import check
from passfuzz.passes.names import resolve
from passfuzz.run.builds import parse_build
from passfuzz.run.execute import run_side

PROGRAM = Program((Param((2, 3), "float32", -4, 4, [[1.0, 2.0, 3.0], [0.0, -1.0, 2.0]]),
                   Node("negative", (0,)), Node("exp", (1,))), (2,))


@pytest.mark.parametrize("planted, kind, stage", [
    ("raise_always", "pass-error", "pass:tests.planted_passes:raise_always"),
    ("drop_bindings", "ill-formed", "well-formed:tests.planted_passes:drop_bindings"),
    ("segfault_on_negative", "crash", "pass:tests.planted_passes:segfault_on_negative"),
    ("spin_forever", "hang", "pass:tests.planted_passes:spin_forever"),
    ("permute_as_reshape_fixed", None, None),
])
def test_failure_kinds(planted, kind, stage):
    verdict, _ = check(PROGRAM, [resolve(f"tests.planted_passes:{planted}")], ["llvm"], timeout=10)
    assert not verdict.generator_defect
    if kind is None:
        assert verdict.finding is None
    else:
        assert (verdict.finding.kind, verdict.finding.stage) == (kind, stage), verdict.finding


def test_builtin_passes_on_a_valid_program_find_nothing():
    verdict, optimized = check(PROGRAM, [resolve("FoldConstant"), resolve("LegalizeOps")], ["llvm"], timeout=60)
    assert verdict.finding is None and optimized.changed


def test_wrong_result_is_pinned_to_the_first_bad_pass():
    program = Program((Param((2, 3), "float32", -4, 4, [[1.0, 2.0, 3.0], [0.0, -1.0, 2.0]]),
                       Node("permute_dims", (0,), {"axes": None})), (1,))
    passes = [resolve("FoldConstant"), resolve("tests.planted_passes:permute_as_reshape"),
              resolve("DeadCodeElimination")]
    verdict, _ = check(program, passes, ["llvm"], timeout=60)
    assert verdict.finding.kind == "wrong-result"
    assert [p.text for p in verdict.finding.passes] == ["FoldConstant", "tests.planted_passes:permute_as_reshape"]


def test_the_passes_that_changed_the_module_are_named():
    program = Program((Param((2, 3), "float32", -4, 4, [[1.0, 2.0, 3.0], [0.0, -1.0, 2.0]]),
                       Node("permute_dims", (0,), {"axes": None})), (1,))
    passes = [resolve("Normalize"), resolve("tests.planted_passes:permute_as_reshape_fixed"),
              resolve("tests.planted_passes:permute_as_reshape")]
    _, optimized = check(program, passes, ["llvm"], timeout=60)
    assert optimized.fired == ("tests.planted_passes:permute_as_reshape",)


@pytest.fixture
def compiles(tmp_path, monkeypatch):
    """How many modules the sides compile: each call of execute.load, made in a forked child,
    appends a line to a file the test reads back."""
    from passfuzz.run import execute

    execute._warm_up("llvm")  # the parent's own compile, once per process, is not a side's
    log, load = tmp_path / "compiles", execute.load

    def counting_load(*args, **kwargs):
        with open(log, "a") as out:
            out.write("compiled\n")
        return load(*args, **kwargs)

    monkeypatch.setattr(execute, "load", counting_load)
    return lambda: len(log.read_text().splitlines()) if log.exists() else 0


def test_an_unchanged_module_is_not_compiled_again(compiles):
    passes = [resolve("tests.planted_passes:leave_unchanged"), resolve("FoldConstant")]
    verdict, optimized = check(PROGRAM, passes, ["llvm"], timeout=60)
    assert verdict.finding is None and not verdict.generator_defect
    assert compiles() == 1  # the original side only
    assert optimized.ok and optimized.reused and optimized.changed is False
    assert optimized.fired == ()  # the passes ran and changed nothing: counted as run, not as fired
    assert [a.shape for a in optimized.outputs["llvm"]] == [(2, 3)]


def test_a_changed_module_is_compiled_and_run(compiles):
    verdict, optimized = check(PROGRAM, [resolve("LegalizeOps")], ["llvm"], timeout=60)
    assert verdict.finding is None
    assert compiles() == 2
    assert optimized.changed and not optimized.reused


def test_an_unchanged_module_under_another_build_is_compiled_again(compiles):
    verdict, optimized = check(PROGRAM, [resolve("tests.planted_passes:leave_unchanged")], ["llvm"], timeout=60,
                               build=parse_build("opt-level=0"))
    assert verdict.finding is None
    assert compiles() == 2  # the same module, compiled another way: that is what the build tests
    assert optimized.changed is False and not optimized.reused


@pytest.mark.parametrize("planted, kind", [
    ("raise_always", "pass-error"), ("drop_bindings", "ill-formed"), ("segfault_on_negative", "crash"),
])
def test_a_failing_pass_after_one_that_changes_nothing_is_still_found(compiles, planted, kind):
    passes = [resolve("tests.planted_passes:leave_unchanged"), resolve(f"tests.planted_passes:{planted}")]
    verdict, optimized = check(PROGRAM, passes, ["llvm"], timeout=10)
    assert verdict.finding.kind == kind
    assert not optimized.reused and compiles() == 1  # the optimized side failed before compiling


class ModulesSeen:
    """An observer of the optimized side's child: each module a pass returns, as (pass, changed)."""

    def __init__(self):
        self.seen = []

    def before(self, mod):
        self.seen.append(("before", None))

    def after(self, ran, spec, mod, changed):
        self.seen.append((spec.text, changed))

    def result(self):
        return self.seen


class CrashesAfterThePasses(ModulesSeen):
    def after(self, ran, spec, mod, changed):
        os.kill(os.getpid(), signal.SIGSEGV)


class Slow(ModulesSeen):
    def before(self, mod):
        time.sleep(1.5)
        super().before(mod)

    def after(self, ran, spec, mod, changed):
        time.sleep(1.5)
        super().after(ran, spec, mod, changed)


def test_an_observer_sees_each_module_a_pass_returns_in_the_optimized_sides_child():
    side = run_side(PROGRAM, [resolve("tests.planted_passes:leave_unchanged"), resolve("LegalizeOps")], ["llvm"], 60,
                    observer=ModulesSeen())
    assert side.ok and side.outputs["llvm"]
    assert side.observed == [("before", None), ("tests.planted_passes:leave_unchanged", False), ("LegalizeOps", True)]


def test_an_observer_that_crashes_its_child_costs_the_side_nothing_it_runs_again_without_it():
    alone = run_side(PROGRAM, [resolve("LegalizeOps")], ["llvm"], 60)
    observed = run_side(PROGRAM, [resolve("LegalizeOps")], ["llvm"], 60, observer=CrashesAfterThePasses())
    assert observed.ok and observed.observed is None
    assert [a.tolist() for a in observed.outputs["llvm"]] == [a.tolist() for a in alone.outputs["llvm"]]


def test_an_observers_time_is_added_to_the_sides_limit():
    # 4.5 s of observing, each step under the limit, in all over it: the side's own work still has its 4 s
    side = run_side(PROGRAM, [resolve("FoldConstant"), resolve("LegalizeOps")], ["llvm"], 4, observer=Slow())
    assert side.ok and side.observed == [("before", None), ("FoldConstant", False), ("LegalizeOps", True)]


def test_the_boundary_checks_of_a_fresh_example_need_no_child_of_their_own(monkeypatch):
    from passfuzz.judge.boundaries import BoundaryChecks
    from passfuzz.run import isolate

    forks, run_forked = [], isolate.run_forked

    def counted(fn, timeout):
        forks.append(fn)
        return run_forked(fn, timeout)

    monkeypatch.setattr(isolate, "run_forked", counted)
    verdict, optimized = check(PROGRAM, [resolve("LegalizeOps")], ["llvm"], timeout=60, boundaries=BoundaryChecks())
    assert verdict.finding is None and optimized.observed is not None
    assert len(forks) == 2  # the original side and the optimized side, which ran the checks
    forks.clear()  # a shrink candidate's checks wait until its outputs matched, in a child of their own
    verdict, optimized = check(PROGRAM, [resolve("LegalizeOps")], ["llvm"], timeout=60, boundaries=BoundaryChecks(),
                               shrinking=True)
    assert verdict.finding is None and optimized.observed is None and len(forks) == 3


INTEGER = Program((Param((2, 3), "int32", -4, 4, [[1, 2, 3], [0, -1, 2]]),
                   Node("permute_dims", (0,), {"axes": None}), Node("negative", (1,))), (2,))


def test_an_exact_program_the_passes_change_compiles_once_when_the_optimized_side_matches_numpy(compiles):
    verdict, optimized = check(INTEGER, [resolve("LegalizeOps")], ["llvm"], timeout=60, exact_first=True)
    assert verdict.finding is None and not verdict.generator_defect
    assert optimized.changed and compiles() == 1  # the optimized side only
    verdict, optimized = check(INTEGER, [resolve("LegalizeOps")], ["llvm"], timeout=60)
    assert verdict.finding is None and compiles() == 1 + 2  # without the shortcut: both sides


def test_a_program_with_a_rounded_output_compiles_both_sides_even_with_the_shortcut(compiles):
    verdict, optimized = check(PROGRAM, [resolve("LegalizeOps")], ["llvm"], timeout=60, exact_first=True)
    assert verdict.finding is None and optimized.changed and compiles() == 2  # exp rounds: not exact


def test_a_wrong_rewrite_of_an_exact_program_is_found_and_pinned_as_without_the_shortcut(compiles):
    passes = [resolve("FoldConstant"), resolve("tests.planted_passes:permute_as_reshape")]
    shortcut, _ = check(INTEGER, passes, ["llvm"], timeout=60, exact_first=True)
    assert compiles() >= 2  # the optimized side differed from numpy: the original was compiled to judge it
    full, _ = check(INTEGER, passes, ["llvm"], timeout=60)
    assert shortcut.finding.kind == full.finding.kind == "wrong-result"
    assert shortcut.finding.fingerprint == full.finding.fingerprint
    assert [p.text for p in shortcut.finding.passes] == [p.text for p in full.finding.passes]


def test_a_shrink_candidate_compiles_its_original_even_when_exact(compiles):
    verdict, optimized = check(INTEGER, [resolve("LegalizeOps")], ["llvm"], timeout=60, exact_first=True,
                               shrinking=True)
    assert verdict.finding is None and optimized.changed and compiles() == 2

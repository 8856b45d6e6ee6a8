"""Each way an optimized side can fail is classified as its finding kind (in-process, no CLI)."""

import pytest

from passfuzz.trial import check
from passfuzz.passes import resolve
from passfuzz.program import Node, Param, Program

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

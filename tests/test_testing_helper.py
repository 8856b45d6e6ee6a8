"""passfuzz.testing, the helper for pytest users, through its public API: a planted wrong rewrite
fails with the module as TVMScript and the differing values while its fixed twin passes; a pass
that raises fails; a calling convention change is compared through its adapter, not reported; a
Program prints as TVMScript in Hypothesis' falsifying-example output."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.vendor.pretty import pretty

from passfuzz.ir.program import Node, Param, Program
from passfuzz.testing import PassesChangedOutputs, assert_same_outputs, compare, tvmscript

PLANTED = "tests.planted_passes:"
# permute_dims of a 2x2 tensor: permute_as_reshape rewrites it into a reshape (wrong values),
# permute_as_reshape_fixed only where the element order is kept (here: never)
TRANSPOSE = Program((Param((2, 2), "float32", -4, 4, [[1.0, 2.0], [3.0, 4.0]]),
                     Node("permute_dims", (0,), {"axes": [1, 0]})), (1,))


def test_a_planted_wrong_rewrite_fails_with_the_module_and_the_differing_values():
    with pytest.raises(PassesChangedOutputs) as failure:
        assert_same_outputs(TRANSPOSE, [PLANTED + "permute_as_reshape"], timeout=30)
    text = str(failure.value)
    assert text.startswith(f"{PLANTED}permute_as_reshape changed the outputs: wrong-result"), text
    assert "@I.ir_module" in text and "R.permute_dims(x0, axes=[1, 0])" in text
    assert "#   0: [[1. 2.]  [3. 4.]]" in text  # the argument main is called with
    assert "numpy reference: [[1. 3.]\n" in text and "after the passes: [[1. 2.]\n" in text


def test_the_fixed_rewrite_passes():
    comparison = assert_same_outputs(TRANSPOSE, [PLANTED + "permute_as_reshape_fixed"], timeout=30)
    assert comparison.verdict.finding is None and not comparison.incomparable


def test_a_pass_that_raises_fails_naming_the_error():
    with pytest.raises(PassesChangedOutputs, match=r"raise_always failed on the module: pass-error"):
        assert_same_outputs(TRANSPOSE, [PLANTED + "raise_always"], timeout=30)


def test_a_changed_calling_convention_is_compared_through_its_adapter():
    # LiftTransformParams moves the weight into main_transform_params: comparing the new main with
    # the old one's arguments would be a false alarm; the adapter calls main_transform_params first
    program = Program((Param((2, 2), "float32", -4, 4, [[1.0, 2.0], [3.0, 4.0]]),
                       Param((2, 2), "float32", -4, 4, [[0.5, -1.0], [2.0, 0.0]], role="weight"),
                       Node("permute_dims", (1,), {"axes": [1, 0]}), Node("add", (0, 2))), (3,))
    comparison = compare(program, ["LiftTransformParams"], timeout=60)
    assert comparison.verdict.finding is None and comparison.optimized.changed, comparison


def test_a_program_prints_as_tvmscript_in_the_falsifying_example():
    assert pretty(TRANSPOSE) == tvmscript(TRANSPOSE)

    @settings(database=None, max_examples=1)
    @given(st.just(TRANSPOSE))
    def fails(program):
        assert program.nodes == ()

    with pytest.raises(AssertionError) as failure:
        fails()
    notes = "\n".join(getattr(failure.value, "__notes__", []))
    assert "R.permute_dims(x0, axes=[1, 0])" in notes and "Node(op=" not in notes, notes


def test_a_program_whose_module_cannot_be_built_prints_as_its_dataclass():
    broken = Program((Param((2, 2), "float32", -4, 4, [[1.0, 2.0], [3.0, 4.0]]),
                      Node("no_such_op", (0,))), (1,))
    assert pretty(broken) == repr(broken)

"""Calling conventions: LiftTransformParams must be compared through its adapter (apache/tvm#17207)."""

from dataclasses import replace

import numpy as np
import pytest
import tvm
from tvm import relax

from passfuzz.ir.program import Node, Param, Program
from passfuzz.judge.oracle import Verdict
from passfuzz.judge.trial import check
from passfuzz.passes.catalogue import with_prerequisites
from passfuzz.passes.names import resolve, resolve_list
from passfuzz.relax.build import build_module
from passfuzz.run.calling import choose_adapter

X = Param((2, 3), "float32", -4, 4, [[1.0, 2.0, 3.0], [0.0, -1.0, 2.0]])
W = Param((4, 3), "float32", -4, 4, [[1.0, 0.0, 2.0], [0.5, 1.0, -1.0], [3.0, 2.0, 1.0], [0.0, 0.0, 1.0]],
          role="weight")
# main(x, w) = x @ permute_dims(w): the permute depends only on the weight, so it is lifted.
LIFTABLE = Program((X, W, Node("permute_dims", (1,), {"axes": None}), Node("matmul", (0, 2))), (3,))


def test_lift_transform_params_changes_main_and_the_naive_call_is_wrong():
    lifted = relax.transform.LiftTransformParams()(build_module(LIFTABLE))
    assert "main_transform_params" in {gv.name_hint for gv in lifted.functions}
    vm = relax.VirtualMachine(tvm.compile(lifted, target="llvm"), tvm.cpu())
    args = [tvm.runtime.tensor(a) for a in LIFTABLE.arguments()]
    with pytest.raises(Exception):  # the old weights do not fit the new main: comparing would be a false alarm
        vm["main"](*args).numpy()
    transformed = vm["main_transform_params"](args[1:])
    expected = LIFTABLE.arguments()[0] @ LIFTABLE.arguments()[1].T
    np.testing.assert_allclose(vm["main"](args[0], *transformed).numpy(), expected, rtol=1e-5)


def test_lift_transform_params_through_the_adapter_is_not_a_finding():
    verdict, optimized = check(LIFTABLE, [resolve("LiftTransformParams")], ["llvm"], timeout=120)
    assert optimized.changed
    assert verdict.finding is None and not verdict.incomparable and not verdict.generator_defect


def test_a_lifted_tuple_of_a_weight_is_one_output_of_the_transform_not_the_bundle_of_weights():
    # main(x, w) = (x + w, (w,)): lifting moves `(w,)` into main_transform_params, and main takes
    # (x, w, lv1: R.Tuple(...)), one transform output per parameter; lv1 is no BundleModelParams tuple.
    w = Param((2, 3), "float32", -4, 4, [[1.0, 0.0, 2.0], [0.5, 1.0, -1.0]], role="weight")
    program = Program((X, w, Node("add", (0, 1)), Node("tuple", (1,))), (2, 3))
    verdict, optimized = check(program, [resolve("LiftTransformParams")], ["llvm"], timeout=120)
    assert verdict == Verdict(), verdict  # no finding, no defect, comparable
    assert optimized.adapter.name == "main_transform_params"


def test_unknown_signature_change_is_incomparable_not_compared():
    original = build_module(LIFTABLE)
    other_input = Param((3, 2), "float32", -4, 4, [[0.0] * 2] * 3)
    other = build_module(Program((other_input, Node("abs", (0,))), (1,)))
    assert choose_adapter(original, other, LIFTABLE.num_input) is None
    bound = build_module(Program((X, Node("abs", (0,))), (1,)))  # the weight bound away: main(x) only
    assert choose_adapter(original, bound, LIFTABLE.num_input).name == "main(inputs, )"
    assert choose_adapter(original, original, LIFTABLE.num_input).name == "plain"


@pytest.mark.parametrize("passes, adapter", [
    ("LiftTransformParams", "main_transform_params"),
    ("LiftTransformParams(shared_transform=True)", "transform_params"),
    ("BundleModelParams", "main(inputs, tuple)"),
    ("LazyGetInput", "main(inputs, getter)"),
    ("LazySetOutput", "main(inputs, setter, tensor)"),
    ("LiftTransformParams,BundleModelParams", "main_transform_params (bundled); main(inputs, tuple)"),
    ("BundleModelParams,BundleModelParams", "main(inputs, tuple) (bundled)"),
])
def test_each_calling_convention_is_compared_through_its_adapter(passes, adapter):
    verdict, optimized = check(LIFTABLE, with_prerequisites(resolve_list(passes)), ["llvm"], timeout=120)
    assert optimized is not None and optimized.changed, verdict
    assert verdict.finding is None and not verdict.incomparable and not verdict.generator_defect, verdict
    assert optimized.adapter.name == adapter


# main(x, (w, b)) = x @ permute_dims(w) + b, its weights one tuple parameter (packed_params, as
# TVM's nn frontend and BundleModelParams write them): bundled once more, that tuple is the one
# field of a tuple, which is no BundleModelParams wrap of a flat weight list.
PACKED = Program((X, replace(W, pack=(0, 0)), Param((4,), "float32", -4, 4, [0.5, -1.0, 2.0, 0.0], role="weight",
                                                    pack=(0, 1)),
                  Node("permute_dims", (1,), {"axes": None}), Node("matmul", (0, 3)), Node("add", (4, 2))), (5,))


@pytest.mark.parametrize("passes, adapter", [
    ("LiftTransformParams", "main_transform_params"),
    ("BundleModelParams", "main(inputs, tuple)"),
    ("LiftTransformParams,BundleModelParams", "main_transform_params (bundled); main(inputs, tuple)"),
    ("BundleModelParams,BundleModelParams", "main(inputs, tuple) (bundled)"),
])
def test_weights_in_one_tuple_parameter_are_compared_through_the_adapter(passes, adapter):
    assert PACKED.num_input == 1 and len(PACKED.signature()) == 2
    verdict, optimized = check(PACKED, with_prerequisites(resolve_list(passes)), ["llvm"], timeout=120)
    assert optimized is not None and optimized.changed, verdict
    assert verdict == Verdict(), verdict
    assert optimized.adapter.name == adapter


def test_lazy_transform_params_convention_is_adapted():
    passes = resolve_list("LiftTransformParams,ToNonDataflow,RemovePurityChecking,LazyTransformParams")
    verdict, optimized = check(LIFTABLE, passes, ["llvm"], timeout=120)
    assert verdict.finding is None and not verdict.incomparable, verdict
    assert optimized.adapter.name == "lazy main_transform_params"


@pytest.mark.parametrize("passes", ["LazyGetInput,LiftTransformParams", "LiftTransformParams,LazyGetInput"])
def test_lifting_composed_with_lazy_get_input_is_incomparable_not_a_false_alarm(passes):
    verdict, optimized = check(LIFTABLE, resolve_list(passes), ["llvm"], timeout=120)
    assert verdict.finding is None and verdict.incomparable, verdict


def test_lazy_get_input_without_num_input_takes_every_parameter_as_a_weight():
    program = Program((X, Node("abs", (0,))), (1,))  # no weights: no num_input attribute
    verdict, optimized = check(program, resolve_list("LazyGetInput"), ["llvm"], timeout=120)
    assert verdict.finding is None and not verdict.incomparable, verdict
    assert optimized.adapter.name == "main(inputs, getter)" and optimized.adapter.inputs == 0


def test_lazy_weight_transform_hands_bfloat16_weights_to_tvm():
    # get_item returns the weight to TVM: a numpy bfloat16 array cannot cross by itself, a tensor can.
    x = Param((2,), "bfloat16", -4, 4, [1.0, 2.0])
    w = Param((1, 2), "bfloat16", -4, 4, [[1.5, -2.0]], role="weight")
    program = Program((x, w, Node("negative", (1,)), Node("add", (0, 2))), (3,))  # the weight is transformed
    passes = resolve_list("LiftTransformParams,ToNonDataflow,RemovePurityChecking,LazyTransformParams")
    verdict, optimized = check(program, passes, ["llvm"], timeout=120)
    assert verdict == Verdict(), verdict  # no finding, no defect, comparable
    assert optimized.adapter.lazy_transform

"""A pass fuzzed in the pipeline position its users give it: MergeCompositeFunctions right after
FuseOpsByPattern with TensorRT's registered patterns, as ``partition_for_tensorrt`` runs them."""

import numpy as np
import pytest

from passfuzz.campaign.plan import RunOptions, plan
from passfuzz.ir.program import Node, Param, Program
from passfuzz.judge.oracle import Verdict, judge
from passfuzz.judge.trial import check
from passfuzz.passes.catalogue import info, with_prerequisites
from passfuzz.passes.names import PassSpecError, resolve, resolve_list
from passfuzz.relax.build import build_module
from passfuzz.run.execute import Outcome

from .test_reproducer import assert_fixed, assert_reproduces, fixed_twin, run_scripts, saved

TENSORRT = "FuseOpsByPattern(tensorrt, bind_constants=True, annotate_codegen=False)"
PLANTED = "tests.planted_partition:"

_X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], "float32")
# x + y, relu, exp, times x: four ops TensorRT's patterns match, merged into one tensorrt function.
PARTITIONED = Program((Param((2, 3), "float32", -2, 2, _X.tolist()), Param((2, 3), "float32", -2, 2, (-_X).tolist()),
                       Node("add", (0, 1)), Node("relu", (2,)), Node("exp", (3,)), Node("multiply", (4, 0))), (5,))


def test_merge_composite_functions_runs_after_tensorrts_patterns_and_the_run_says_so_first(tmp_path):
    notes = []
    config = plan(RunOptions(passes="MergeCompositeFunctions", max_examples=1, corpus=tmp_path / "corpus",
                             probe_time=0), notes.append)
    assert [p.text for p in config.passes] == [TENSORRT, "MergeCompositeFunctions"]
    assert notes[0] == ("MergeCompositeFunctions runs as TVM's partition_for_tensorrt runs it: after "
                        'relax.transform.FuseOpsByPattern(get_patterns_with_prefix("tensorrt"), bind_constants=True, '
                        "annotate_codegen=False)")
    assert not any("not fuzzable" in line or "outside the pass contracts" in line for line in notes), notes


def test_a_merge_after_another_backends_patterns_keeps_that_backend():
    passes = with_prerequisites(resolve_list("FuseOpsByPattern(nnapi, bind_constants=False),MergeCompositeFunctions"))
    assert [p.text for p in passes] == ["FuseOpsByPattern(nnapi, bind_constants=False)", "MergeCompositeFunctions"]


def test_fuse_ops_by_pattern_takes_a_backends_name_for_the_patterns_tvm_registers_for_it():
    spec = resolve(TENSORRT)
    assert spec.backend == "tensorrt" and not info(spec).skip
    assert spec.python_expr() == ('relax.transform.FuseOpsByPattern(get_patterns_with_prefix("tensorrt"), '
                                  "bind_constants=True, annotate_codegen=False)")
    assert "import tvm.relax.backend.contrib.tensorrt" in spec.tvm_imports[1]
    partitioned = spec.instantiate()(build_module(PARTITIONED))  # the registry's patterns, applied
    assert {str(f.attrs["Composite"]) for f in partitioned.functions.values() if f.attrs and "Composite" in f.attrs} \
        == {"tensorrt.add", "tensorrt.nn.relu", "tensorrt.exp", "tensorrt.multiply"}
    assert info(resolve("FuseOpsByPattern(coreml)")).skip == ""
    with pytest.raises(PassSpecError, match="no backend 'tensorrtx' registers patterns; name one of tensorrt"):
        resolve("FuseOpsByPattern(tensorrtx)")


def test_a_merge_that_drops_a_composite_call_is_a_wrong_result_blamed_on_it():
    passes = resolve_list(f"{TENSORRT},{PLANTED}merge_dropping_a_composite")
    verdict, optimized = check(PARTITIONED, passes, ["llvm"], timeout=120)
    assert verdict.finding is not None and verdict.finding.kind == "wrong-result", verdict
    assert [p.text for p in verdict.finding.passes] == [p.text for p in passes]  # not FuseOpsByPattern alone
    assert optimized.external == ("tensorrt",)


def test_tvms_own_merge_after_tensorrts_patterns_is_compiled_run_and_matches():
    for merge in (f"{PLANTED}merge_keeping_composites", "MergeCompositeFunctions"):
        verdict, optimized = check(PARTITIONED, resolve_list(f"{TENSORRT},{merge}"), ["llvm"], timeout=120)
        assert verdict == Verdict(), (merge, verdict)
        # the tensorrt function was compiled on llvm as plain Relax and its outputs compared
        assert optimized.ok and not optimized.reused and optimized.external == ("tensorrt",), optimized


def test_a_failed_llvm_compile_of_functions_for_an_external_codegen_is_not_judged():
    original = Outcome("ok", "done", outputs={"llvm": [np.zeros((2, 3), "float32")]})
    failed = Outcome("error", "compile:llvm", "InternalError: Check failed: cannot lower", external=("tensorrt",))
    passes = resolve_list(f"{TENSORRT},MergeCompositeFunctions")
    verdict = judge(PARTITIONED, passes, original, failed)
    assert verdict.finding is None and "functions for the tensorrt codegen on llvm" in verdict.incomparable
    # the control: the same failure of a module with no such function is a finding
    plain = Outcome("error", "compile:llvm", "InternalError: Check failed: cannot lower")
    assert judge(PARTITIONED, passes, original, plain).finding.kind == "compile-error"
    # and a failure of the pass itself stays one, whatever the module holds
    in_pass = Outcome("error", "pass:MergeCompositeFunctions", "InternalError: x", external=("tensorrt",))
    assert judge(PARTITIONED, passes, original, in_pass).finding.kind == "pass-error"


def test_the_reproducer_shows_the_partition_calls_and_exits_1_until_the_merge_is_fixed(tmp_path):
    script, _ = saved(PARTITIONED, f"{TENSORRT},{PLANTED}merge_dropping_a_composite", tmp_path, "wrong-result")
    text = script.read_text()
    assert "from tvm.relax.backend.pattern_registry import get_patterns_with_prefix" in text
    assert "import tvm.relax.backend.contrib.tensorrt" in text
    assert ('mod = relax.transform.FuseOpsByPattern(get_patterns_with_prefix("tensorrt"), bind_constants=True, '
            "annotate_codegen=False)(Module.clone())") in text
    twin = fixed_twin(script, "merge_dropping_a_composite", "merge_keeping_composites")
    bug, fixed = run_scripts(script, twin)
    assert_reproduces(bug, "wrong-result")
    assert_fixed(fixed)

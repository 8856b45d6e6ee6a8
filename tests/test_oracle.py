"""The oracle's comparisons and its classification of failures."""

import numpy as np

from passfuzz.ir.catalogue import ValueInfo
from passfuzz.ir.graph import analyse, rounding_dtypes
from passfuzz.ir.program import Node, Param, Program
from passfuzz.judge.finding import normalize_error
from passfuzz.judge.oracle import Verdict, compare_arrays, judge, reference_verdict
from passfuzz.passes.names import PassSpec
from passfuzz.run.execute import Outcome

INFO = ValueInfo((3,), "float32", -4, 4, False)
PROGRAM = Program((Param((3,), "float32", -4, 4, [0.0, 1.0, 2.0]), Node("exp", (0,))), (1,))
PASSES = [PassSpec("FoldConstant")]


def test_integers_and_bools_compare_exactly():
    a = np.array([1, 2, 3], dtype="int32")
    assert compare_arrays(a, a.copy(), INFO)[0] == ""
    assert compare_arrays(a, a + np.array([0, 0, 1], dtype="int32"), INFO)[0] == "values"
    assert compare_arrays(np.array([True]), np.array([False]), INFO)[0] == "values"


def test_floats_within_tolerance_nan_positions_must_agree():
    a = np.array([1.0, 2.0, np.nan], dtype="float32")
    assert compare_arrays(a, a + np.float32(1e-6), INFO)[0] == ""
    assert compare_arrays(a, a + np.float32(0.1), INFO)[0] == "values"
    assert compare_arrays(a, np.array([1.0, 2.0, 3.0], dtype="float32"), INFO)[0] == "values"
    assert compare_arrays(a, np.array([np.nan, 2.0, np.nan], dtype="float32"), INFO)[0] == "values"


def test_shape_and_dtype_differences_are_named():
    a = np.zeros((2, 3), dtype="float32")
    assert compare_arrays(a, np.zeros((3, 2), "float32"), INFO)[0] == "shape"
    assert compare_arrays(a, np.zeros((2, 3), "float16"), INFO)[0] == "dtype"


def test_original_failure_is_a_generator_defect_never_a_finding():
    verdict = judge(PROGRAM, PASSES, Outcome("crash", "run:llvm", "SIGSEGV"), Outcome("ok"))
    assert verdict.finding is None and "SIGSEGV" in verdict.generator_defect


def test_optimized_failures_become_kinds_with_stable_fingerprints():
    ok = Outcome("ok", outputs={"llvm": [np.ones(3, "float32")]})
    cases = {
        "pass-error": Outcome("error", "pass:FoldConstant", "InternalError: Check failed: x == 3"),
        "ill-formed": Outcome("error", "well-formed", "IllFormed: Var lv1 is not defined."),
        "compile-error": Outcome("error", "compile:llvm", "TVMError: bad"),
        "runtime-error": Outcome("error", "run:llvm", "TVMError: bad"),
        "crash": Outcome("crash", "run:llvm", "SIGSEGV"),
        "hang": Outcome("hang", "compile:llvm", "no result after 60 s"),
    }
    for kind, outcome in cases.items():
        assert judge(PROGRAM, PASSES, ok, outcome).finding.kind == kind
    first = judge(PROGRAM, PASSES, ok, Outcome("error", "pass:FoldConstant", "InternalError: lv12 at 0x7f12 line 3"))
    again = judge(PROGRAM, PASSES, ok, Outcome("error", "pass:FoldConstant", "InternalError: lv7 at 0x7f99 line 9"))
    other = judge(PROGRAM, PASSES, ok, Outcome("error", "pass:FoldConstant", "TypeError: something else"))
    assert first.finding.fingerprint == again.finding.fingerprint != other.finding.fingerprint


def test_value_mismatch_is_wrong_result_and_equal_outputs_are_fine():
    a = Outcome("ok", outputs={"llvm": [np.ones(3, "float32")]})
    b = Outcome("ok", outputs={"llvm": [np.full(3, 2.0, "float32")]})
    assert judge(PROGRAM, PASSES, a, a).finding is None
    assert judge(PROGRAM, PASSES, a, b).finding.kind == "wrong-result"
    fewer = Outcome("ok", outputs={"llvm": []})
    assert "count" in judge(PROGRAM, PASSES, a, fewer).finding.signature


def test_incomparable_is_not_compared():
    a = Outcome("ok", outputs={"llvm": [np.ones(3, "float32")]})
    verdict = judge(PROGRAM, PASSES, a, Outcome("incomparable", "adapter", "signature changed"))
    assert verdict.finding is None and verdict.incomparable


def test_normalize_error_drops_volatile_parts():
    text = "[05:37:21] /project/src/relax/op.cc:123: Check failed: lv3 at 0xdeadbeef"
    assert normalize_error(text) == "<src> Check failed: lv at <addr>"


def test_normalize_error_treats_fused_functions_as_one_name():
    a = "TypeError: Check failed: (is_func) is false: ErrorContext(fn=fused_tir_clip_one_hot, loc=param[0])"
    b = "TypeError: Check failed: (is_func) is false: ErrorContext(fn=fused_less_logical_and, loc=param[0])"
    assert normalize_error(a) == normalize_error(b)
    assert "fused_..." in normalize_error(a) and normalize_error(a) != normalize_error(a.replace("fn=fused_", "fn="))


def test_normalize_error_treats_numbered_temporaries_as_one_name():
    first, later = "IllFormed: DataflowVar lv is not defined.", "IllFormed: DataflowVar lv6 is not defined."
    assert normalize_error(first) == normalize_error(later) != normalize_error("IllFormed: Var x6 is not defined.")


def test_a_failing_pass_is_fingerprinted_by_the_prefix_that_ran():
    ok = Outcome("ok", outputs={"llvm": [np.ones(3, "float32")]})
    lift = PassSpec("LiftTransformParams")
    failing = Outcome("error", "well-formed:LiftTransformParams", "IllFormed: Var gv is not defined.")
    alone = judge(PROGRAM, [lift], ok, failing).finding
    followed = judge(PROGRAM, [lift, PassSpec("ToNonDataflow"), PassSpec("FoldConstant")], ok, failing).finding
    assert alone.fingerprint == followed.fingerprint


def test_normalize_error_drops_types_that_vary_with_the_program():
    a = 'TypeError: annotation=T.Tuple(R.Tensor((T.int64(4), T.int64(3)), dtype="float32")) expect a Tuple'
    b = 'TypeError: annotation=T.Tuple(R.Tensor((), dtype="bool")) expect a Tuple'
    assert normalize_error(a) == normalize_error(b)


def test_normalize_error_keeps_the_first_sentence():
    a = "TypeError: Binary operators must have the same datatype. However, R.maximum(lv5, x) uses float32"
    b = "TypeError: Binary operators must have the same datatype. However, R.add(R.const(4), lv4) uses int64"
    assert normalize_error(a) == normalize_error(b) == "TypeError: Binary operators must have the same datatype"


def test_reference_mismatch_blames_no_pass_and_names_the_op():
    program = Program((Param((3,), "int32", -4, 4, [1, -2, 3]), Param((3,), "int32", -4, 4, [0, 0, 0]),
                       Node("maximum", (0, 1))), (2,))
    right = Outcome("ok", outputs={"llvm": [np.array([1, 0, 3], "int32")]})
    assert reference_verdict(program, right) == Verdict()
    wrong = reference_verdict(program, Outcome("ok", outputs={"llvm": [np.array([0, -2, 0], "int32")]}))
    finding = wrong.finding
    assert finding.kind == "reference-mismatch" and finding.passes == () and finding.stage == "reference:llvm"
    assert "at maximum" in finding.signature and "numpy 1, tvm 0" in finding.message


def test_a_reference_mismatch_on_another_target_than_llvm_is_keyed_apart_and_named_after_it():
    program = Program((Param((3,), "int32", -4, 4, [1, -2, 3]), Param((3,), "int32", -4, 4, [0, 0, 0]),
                       Node("maximum", (0, 1))), (2,))
    wrong = [np.array([0, -2, 0], "int32")]
    on_llvm = reference_verdict(program, Outcome("ok", outputs={"llvm -opt-level=1": wrong})).finding
    on_c = reference_verdict(program, Outcome("ok", outputs={"c": wrong})).finding
    assert on_llvm.signature.endswith("at maximum") and on_c.signature.endswith("at maximum on c")
    assert on_llvm.fingerprint != on_c.fingerprint  # a C codegen fault is not an llvm one at the same op


def test_reference_tolerance_is_wider_than_between_two_modules():
    exp = np.exp(np.array([0.0, 1.0, 2.0], "float32"))
    # exp over [-4, 4]: bound e**4, so the absolute tolerance is 1e-4 * 54.6 between two modules
    near = Outcome("ok", outputs={"llvm": [exp + np.float32(0.02)]})  # within 10 times that: fine against numpy only
    assert reference_verdict(PROGRAM, near) == Verdict()
    assert judge(PROGRAM, PASSES, Outcome("ok", outputs={"llvm": [exp]}), near).finding.kind == "wrong-result"
    far = Outcome("ok", outputs={"llvm": [exp + np.float32(0.2)]})
    assert reference_verdict(PROGRAM, far).finding.kind == "reference-mismatch"


def test_reference_mismatch_is_named_after_the_first_disagreeing_node():
    program = Program((Param((3,), "int32", -4, 4, [1, -2, 3]), Param((3,), "int32", -4, 4, [0, 0, 0]),
                       Node("maximum", (0, 1)), Node("negative", (2,))), (3,))
    wrong = Outcome("ok", outputs={"llvm": [np.array([0, 2, 0], "int32")]})  # negative of a wrong maximum
    assert "at negative" in reference_verdict(program, wrong).finding.signature
    probe = Outcome("ok", outputs={"llvm": [np.array([0, -2, 0], "int32"), np.array([0, 2, 0], "int32")]})
    named = reference_verdict(program, wrong, probe).finding
    assert "at maximum" in named.signature and "first value that differs is node 2 (maximum)" in named.message


def test_a_float32_value_computed_from_bfloat16_carries_bfloat16_tolerance():
    # TVM accumulates a bfloat16 matmul in bfloat16: x @ w is -16.75 where numpy rounds the exact
    # sum to -16.875, and a float32 matmul after it multiplies the difference (-67.0 vs -67.5).
    x = Param((1, 2), "bfloat16", -4, 4, [[3.3125, 3.921875]])
    w = Param((2, 1), "bfloat16", -4, 4, [[-0.78515625], [-3.625]])
    y = Param((1, 1), "bfloat16", -4, 4, [[4.0]])
    program = Program((x, w, Node("matmul", (0, 1)), y, Node("matmul", (2, 3), {"out_dtype": "float32"})), (4,))
    assert rounding_dtypes(program, analyse(program)) == ["bfloat16"] * 5
    tvm_like = Outcome("ok", outputs={"llvm": [np.array([[-67.0]], dtype="float32")]})
    assert reference_verdict(program, tvm_like).finding is None
    info = analyse(program)[4]
    assert compare_arrays(np.array([-67.5], "float32"), np.array([-67.0], "float32"), info)[0] == "values"
    float32_only = Program((Param((1,), "float32", -4, 4, [1.0]), Node("exp", (0,))), (1,))
    assert rounding_dtypes(float32_only, analyse(float32_only)) == ["float32", "float32"]


def test_a_pass_that_failed_on_a_later_run_keeps_the_passes_before_that_run():
    # [P, LegalizeOps, P]: the stage names P, and only its run after LegalizeOps can have failed.
    from passfuzz.judge.finding import new_finding
    from passfuzz.passes.names import PassSpec

    passes = [PassSpec("tests.planted_passes:raise_after_legalize"), PassSpec("LegalizeOps"),
              PassSpec("tests.planted_passes:raise_after_legalize")]
    finding = new_finding("pass-error", passes, "RuntimeError", "cannot handle call_tir",
                          stage="pass:tests.planted_passes:raise_after_legalize")
    assert [p.text for p in finding.passes] == [p.text for p in passes]


def test_a_finding_is_pinned_to_the_shortest_prefix_showing_its_kind():
    from passfuzz.judge.finding import new_finding
    from passfuzz.judge.oracle import pin_to_prefix

    passes = [PassSpec("FoldConstant"), PassSpec("LegalizeOps"), PassSpec("FuseOps")]
    full = Verdict(new_finding("wrong-result", passes, "values", "differs"))
    shown = {1: "compile-error", 2: "wrong-result"}  # the first pass alone shows another kind
    tried = []

    def attempt(end):
        tried.append(end)
        kind = shown.get(end)
        return (Verdict(new_finding(kind, passes[:end], "values", "at prefix")) if kind else Verdict()), end

    verdict, seen = pin_to_prefix(full, "full", range(1, len(passes)), attempt)
    assert (verdict.finding.passes, seen, tried) == (tuple(passes[:2]), 2, [1, 2])
    assert verdict.finding.fingerprint != full.finding.fingerprint  # it names the prefix, not the whole list

    shown.clear()
    assert pin_to_prefix(full, "full", range(1, len(passes)), attempt) == (full, "full")

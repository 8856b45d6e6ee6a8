"""The oracles at every pass boundary (passfuzz.judge.boundaries): each planted pass keeps every
output value, so only its boundary oracle sees it; each correct twin differs from it only in the
defect and stays silent. The saved reproducers exit 1, and 0 once the pass is replaced by its twin."""

from pathlib import Path

import numpy as np
import pytest
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R

from passfuzz.campaign.engine import FuzzConfig, Fuzzer
from passfuzz.findings import corpus
from passfuzz.ir.program import Node, Param, Program
from passfuzz.judge.boundaries import NO_CHECKS, BoundaryChecks, _detail, _path_tail
from passfuzz.judge.trial import check
from passfuzz.passes.names import resolve_list
from passfuzz.portable.round_trip import json_round_trip, print_round_trip
from passfuzz.relax.build import build_module

from .test_reproducer import (
    assert_fixed,
    assert_reproduces,
    fixed_twin,
    lines,
    run_scripts,
)

PLANTED = "tests.planted_boundaries:"
X = Param((2, 3), "float32", -4, 4, [[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]])
EXP_OF_NEGATIVE = Program((X, Node("negative", (0,)), Node("exp", (1,))), (2,))
# A constant tensor prints as metadata["ir.GenericConst"][0], which the round trip binds by value.
PLUS_CONSTANT = Program((X, Node("const", (), {"shape": [2, 3], "dtype": "float32",
                                               "value": [[1.0, 0.5, -2.0], [3.0, 1.0, 0.0]]}),
                         Node("add", (0, 1))), (2,))
NO_JSON = BoundaryChecks()  # the default: on TVM 0.27 every module's JSON round trip crashes
WITH_JSON = BoundaryChecks(json_round_trip=True)


def checked(program, passes: str, checks: BoundaryChecks):
    return check(program, resolve_list(passes), ["llvm"], 60, boundaries=checks)


def saved_script(tmp_path, program, passes: str, checks: BoundaryChecks, kind: str):
    verdict, optimized = checked(program, passes, checks)
    assert verdict.finding is not None and verdict.finding.kind == kind, verdict
    fuzzer = Fuzzer(FuzzConfig(passes=resolve_list(passes), targets=["llvm"], corpus_dir=tmp_path, timeout=60,
                               boundaries=checks))
    path = fuzzer.save(verdict.finding, program, list(verdict.finding.passes), shrunk=True, optimized=optimized)
    return path.with_suffix(".py"), verdict.finding


@pytest.mark.parametrize("program", [EXP_OF_NEGATIVE, PLUS_CONSTANT], ids=["plain", "tensor-constant"])
def test_a_module_built_by_passfuzz_prints_and_parses_back_to_itself(program):
    assert print_round_trip(build_module(program)) == ""


def test_a_pass_whose_module_does_not_parse_back_is_a_print_round_trip_finding_and_its_twin_is_not(tmp_path):
    script, finding = saved_script(tmp_path, EXP_OF_NEGATIVE, PLANTED + "keyword_result", NO_JSON, "print-round-trip")
    assert finding.signature == f"print-round-trip | {PLANTED}keyword_result | does not parse back: " \
                                "SyntaxError: invalid syntax (<unknown>, line N)"
    assert finding.stage == f"print:{PLANTED}keyword_result"
    twin, _ = checked(EXP_OF_NEGATIVE, PLANTED + "renamed_result", NO_JSON)
    assert twin.finding is None, twin
    assert corpus.problem(script.with_suffix(".json")) == ""  # the schema takes the new kind
    bug, fixed = run_scripts(script, fixed_twin(script, "keyword_result", "renamed_result"))
    assert_reproduces(bug, "print-round-trip")
    assert_fixed(fixed)
    assert lines(script) < 80, script.read_text()  # 35 of them the copied round trip


def test_a_pass_that_differs_on_two_fresh_copies_is_nondeterministic_and_its_twin_is_not(tmp_path):
    script, finding = saved_script(tmp_path, EXP_OF_NEGATIVE, PLANTED + "counted_label", NO_JSON,
                                   "nondeterministic-pass")
    assert finding.signature == f"nondeterministic-pass | {PLANTED}counted_label | copies differ at functions.attrs.__dict__"
    twin, _ = checked(EXP_OF_NEGATIVE, PLANTED + "constant_label", NO_JSON)
    assert twin.finding is None, twin
    bug, fixed = run_scripts(script, fixed_twin(script, "counted_label", "constant_label"))
    assert_reproduces(bug, "nondeterministic-pass")
    assert_fixed(fixed)


def test_a_module_whose_outputs_change_from_run_to_run_is_nondeterministic_output_and_its_twin_is_not(tmp_path):
    checks = BoundaryChecks(False, False, False, same_outputs=True)
    script, finding = saved_script(tmp_path, EXP_OF_NEGATIVE, PLANTED + "jittered_output", checks,
                                   "nondeterministic-output")
    assert finding.passes == tuple(resolve_list(PLANTED + "jittered_output"))  # the original is deterministic
    twin, _ = checked(EXP_OF_NEGATIVE, PLANTED + "copied_output", checks)
    assert twin.finding is None, twin
    bug, fixed = run_scripts(script, fixed_twin(script, "jittered_output", "copied_output"))
    assert_reproduces(bug, "nondeterministic-output")
    assert_fixed(fixed)


def test_the_original_modules_json_crash_blames_no_pass_and_hides_no_finding_that_blames_one(tmp_path):
    # TVM 0.27.0.post1's save_json segfaults on any PrimExpr: every tensor shape holds one.
    script, finding = saved_script(tmp_path, EXP_OF_NEGATIVE, PLANTED + "constant_label", WITH_JSON,
                                   "json-round-trip")
    assert finding.passes == () and not finding.blamed
    assert finding.signature == "json-round-trip | - | crash: SIGSEGV"
    hidden, _ = checked(EXP_OF_NEGATIVE, PLANTED + "keyword_result", WITH_JSON)
    assert hidden.finding is not None and hidden.finding.kind == "print-round-trip", hidden
    (bug,) = run_scripts(script)
    assert_reproduces(bug, "json-round-trip")
    assert bug.stdout.endswith("save_json, load_json: SIGSEGV\n"), bug.stdout


def _adds_constant(values):
    """f(x) = x + const(values): a tensor constant, printed as metadata["ir.GenericConst"][i]."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2,), "float32"))
    with bb.function("f", [x]):
        bb.emit_func_output(bb.emit(relax.op.add(x, relax.const(np.array(values, "float32")))))
    return bb.get()["f"]


def test_constants_are_bound_in_the_printers_order_which_puts_main_last():
    # LiftTransformParams adds main_transform_params, which sorts after main by name but is
    # printed first: binding main's constant to its index swapped the two (a false finding).
    mod = tvm.IRModule({"main": _adds_constant([1.0, 2.0]), "main_transform_params": _adds_constant([3.0, 4.0])})
    assert print_round_trip(mod) == ""


def test_json_round_trip_holds_for_a_module_without_a_primexpr():
    @I.ir_module
    class Opaque:
        @R.function
        def main(x: R.Object) -> R.Object:
            return x

    assert json_round_trip(Opaque) == ""


def test_a_parse_error_is_keyed_by_the_missing_attribute_and_not_by_a_quoted_program_name():
    # R.Tuple's field and R.Callable's parameter fail in the parser by two names of its own
    by_tuple, by_callable = (_detail(f"does not parse back: DiagnosticError: error: 'Var' object has no attribute "
                                     f"'{name}'") for name in ("as_ty", "get_symbolic_vars"))
    assert by_tuple == "does not parse back: DiagnosticError: error: 'Var' object has no attribute 'as_ty'"
    assert by_callable != by_tuple
    assert _detail("does not parse back: NameError: name 'n0' is not defined") == \
        _detail("does not parse back: NameError: name 'lv3' is not defined")


def test_a_difference_is_keyed_by_the_end_of_its_path_not_by_function_names_or_indices():
    take = 'StructuralEqual check failed, caused by lhs at <root>.functions[I.GlobalVar("take1")].body.block' \
           '.body.body.block.reads[0].region[0].extent.ty.dtype:'
    add = 'StructuralEqual check failed, caused by lhs at <root>.functions[I.GlobalVar("add")].body.block' \
          '.reads[2].region[1].extent.ty.dtype'
    assert _path_tail(take) == _path_tail(add) == "extent.ty.dtype"


def test_no_checks_and_a_correct_pass_find_nothing():
    assert checked(EXP_OF_NEGATIVE, PLANTED + "keyword_result", NO_CHECKS)[0].finding is None
    assert checked(PLUS_CONSTANT, "FoldConstant", NO_JSON)[0].finding is None


def test_replay_checks_a_record_with_its_own_oracle(tmp_path):
    import subprocess
    import sys

    from .test_reproducer import ENV, ROOT

    script, _ = saved_script(tmp_path, EXP_OF_NEGATIVE, PLANTED + "keyword_result", NO_JSON, "print-round-trip")
    replay = subprocess.run([sys.executable, "-m", "passfuzz", "replay", str(script.with_suffix(".json"))],
                            cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)
    assert replay.returncode == 1 and "REPRODUCES" in replay.stdout, replay


def test_a_tensor_typed_by_an_r_prim_parameter_prints_and_parses_back():
    # main(x0, n: T.int64, w1: R.Tensor((n, 3))): passfuzz's scripts quote n because Python
    # evaluates annotations in a file; TVM's parser reads them and gives back the same module.
    from .test_prim_params import lifted

    assert print_round_trip(build_module(lifted("input"))) == ""
    assert checked(lifted("input"), "FoldConstant", NO_JSON)[0].finding is None


def test_an_ill_formed_module_is_that_finding_not_a_round_trip_one():
    """A module a pass leaves ill-typed also fails to print back; the boundary checks run only where
    the sides agree, so the one fault is named once, as ill-formed (ReorderTakeAfterMatmul dropping
    out_dtype, apache/tvm#20198, from the corpus)."""
    record = corpus.load(Path(__file__).resolve().parent.parent / "corpus" / "ill-formed-b1c17adc241b.json")
    passes = resolve_list(",".join(record.record["passes"]))
    module = record.program
    assert print_round_trip(build_after(module, passes))  # it does fail the round trip too
    verdict, _ = check(module, passes, ["llvm"], 120, boundaries=BoundaryChecks())
    assert verdict.finding is not None and verdict.finding.kind == "ill-formed", verdict


def build_after(program, passes):
    from passfuzz.relax.build import build_module

    module = build_module(program)
    for spec in passes:
        module = spec.for_program(program).instantiate()(module)
    return module


def test_the_scalar_constants_said_to_print_inline_are_those_tvm_prints_inline():
    """The print round trip maps metadata constants by position; a dtype listed wrongly would
    shift every later index (float64 prints inline; uint8 and bfloat16 do not)."""
    import numpy as np
    from tvm import relax

    from passfuzz.ir.catalogue import DTYPES
    from passfuzz.ir.program import numpy_dtype
    from passfuzz.portable.round_trip import INLINE_SCALAR_DTYPES

    inline = []
    for dtype in DTYPES:
        bb = relax.BlockBuilder()
        with bb.function("main", []):
            bb.emit_func_output(relax.const(np.zeros((), numpy_dtype(dtype)), dtype))
        if "metadata" not in bb.get().script():
            inline.append(dtype)
    assert tuple(inline) == tuple(d for d in DTYPES if d in INLINE_SCALAR_DTYPES)
    assert set(INLINE_SCALAR_DTYPES) <= set(DTYPES)


def test_a_dtype_constant_beside_a_tensor_constant_prints_and_parses_back():
    # R.builtin.alloc_tensor's dtype is a constant holding a dtype, printed inline as R.dtype(...):
    # read as a tensor, it raised AttributeError (a false print-round-trip finding after CallTIRRewrite).
    @I.ir_module
    class Alloc:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            R.func_attr({"relax.force_pure": True})
            y = R.builtin.alloc_tensor(R.shape([2]), R.dtype("float32"), R.prim_value(0), R.str("global"))
            z = R.add(x, R.const(np.array([1.0, 2.0], "float32")))
            return (y, z)

    assert print_round_trip(Alloc) == ""

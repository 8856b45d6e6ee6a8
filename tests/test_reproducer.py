"""Reproducer scripts: one per kind, short, standalone, exit 1 while the bug reproduces and 0 once it
is fixed (a planted pass and its corrected twin), call changed conventions the way passfuzz did,
and judge exactly as the oracle judged."""

import ast
import inspect
import json
import os
import re
import subprocess
import sys
from typing import TypeVar

import ml_dtypes
import numpy as np
import pytest
import tvm
import tvm_ffi
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

from passfuzz.campaign.engine import FuzzConfig, Fuzzer
from passfuzz.findings.reproducer import CANNOT_RUN, module_script, module_text, render_script, requirements
from passfuzz.ir.catalogue import ValueInfo
from passfuzz.ir.program import Node, Param, Program
from passfuzz.judge.finding import Finding
from passfuzz.judge.oracle import compare_arrays, tolerance
from passfuzz.judge.trial import check
from passfuzz.passes.catalogue import with_prerequisites
from passfuzz.passes.names import resolve_list
from passfuzz.portable import conventions, standalone
from passfuzz.relax.build import build_module
from strategies import relax_programs

from .conftest import ROOT
from .test_calling import LIFTABLE

PLANTED = "tests.planted_passes:"
ENV = dict(os.environ, PYTHONPATH=str(ROOT))
# Line budgets of a script for a small module.
BUDGET = {"pass-error": 40, "ill-formed": 40, "compile-error": 80, "runtime-error": 80, "wrong-result": 80}

X = Param((2, 3), "float32", -4, 4, [[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]])
NEGATE = Program((X, Node("negative", (0,))), (1,))
SQUARE = Program((X, Node("multiply", (0, 0))), (1,))


def run_script(path):
    return subprocess.run([sys.executable, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env=ENV)


def run_scripts(*paths):
    """Run scripts side by side (each is mostly importing TVM and compiling)."""
    processes = [subprocess.Popen([sys.executable, str(p)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=ENV) for p in paths]
    results = []
    for path, process in zip(paths, processes):
        out, err = process.communicate(timeout=300)
        results.append(subprocess.CompletedProcess([str(path)], process.returncode, out, err))
    return results


def saved(program, pass_list: str, directory, kind: str, timeout: float = 120):
    """Check ``program`` under ``pass_list``, which must give a finding of ``kind``, and save it to
    ``directory``: (its reproducer script, the optimized side's outcome). The passes run after
    their prerequisites, as on the command line."""
    passes = with_prerequisites(resolve_list(pass_list))
    verdict, optimized = check(program, passes, ["llvm"], timeout=timeout)
    assert verdict.finding is not None and verdict.finding.kind == kind, verdict
    fuzzer = Fuzzer(FuzzConfig(passes=passes, targets=["llvm"], corpus_dir=directory, timeout=timeout))
    path = fuzzer.save(verdict.finding, program, list(verdict.finding.passes), shrunk=True, optimized=optimized)
    return path.with_suffix(".py"), optimized


def saved_wrong_result(program, pass_list: str, directory):
    return saved(program, pass_list, directory, "wrong-result")


def fixed_twin(script, bug: str, fix: str):
    """A copy of ``script`` running the corrected pass ``fix`` in place of ``bug``, as if fixed."""
    twin = script.with_name(f"fixed-{script.name}")
    twin.write_text(re.sub(rf"\b{bug}\b", fix, script.read_text()))
    return twin


def assert_reproduces(result, kind: str):
    assert result.returncode == 1 and result.stdout.startswith(f"BUG REPRODUCES ({kind})"), result
    assert result.stdout.count("\n") == 1, result.stdout


def assert_fixed(result):
    assert result.returncode == 0 and result.stdout.startswith("fixed") and result.stdout.count("\n") == 1, result


def lines(script) -> int:
    return len(script.read_text().splitlines())


def test_pass_error_script_is_the_module_the_earlier_passes_and_the_failing_one_in_try(tmp_path):
    script, _ = saved(NEGATE, f"LegalizeOps,{PLANTED}raise_after_legalize", tmp_path, "pass-error")
    text = script.read_text()
    assert lines(script) <= BUDGET["pass-error"], text
    assert "mod = relax.transform.LegalizeOps()(Module)\ntry:\n    mod = raise_after_legalize(mod)\n" in text
    assert "\ndef " not in text and "import tvm\n" not in text  # nothing but the module and the calls
    bug, fixed = run_scripts(script, fixed_twin(script, "raise_after_legalize", "leave_unchanged"))
    assert_reproduces(bug, "pass-error")
    assert "raise_after_legalize raised RuntimeError: cannot handle call_tir" in bug.stdout
    assert_fixed(fixed)
    report = script.with_suffix(".md").read_text()
    assert text.strip() in report  # the script inline
    actual = report.split("## Actual behaviour", 1)[1].split("##", 1)[0]
    assert "RuntimeError: cannot handle call_tir" in actual and "planted_passes.py" in actual
    assert "passfuzz/run/isolate.py" not in actual and "passfuzz/run/execute.py" not in actual  # how passfuzz got there
    environment = json.loads(script.with_suffix(".json").read_text())["environment"]
    assert environment["tvm"] == tvm.__version__ and environment["numpy"] == np.__version__
    for fact in ("tvm_commit", "llvm", "python", "os", "cpu"):
        assert environment[fact] and environment[fact] in report, fact


def test_ill_formed_script_checks_well_formed_after_the_pass(tmp_path):
    script, _ = saved(NEGATE, f"{PLANTED}drop_bindings", tmp_path, "ill-formed")
    text = script.read_text()
    assert lines(script) <= BUDGET["ill-formed"], text
    assert "mod = drop_bindings(Module)\ntry:\n    relax.analysis.well_formed(mod)" in text
    bug, fixed = run_scripts(script, fixed_twin(script, "drop_bindings", "leave_unchanged"))
    assert_reproduces(bug, "ill-formed")
    assert "Var dangling is not defined" in bug.stdout
    assert_fixed(fixed)
    actual = script.with_suffix(".md").read_text().split("## Actual behaviour", 1)[1].split("##", 1)[0]
    assert "Var dangling is not defined" in actual and "Traceback" not in actual  # no header without a frame


def test_crash_script_makes_only_the_crashing_call_in_a_forked_child(tmp_path):
    script, _ = saved(NEGATE, f"{PLANTED}segfault_on_negative", tmp_path, "crash")
    text = script.read_text()
    child = text[text.index("if os.fork() == 0:"):text.index("    os._exit(0)")]
    assert "mod = segfault_on_negative(Module)" in child and child.count("\n    ") == 2, child  # the alarm, the call
    assert "run_child" not in text and "sys.argv" not in text and "\ndef " not in text  # no harness re-running it
    bug, fixed = run_scripts(script, fixed_twin(script, "segfault_on_negative", "leave_unchanged"))
    assert_reproduces(bug, "crash")
    assert "died of SIGSEGV" in bug.stdout
    assert_fixed(fixed)
    changed, = run_scripts(fixed_twin(script, "segfault_on_negative", "raise_always"))
    assert changed.returncode == CANNOT_RUN and changed.stdout.startswith("changed (not a crash)"), changed


def test_a_crash_script_of_a_pass_with_a_dict_argument_prints_its_braces(tmp_path):
    # ConvertLayout({'relax.nn.conv2d': [...]}): the braces inside the script's printed f-string
    # failed as a format spec, so the script exited 125 instead of reproducing
    script, _ = saved(NEGATE, f"{PLANTED}segfault_with({{'relax.nn.conv2d': ['NHWC', 'OHWI']}})", tmp_path, "crash")
    (bug,) = run_scripts(script)
    assert_reproduces(bug, "crash")
    assert "segfault_with({'relax.nn.conv2d': ['NHWC', 'OHWI']}): died of SIGSEGV" in bug.stdout, bug.stdout


def test_hang_script_reads_its_childs_timeout(tmp_path):
    script, _ = saved(NEGATE, f"{PLANTED}spin_forever", tmp_path, "hang", timeout=3)
    bug, fixed = run_scripts(script, fixed_twin(script, "spin_forever", "leave_unchanged"))
    assert_reproduces(bug, "hang")
    assert "no result after 3 s" in bug.stdout
    assert_fixed(fixed)


def test_compile_error_script_builds_both_sides(tmp_path):
    script, _ = saved(SQUARE, f"{PLANTED}multiply_as_fma", tmp_path, "compile-error")
    text = script.read_text()
    assert lines(script) <= BUDGET["compile-error"], text
    assert "executable = tvm.compile(mod, 'llvm')" in text and "relax.VirtualMachine(tvm.compile(Module, 'llvm')" in text
    assert "def load(" not in text  # the plain build is tvm.compile itself
    bug, fixed = run_scripts(script, fixed_twin(script, "multiply_as_fma", "multiply_as_fma_fixed"))
    assert_reproduces(bug, "compile-error")
    assert "CodeGenVM cannot emit this Relax operator" in bug.stdout
    assert_fixed(fixed)


# Each calling convention a pass gives main, then the planted wrong rewrite: only a call through
# the adapter reaches the broken permute, and a wrong call would fail the fixed twin too.
@pytest.mark.parametrize("passes, adapter, helpers", [
    ("LiftTransformParams", "main_transform_params", []),
    ("LiftTransformParams,BundleModelParams", "main_transform_params (bundled); main(inputs, tuple)", []),
    ("BundleModelParams,BundleModelParams", "main(inputs, tuple) (bundled)", []),
    ("LiftTransformParams,ToNonDataflow,RemovePurityChecking,LazyTransformParams", "lazy main_transform_params",
     [conventions.copy_value, conventions.Collected, conventions.lazy_weights]),
    ("LazyGetInput", "main(inputs, getter)", [conventions.param_getter]),
    ("LazySetOutput", "main(inputs, setter, tensor)", [conventions.copy_value, conventions.Collected]),
    ("BindParams", "main(inputs, )", []),
])
def test_wrong_result_script_calls_main_through_the_same_adapter(tmp_path, passes, adapter, helpers):
    script, optimized = saved_wrong_result(LIFTABLE, f"{passes},{PLANTED}permute_as_reshape", tmp_path)
    assert optimized.adapter.name == adapter
    text = script.read_text()
    # The callback conventions' helpers (copy_value, Collected, lazy_weights) cost 20 lines of their own.
    assert lines(script) <= BUDGET["wrong-result"] + (20 if "class Collected" in text else 0), text
    copied = {name for name in ("copy_value", "Collected", "lazy_weights", "param_getter")
              if re.search(rf"^(def|class) {name}\b", text, re.M)}
    assert copied == {f.__name__ for f in helpers}, copied  # only what this adapter needs
    for helper in helpers:
        assert inspect.getsource(helper) in text  # the real code, not a second implementation
    assert "np.testing.assert_allclose(actual[0].astype(\"float64\"), expected[0].astype(\"float64\")" in text
    assert "ml_dtypes" not in text  # imported only for bfloat16 values
    bug, fixed = run_scripts(script, fixed_twin(script, "permute_as_reshape", "permute_as_reshape_fixed"))
    assert_reproduces(bug, "wrong-result")
    assert_fixed(fixed)


@pytest.mark.parametrize("factor", [1.000199, 1.000201])
def test_script_and_oracle_judge_the_same_values_alike(tmp_path, factor):
    """A rewrite off by a factor just inside or just outside the tolerance: the oracle's verdict
    and the script's exit status agree (max |-x| is 4, so the bound is 4: rtol 1e-4, atol 4e-4)."""
    passes = resolve_list(f"{PLANTED}scaled_negative({factor})")
    verdict, optimized = check(NEGATE, passes, ["llvm"], timeout=120)
    assert not verdict.generator_defect and not verdict.incomparable, verdict
    finding = verdict.finding or Finding("wrong-result", "0" * 12, "none", "the oracle found nothing", "run:llvm",
                                         passes=tuple(passes), targets=("llvm",))
    script = tmp_path / "script.py"
    script.write_text(render_script(NEGATE, passes, finding, module_text(NEGATE, passes), ["llvm"], 60, optimized))
    result = run_script(script)
    assert result.returncode == (1 if verdict.finding else 0), (verdict, result)
    assert (verdict.finding is not None) == (factor > 1.0002)  # the two cases straddle the boundary


@settings(max_examples=300, deadline=None, database=None)
@given(dtype=st.sampled_from(["float32", "float16", "bfloat16"]), bound=st.floats(0.5, 64),
       data=st.lists(st.tuples(st.floats(-64, 64, width=32),
                               st.sampled_from([0.0, 1e-5, -1e-4, 3e-4, -1e-3, 1e-2, float("nan"), float("inf")])),
                     min_size=1, max_size=6))
def test_oracle_and_assert_allclose_are_one_criterion(dtype, bound, data):
    """compare_arrays (the oracle) finds values differing exactly when the scripts'
    np.testing.assert_allclose(actual, expected, rtol, atol, equal_nan=True) raises."""
    numpy_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype
    expected = np.array([value for value, _ in data], dtype=numpy_dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        actual = np.array([value * (1 + off) if abs(off) < 1 else value + off for value, off in data],
                          dtype=numpy_dtype)
    info = ValueInfo((len(data),), dtype, -bound, bound)
    what, _ = compare_arrays(expected, actual, info)
    rtol, atol = tolerance(dtype, info.magnitude)
    try:
        np.testing.assert_allclose(actual.astype("float64"), expected.astype("float64"), rtol=rtol, atol=atol,
                                   equal_nan=True)
        raised = False
    except AssertionError:
        raised = True
    assert (what == "values") == raised, (expected, actual, rtol, atol)


def test_gradient_script_holds_the_expected_gradients_inline(tmp_path):
    x = Param((2,), "float32", -2.0, 2.0, [0.5, -1.0])
    program = Program((x, Node("exp", (0,), {}), Node("sum", (1,), {"axis": None, "keepdims": False})), (2,))
    script, optimized = saved_wrong_result(program, "tests.planted_gradient:doubled_exp_gradient,Gradient", tmp_path)
    text = script.read_text()
    assert 'vm["main_adjoint"](*args)' in text
    assert "def gradient_mismatch(" not in text and "def central_differences(" not in text  # no checker
    # d/dx sum(exp(x)) = exp(x): the central differences inline are exp(0.5) and exp(-1.0)
    expected = re.search(r"^expected = \[np\.array\((\[.*?\]), dtype='float64'\)\]", text, re.M)
    np.testing.assert_allclose(json.loads(expected.group(1)), np.exp([0.5, -1.0]), rtol=1e-8)
    assert sum(1 for line in text.splitlines() if line.strip()) <= 51, text  # 50 + the hook set again
    bug, fixed = run_scripts(script, fixed_twin(script, "doubled_exp_gradient", "right_exp_gradient"))
    assert_reproduces(bug, "wrong-result")
    assert "main_adjoint: gradient 0" in bug.stdout
    assert_fixed(fixed)


def test_reference_mismatch_script_holds_numpys_outputs(tmp_path):
    # argmax of a row holding only the dtype's lowest value gives -1 (a known TVM bug).
    zeros = Param((2,), "uint8", 0, 0, [0, 0])
    program = Program((zeros, Node("argmax", (0,), {"axis": None, "keepdims": False})), (1,))
    verdict, optimized = check(program, [], ["llvm"], timeout=120)
    if verdict.finding is None:
        pytest.skip("this TVM computes argmax of all-lowest values right")
    assert verdict.finding.kind == "reference-mismatch"
    fuzzer = Fuzzer(FuzzConfig(passes=[], targets=["llvm"], corpus_dir=tmp_path))
    script = fuzzer.save(verdict.finding, program, [], shrunk=True, optimized=optimized).with_suffix(".py")
    text = script.read_text()
    assert lines(script) <= BUDGET["wrong-result"] and "expected = [np.array(0, dtype='int64')]  # numpy's" in text
    result = run_script(script)
    assert_reproduces(result, "reference-mismatch")


def test_rewrite_regenerates_what_still_reproduces_and_leaves_the_rest(tmp_path):
    script, _ = saved(NEGATE, f"LegalizeOps,{PLANTED}raise_after_legalize", tmp_path / "a", "pass-error")
    fresh = script.read_text()
    record = json.loads(script.with_suffix(".json").read_text())
    del record["environment"]  # as in a record saved before it was kept
    script.with_suffix(".json").write_text(json.dumps(record))
    script.write_text("old script\n")
    script.with_suffix(".md").write_text("old report\n")
    stale = tmp_path / "b" / script.name
    stale.parent.mkdir()
    for suffix in (".py", ".md"):
        stale.with_suffix(suffix).write_text("old\n")
    record["passes"] = ["LegalizeOps", f"{PLANTED}leave_unchanged"]  # as if fixed
    stale.with_suffix(".json").write_text(json.dumps(record))
    result = subprocess.run([sys.executable, "-m", "passfuzz", "replay", "--rewrite", str(tmp_path / "a"),
                             str(tmp_path / "b")], cwd=ROOT, capture_output=True, text=True, timeout=300, env=ENV)
    assert result.returncode == 1 and "rewritten" in result.stdout and "FIXED" in result.stdout, result
    assert script.read_text() == fresh and fresh.strip() in script.with_suffix(".md").read_text()
    assert json.loads(script.with_suffix(".json").read_text())["environment"]["tvm"] == tvm.__version__
    assert stale.with_suffix(".py").read_text() == "old\n" and stale.with_suffix(".md").read_text() == "old\n"


# What a reproducer script imports before its module (ml_dtypes only when it holds bfloat16;
# TypeVar declares symbolic dims).
SCRIPT_NAMES = {"I": I, "R": R, "T": T, "np": np, "ml_dtypes": ml_dtypes, "TypeVar": TypeVar}

# bfloat16 everywhere: an argument, a tensor constant and a scalar constant (both printed as
# metadata, so inlined by value), and values with all 8 significant bits in use.
BF16_X = Param((2, 3), "bfloat16", -4.0, 4.0, [[1.0078125, -2.0, 0.5], [3.984375, -0.0, 1.5]])
BF16_PROGRAM = Program((
    BF16_X,
    Node("permute_dims", (0,), {"axes": None}),
    Node("const", (), {"shape": [3, 2], "dtype": "bfloat16", "value": [[0.1015625, -1.0], [2.5, 0.0], [-3.0, 1.25]]}),
    Node("add", (1, 2)),
    Node("const", (), {"shape": [], "dtype": "bfloat16", "value": 1.5}),
    Node("multiply", (3, 4)),
), (5,))


def test_bfloat16_script_runs_standalone_and_reproduces(tmp_path):
    script, _ = saved_wrong_result(BF16_PROGRAM, f"{PLANTED}permute_as_reshape", tmp_path)
    text = script.read_text()
    assert "import ml_dtypes\n" in text and "metadata[" not in text
    assert "np.array([[1.0078125, -2.0, 0.5], [3.984375, -0.0, 1.5]], dtype=ml_dtypes.bfloat16)" in text
    bug, fixed = run_scripts(script, fixed_twin(script, "permute_as_reshape", "permute_as_reshape_fixed"))
    assert_reproduces(bug, "wrong-result")
    assert_fixed(fixed)


def test_bfloat16_constants_parse_back_by_value():
    mod = build_module(BF16_PROGRAM)
    text = module_script(mod)
    assert text.count("dtype=ml_dtypes.bfloat16), 'bfloat16')") == 2 and "metadata[" not in text
    parsed = tvm.script.from_source(text, extra_vars=SCRIPT_NAMES)
    assert tvm_ffi.structural_equal(parsed, mod), text  # values included, bit for bit


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(relax_programs())
def test_module_script_parses_back_to_the_same_module(program):
    # take_backward prints a mode its parser rejects: a TVM fault passfuzz knows
    # (corpus/faults/relax-take-backward-prints-mode-its-parser-rejects.json), not the script's.
    assume("take_backward" not in program.op_counts())
    mod = build_module(program)
    parsed = tvm.script.from_source(module_script(mod), extra_vars=SCRIPT_NAMES)
    assert tvm_ffi.structural_equal(parsed, mod), module_script(mod)


def test_a_portable_module_is_copied_below_its_imports_whatever_their_order_or_form():
    """Reordering a portable module's imports (or adding one) must not change what scripts copy
    of it, nor break importing the reproducer."""
    from passfuzz.findings.reproducer import below_imports
    from passfuzz.portable import dlight_rules, finite_differences, timing, tuning_records

    source = ('"""A module."""\nfrom __future__ import annotations\n\nimport numpy as np\nimport math\n'
              'from tvm import (\n    relax,\n)\n\n# why STEP\nSTEP = 1\n\n\ndef f():\n    import os\n    return STEP\n')
    assert below_imports(source) == "# why STEP\nSTEP = 1\n\n\ndef f():\n    import os\n    return STEP"
    for module in (dlight_rules, finite_differences, timing, tuning_records):
        copied = below_imports(inspect.getsource(module))
        tree = ast.parse(copied)
        assert not [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))], module
        defined = {node.name for node in ast.parse(inspect.getsource(module)).body
                   if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
        assert defined and defined == {node.name for node in tree.body
                                       if isinstance(node, (ast.FunctionDef, ast.ClassDef))}, module


def _tvm_that_cannot_be_imported(directory):
    stub = directory / "stub" / "tvm"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text('raise ImportError("this tvm cannot be imported")\n')
    return stub.parent


def test_a_script_that_cannot_import_tvm_exits_125_not_1(tmp_path):
    script, _ = saved(NEGATE, f"LegalizeOps,{PLANTED}raise_after_legalize", tmp_path, "pass-error")
    assert "Exit status: 1 reproduces, 0 fixed, 125 cannot run" in script.read_text()
    env = dict(ENV, PYTHONPATH=f"{_tvm_that_cannot_be_imported(tmp_path)}{os.pathsep}{ROOT}")
    result = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                            env=env)
    assert result.returncode == CANNOT_RUN and "this tvm cannot be imported" in result.stderr, result
    assert not result.stdout, result  # no verdict printed


def test_a_script_whose_custom_pass_module_is_missing_exits_125(tmp_path):
    script, _ = saved(NEGATE, f"LegalizeOps,{PLANTED}raise_after_legalize", tmp_path, "pass-error")
    assert "Needs tvm and numpy, and tests." in script.read_text()  # the pass's own module, said in the header
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                            env=env)  # run elsewhere: tests.planted_passes is not importable
    assert result.returncode == CANNOT_RUN and "ModuleNotFoundError" in result.stderr, result


def test_a_failure_of_another_kind_than_the_recorded_one_exits_125(tmp_path):
    # A wrong result's pass now raises; a compile error's module now compiles and gives wrong values.
    script, optimized = saved_wrong_result(NEGATE, f"{PLANTED}scaled_negative(2.0)", tmp_path)
    raising = tmp_path / "now-raising.py"
    raising.write_text(re.sub(r"\bscaled_negative\b(\(2\.0\))?", "raise_always", script.read_text()))
    passes = resolve_list(f"{PLANTED}scaled_negative(2.0)")
    as_compile_error = tmp_path / "compile-error-now-wrong.py"
    as_compile_error.write_text(render_script(NEGATE, passes, Finding("compile-error", "c" * 12, "", "m", "compile:llvm"),
                                              module_text(NEGATE, passes), ["llvm"], 60, optimized))
    now_raising, now_wrong = run_scripts(raising, as_compile_error)
    assert now_raising.returncode == CANNOT_RUN and "unsupported pattern" in now_raising.stderr, now_raising
    assert not now_raising.stdout, now_raising
    assert now_wrong.returncode == CANNOT_RUN, now_wrong
    assert now_wrong.stdout.startswith("changed (wrong-result, not compile-error)"), now_wrong


def test_a_script_names_what_it_needs_beyond_tvm_and_numpy(tmp_path):
    bfloat16, _ = saved_wrong_result(BF16_PROGRAM, f"{PLANTED}permute_as_reshape", tmp_path)
    text = bfloat16.read_text()
    assert requirements(text) == ["ml_dtypes", "tests"]
    assert "Needs tvm and numpy, and ml_dtypes, tests." in text
    assert "needs `tvm`, `numpy` and `ml_dtypes`, `tests`" in bfloat16.with_suffix(".md").read_text()
    plain = render_script(NEGATE, resolve_list("FoldConstant"), Finding("wrong-result", "f" * 12, "", "m", "run:llvm"),
                          module_text(NEGATE, []), ["llvm"], 60, None)
    assert requirements(plain) == [] and "Needs" not in plain  # nothing beyond tvm and numpy


def test_symbolic_dims_print_as_tvmscript_is_written():
    n = Param((2, 3), "float32", -4, 4, [[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]], dims=("n", ""))
    program = Program((n, Node("negative", (0,))), (1,))
    mod = build_module(program)
    assert 'TypeVar("n")' in mod.script()  # what TVM 0.27 prints
    text = module_script(mod)
    assert "TypeVar" not in text and 'R.Tensor(("n", 3), dtype="float32")' in text, text
    assert "        n = T.int64()\n" in text  # the body's annotations use it
    parsed = tvm.script.from_source(text, extra_vars=SCRIPT_NAMES)
    assert tvm_ffi.structural_equal(parsed, mod), text


def test_a_script_whose_module_text_the_parser_rejects_exits_125_not_1(tmp_path):
    # TVM's parser raises a DiagnosticError, and importing tvm wraps sys.excepthook in one that
    # prints a note for it instead of calling the script's hook: Python would exit 1, a verdict.
    script, _ = saved(NEGATE, f"LegalizeOps,{PLANTED}raise_after_legalize", tmp_path, "pass-error")
    text = script.read_text()
    assert "R.negative(x0)" in text, text
    rejected = tmp_path / "rejected.py"
    rejected.write_text(text.replace("R.negative(x0)", "R.negative(x0, no_such_keyword=1)"))
    result = run_script(rejected)
    assert result.returncode == CANNOT_RUN, result
    assert "BUG REPRODUCES" not in result.stdout, result

"""Reproducer scripts stand alone, call changed conventions the way passfuzz did, and exit 1/0."""

import os
import subprocess
import sys
from typing import TypeVar

import ml_dtypes
import numpy as np
import tvm
import tvm_ffi
from hypothesis import HealthCheck, given, settings
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

from passfuzz.engine import FuzzConfig, Fuzzer, check
from passfuzz.passes import resolve_list
from passfuzz.program import Node, Param, Program
from passfuzz.relax_build import build_module
from passfuzz.reproducer import module_script
from strategies import relax_programs

from .conftest import ROOT
from .test_calling import LIFTABLE


def run_script(path):
    return subprocess.run([sys.executable, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))


def saved_wrong_result(program, pass_list: str, directory):
    """Check ``program`` under ``pass_list``, which must give a wrong result, and save the
    finding to ``directory``: (its reproducer script, the optimized side's outcome)."""
    passes = resolve_list(pass_list)
    verdict, optimized = check(program, passes, ["llvm"], timeout=120)
    assert verdict.finding is not None and verdict.finding.kind == "wrong-result", verdict
    fuzzer = Fuzzer(FuzzConfig(passes=passes, targets=["llvm"], corpus_dir=directory))
    path = fuzzer.save(verdict.finding, program, list(verdict.finding.passes), shrunk=True, optimized=optimized)
    return path.with_suffix(".py"), optimized


def test_script_through_the_lifted_convention_reproduces(tmp_path):
    # The planted rewrite breaks the permute that LiftTransformParams moved into main_transform_params:
    # only a call through the adapter reaches it.
    script, optimized = saved_wrong_result(LIFTABLE, "LiftTransformParams,tests.planted_passes:permute_as_reshape",
                                           tmp_path)
    assert optimized.adapter.name == "main_transform_params"
    assert "ADAPTER = ('main_transform_params', False, None, 0, 0, None)" in script.read_text()
    assert "ml_dtypes" not in script.read_text()  # imported only for bfloat16 values
    result = run_script(script)
    assert result.returncode == 1 and result.stdout.startswith("BUG REPRODUCES (wrong-result)"), result


def test_script_exits_0_once_the_bug_is_gone(tmp_path):
    script, _ = saved_wrong_result(LIFTABLE, "LiftTransformParams,tests.planted_passes:permute_as_reshape", tmp_path)
    fixed = script.read_text().replace("'permute_as_reshape')", "'permute_as_reshape_fixed')")
    script.write_text(fixed)  # as if the pass had been fixed
    result = run_script(script)
    assert result.returncode == 0 and result.stdout.startswith("fixed"), result


# What a reproducer script imports before its module (ml_dtypes only when it holds bfloat16).
# What a reproducer script imports before its module (TypeVar declares symbolic dims).
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
    script, _ = saved_wrong_result(BF16_PROGRAM, "tests.planted_passes:permute_as_reshape", tmp_path)
    text = script.read_text()
    assert "import ml_dtypes\n" in text and "metadata[" not in text
    assert "np.array([[1.0078125, -2.0, 0.5], [3.984375, -0.0, 1.5]], dtype=ml_dtypes.bfloat16)" in text
    result = run_script(script)
    assert result.returncode == 1 and result.stdout.startswith("BUG REPRODUCES (wrong-result)"), result
    script.write_text(text.replace("'permute_as_reshape')", "'permute_as_reshape_fixed')"))
    result = run_script(script)
    assert result.returncode == 0 and result.stdout.startswith("fixed"), result


def test_bfloat16_constants_parse_back_by_value():
    mod = build_module(BF16_PROGRAM)
    text = module_script(mod)
    assert text.count("dtype=ml_dtypes.bfloat16), 'bfloat16')") == 2 and "metadata[" not in text
    parsed = tvm.script.from_source(text, extra_vars=SCRIPT_NAMES)
    assert tvm_ffi.structural_equal(parsed, mod), text  # values included, bit for bit


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(relax_programs())
def test_module_script_parses_back_to_the_same_module(program):
    mod = build_module(program)
    parsed = tvm.script.from_source(module_script(mod), extra_vars=SCRIPT_NAMES)
    assert tvm_ffi.structural_equal(parsed, mod), module_script(mod)

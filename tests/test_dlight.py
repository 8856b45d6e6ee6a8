"""--build dlight=random: GPU kernels scheduled by drawn dlight rules against dlight's defaults."""

import os
import subprocess
import sys

import numpy as np
import pytest
import tvm
from hypothesis import given, settings
from tvm import relax

from passfuzz.portable import dlight_rules
from passfuzz.relax.build import build_module
from passfuzz.run.builds import BuildError, parse_build
from passfuzz.run.execute import run_side
from passfuzz.run.targets import unavailable_reason
from strategies import dlight_rule_sequences
from tests.test_schedules import PROGRAM

DLIGHT = parse_build("dlight=random")
CUDA = tvm.target.Target({"kind": "cuda", "arch": "sm_80"})  # compiled for, never run: no device needed
DEFAULT_RULES = ("Matmul", "GEMV", "Reduction", "GeneralReduction")  # relax.backend.cuda.pipeline's order


def _kernels(mod):
    return {gv.name_hint: func for gv, func in mod.functions.items() if isinstance(func, tvm.tirx.PrimFunc)}


def _lowered(pipeline):
    with CUDA:
        return pipeline(build_module(PROGRAM))


def test_dlight_random_parses_and_keeps_its_rules_outside_the_text():
    assert DLIGHT.text == "dlight=random" and parse_build(DLIGHT.text) == DLIGHT
    assert DLIGHT.with_dlight(["GEMV"]).as_dict() == {"dlight_rules": ("GEMV",)}
    assert DLIGHT.with_dlight([]).as_dict() == {"dlight_rules": ()}  # Fallback alone, not the default
    assert DLIGHT.default_schedules == parse_build("")
    with pytest.raises(BuildError):
        parse_build("dlight=random,schedule=random")


def test_the_default_rules_give_the_default_gpu_pipeline_and_fallback_alone_another_schedule():
    default = _lowered(relax.get_default_pipeline(CUDA))
    same = _lowered(dlight_rules.gpu_pipeline(CUDA, DEFAULT_RULES))
    fallback = _lowered(dlight_rules.gpu_pipeline(CUDA, ()))
    assert same.script() == default.script()  # the control: only the rules differ
    assert _kernels(fallback)["matmul"].script() != _kernels(default)["matmul"].script()


@settings(max_examples=10, deadline=None)
@given(dlight_rule_sequences())
def test_drawn_rules_schedule_every_kernel_onto_gpu_threads(rules):
    kernels = _kernels(_lowered(dlight_rules.gpu_pipeline(CUDA, rules)))
    assert {"matmul", "sum"} <= set(kernels)
    for name, func in kernels.items():  # bound to threads, as VerifyMemory requires of a GPU kernel
        assert "threadIdx" in func.script() or "blockIdx" in func.script(), (rules, name)


@pytest.mark.skipif(unavailable_reason("cuda") is not None, reason=f"no CUDA here: {unavailable_reason('cuda')}")
@settings(max_examples=5, deadline=None)
@given(dlight_rule_sequences())
def test_drawn_rules_compute_what_the_default_rules_compute_on_a_gpu(rules):
    plain = run_side(PROGRAM, [], ["cuda"], timeout=120)
    alternative = run_side(PROGRAM, [], ["cuda"], timeout=120, build=DLIGHT.with_dlight(rules))
    assert plain.ok and alternative.ok, (rules, alternative.error)
    np.testing.assert_allclose(alternative.outputs["cuda"][0], plain.outputs["cuda"][0], rtol=1e-4, atol=1e-4)


@pytest.mark.skipif(unavailable_reason("cuda") is None, reason="a GPU target runs here")
def test_dlight_random_without_a_gpu_target_is_a_usage_error(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
    ran = subprocess.run([sys.executable, "-m", "passfuzz", "--build", "dlight=random", "--targets", "llvm",
                          "--max-examples", "1", "--corpus", str(tmp_path)], capture_output=True, text=True,
                         timeout=300, env=env)
    assert ran.returncode == 2 and "no GPU target runs here" in ran.stderr, ran.stderr
    assert ran.stderr.strip().count("\n") == 0 and not list(tmp_path.glob("*.json"))

"""Build variants of the optimized side: parsing, and each variant compiling and running for real."""

import numpy as np
import pytest

from passfuzz.ir.program import Node, Param, Program
from passfuzz.run import execute
from passfuzz.run.builds import PLAIN_BUILD, Build, BuildError, parse_build
from passfuzz.run.execute import run_side
from passfuzz.run.targets import unavailable_reason

PROGRAM = Program((Param((2, 3), "float32", -4, 4, [[0.5, -1.0, 2.0], [3.0, -4.0, 0.0]]),
                   Node("exp", (0,)), Node("permute_dims", (1,), {"axes": [1, 0]}),
                   Node("sum", (2,), {"axis": [0], "keepdims": False})), (3,))


def test_build_spec_round_trips_through_its_text():
    build = parse_build("export, exec-mode=compiled,opt-level=0,pipeline=target,mcpu=host")
    assert build == Build(pipeline="target", opt_level=0, mcpu="host", exec_mode="compiled", export=True)
    assert parse_build(build.text) == build
    assert build.as_dict() == {"pipeline": "target", "opt_level": 0, "mcpu": "host", "exec_mode": "compiled",
                               "export": True}
    assert parse_build("") == PLAIN_BUILD and PLAIN_BUILD.text == "" and PLAIN_BUILD.as_dict() == {}


@pytest.mark.parametrize("text", ["opt-level=4", "exec-mode=jit", "codegen=cuda", "export=1", "fusion",
                                  "codegen=c,exec-mode=compiled", "codegen=c,pipeline=target", "codegen=c,mcpu=host"])
def test_bad_build_specs_are_one_line_errors(text):
    with pytest.raises(BuildError) as error:
        parse_build(text)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("text", ["pipeline=target", "opt-level=0", "mcpu=host", "exec-mode=compiled", "export",
                                  "exec-mode=compiled,export", "codegen=c", "codegen=c,export"])
def test_each_build_compiles_runs_and_agrees_with_the_plain_build(text):
    build = parse_build(text)
    if build.codegen == "c" and unavailable_reason("c"):
        pytest.skip(unavailable_reason("c"))
    plain = run_side(PROGRAM, [], ["llvm"], timeout=120)
    variant = run_side(PROGRAM, [], ["llvm"], timeout=120, build=build)
    assert plain.ok and variant.ok, (plain, variant)
    np.testing.assert_allclose(variant.outputs["llvm"][0], plain.outputs["llvm"][0], rtol=1e-6)


def test_the_original_side_ignores_the_build(monkeypatch):
    real_load = execute.load

    def refuse_variants(mod, target, build):
        if build:
            raise RuntimeError(f"compiled with {build}")
        return real_load(mod, target, build)

    monkeypatch.setattr(execute, "load", refuse_variants)  # the forked sides inherit the patch
    build = Build(exec_mode="compiled")
    assert run_side(PROGRAM, None, ["llvm"], timeout=120, build=build).ok  # passes=None: the original side
    optimized = run_side(PROGRAM, [], ["llvm"], timeout=120, build=build)
    assert optimized.stage == "compile:llvm" and "{'exec_mode': 'compiled'}" in optimized.error

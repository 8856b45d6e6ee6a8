"""--targets: parsing target strings with options, detection of what runs here, and the GPU paths
(which run where a device exists and skip here with the reason detection gives)."""

import numpy as np
import pytest
import tvm

from passfuzz.campaign.parallel import worker_start_method
from passfuzz.ir.program import Node, Param, Program
from passfuzz.portable.standalone import GPU_KINDS, target_config
from passfuzz.run.execute import run_side
from passfuzz.run.targets import (
    KNOWN_KINDS,
    TargetError,
    default_targets,
    needs_fresh_process,
    parse_targets,
    split_targets,
    unavailable_reason,
)

PROGRAM = Program((Param((2, 3), "float32", -4, 4, [[0.5, -1.0, 2.0], [3.0, -4.0, 0.0]]),
                   Node("exp", (0,)), Node("sum", (1,), {"axis": [1], "keepdims": False})), (2,))


@pytest.mark.parametrize("text, expected", [
    ("llvm", ["llvm"]),
    ("llvm,c", ["llvm", "c"]),
    ("llvm , c", ["llvm", "c"]),
    ("llvm -mcpu=skylake -mattr=+avx2,+fma,c", ["llvm -mcpu=skylake -mattr=+avx2,+fma", "c"]),
    ("cuda -arch=sm_80,llvm  -opt-level=0", ["cuda -arch=sm_80", "llvm -opt-level=0"]),
    ("rocm -mattr=+a,+b,vulkan -supports_float16", ["rocm -mattr=+a,+b", "vulkan -supports_float16"]),
    ("llvm,llvm", ["llvm"]),
])
def test_target_lists_with_options_parse(text, expected):
    assert parse_targets(text) == expected


def test_options_become_typed_config_entries():
    assert target_config("llvm -mcpu=skylake -opt-level=2 -mattr=+avx2,+fma -fast-math") == {
        "kind": "llvm", "mcpu": "skylake", "opt-level": 2, "mattr": ["+avx2", "+fma"], "fast-math": True}
    assert target_config("cuda -arch=sm_80") == {"kind": "cuda", "arch": "sm_80"}
    assert target_config("vulkan -supports_float16=false") == {"kind": "vulkan", "supports_float16": False}
    assert tvm.target.Target(target_config("cuda -arch=sm_80")).attrs["arch"] == "sm_80"


@pytest.mark.parametrize("text, expected", [
    ("quantum", "unknown target kind 'quantum'"),
    ("llvm,nvptx", "unknown target kind 'nvptx'"),
    ("llvm -mcpu=skylake,haswell", "unknown target kind 'haswell'"),  # mcpu is no list option
    ("llvm -bogus=1", "llvm has no option '-bogus=1'"),
    ("llvm mcpu=skylake", "llvm has no option 'mcpu=skylake'"),
    ("llvm -opt-level=high", "opt-level takes int"),
    ("cuda -arch", "arch takes str"),
    ("llvm -mcpu=nosuchcpu", "LLVM knows no CPU 'nosuchcpu'"),
    ("llvm,,c", "empty target"),
])
def test_bad_targets_are_one_line_errors(text, expected):
    with pytest.raises(TargetError) as error:
        parse_targets(text)
    assert expected in str(error.value) and "\n" not in str(error.value)


def test_every_known_kind_is_runnable_or_has_a_reason():
    for kind in KNOWN_KINDS:
        reason = unavailable_reason(kind)
        assert reason is None or (reason and "\n" not in reason), (kind, reason)
        if kind in GPU_KINDS and not tvm.runtime.enabled(kind):
            assert reason == f"this TVM build has no {kind} runtime"
    assert unavailable_reason("llvm") is None  # every machine passfuzz supports has LLVM
    assert "llvm" in default_targets() and "c" not in default_targets()
    assert default_targets() == [k for k in ("llvm",) + GPU_KINDS if unavailable_reason(k) is None]


def test_an_mcpu_this_cpu_cannot_execute_is_skipped_with_the_instructions_it_lacks():
    cpu = tvm.target.codegen.llvm_get_system_cpu()
    host = set(tvm.target.codegen.llvm_get_cpu_features(tvm.target.Target({"kind": "llvm", "mcpu": cpu})))
    if "amx-tile" in host:
        pytest.skip("this CPU has AMX: no x86 CPU LLVM knows has instructions it lacks")
    reason = unavailable_reason("llvm -mcpu=sapphirerapids")
    assert reason is not None and "amx-tile" in reason
    assert unavailable_reason(f"llvm -mcpu={cpu}") is None


def test_two_llvm_configurations_are_distinct_targets_that_both_run():
    targets = parse_targets("llvm,llvm -opt-level=0 -mcpu=x86-64")
    outcome = run_side(PROGRAM, None, targets, timeout=120)
    assert outcome.ok and list(outcome.outputs) == targets, outcome
    np.testing.assert_allclose(outcome.outputs[targets[1]][0], outcome.outputs["llvm"][0], rtol=1e-5)


def test_gpu_targets_take_the_fresh_process_path_cpu_targets_fork(monkeypatch):
    monkeypatch.delenv("PASSFUZZ_ISOLATION", raising=False)
    assert not needs_fresh_process(["llvm", "c", "llvm -mcpu=skylake"])
    assert worker_start_method(["llvm", "c"]) == "fork"
    for kind in GPU_KINDS:
        assert needs_fresh_process(["llvm", f"{kind}"])
        assert worker_start_method([kind]) == "spawn"
    monkeypatch.setenv("PASSFUZZ_ISOLATION", "fresh")
    assert needs_fresh_process(["llvm"]) and worker_start_method(["llvm"]) == "spawn"


@pytest.mark.parametrize("kind", GPU_KINDS)
def test_gpu_side_compiles_with_its_pipeline_and_agrees_with_llvm(kind):
    reason = unavailable_reason(kind)
    if reason is not None:
        pytest.skip(f"{kind}: {reason}")
    from passfuzz.judge.trial import check
    from passfuzz.passes.names import resolve

    outcome = run_side(PROGRAM, None, ["llvm", kind], timeout=300)
    assert outcome.ok, outcome
    verdict, optimized = check(PROGRAM, [resolve("FoldConstant")], ["llvm", kind], timeout=300)
    assert verdict.finding is None and not verdict.generator_defect, verdict
    assert set(optimized.outputs) == {"llvm", kind}


def test_split_keeps_list_option_commas_only_after_a_list_option():
    assert split_targets("llvm -mattr=+avx2,+fma") == ["llvm -mattr=+avx2,+fma"]
    assert split_targets("llvm -mcpu=skylake,c") == ["llvm -mcpu=skylake", "c"]

"""A reproducer copies only the build code its finding's build uses: the plain build is
``tvm.compile``; any other is ``standalone.compile_with`` with exactly the steps
``standalone.steps_for`` picks (each the real function), and nothing of the other features."""

import dataclasses
import inspect
import json
import re
import shutil
import subprocess
import sys

import pytest

from passfuzz.findings.reproducer import module_text, render_script
from passfuzz.judge.trial import check
from passfuzz.passes.names import resolve_list
from passfuzz.portable import standalone
from passfuzz.run.builds import parse_build, recorded_build

from .conftest import ROOT
from .test_reproducer import ENV, NEGATE, PLANTED, assert_fixed, assert_reproduces, run_scripts

ALL_STEPS = [step for steps in standalone.STEPS.values() for step in steps]
# What each feature copies beside its step: none of it may appear in a script that does not use it.
FEATURE_CODE = {"target_options": "def target_config(", "dlight_pipeline": "def gpu_pipeline(",
                "scheduled_pipeline": "def schedule_pass(", "tuned_pipeline": "def records_pass("}
BUDGET = 81  # non-blank lines of a script for a small module, whatever its build (schedules aside; the hook set again after the imports is one)


def step_names(steps: dict) -> set[str]:
    return {step.__name__ for chosen in steps.values() for step in chosen}


def defined_steps(text: str) -> set[str]:
    return {step.__name__ for step in ALL_STEPS if re.search(rf"^def {step.__name__}\(", text, re.M)}


def union_of_steps(targets, build: dict, closures: bool = False) -> dict:
    """The steps of every one of ``targets`` (a target mismatch compiles for two), per phase."""
    chosen = {phase: [step for step in steps
                      if any(step in standalone.steps_for(t, build, closures).get(phase, ()) for t in targets)]
              for phase, steps in standalone.STEPS.items()}
    return {phase: steps for phase, steps in chosen.items() if steps}


def non_blank(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())


def assert_copies_only_its_steps(text: str, steps: dict) -> None:
    assert defined_steps(text) == step_names(steps), (step_names(steps), text)
    for step in (step for chosen in steps.values() for step in chosen):
        assert inspect.getsource(step) in text  # the real step, not a second implementation
    for name, code in FEATURE_CODE.items():
        assert (code in text) == (name in step_names(steps)), (name, text)
    assert "def compile_with(" in text or not steps


@pytest.mark.parametrize("target, build, closures, expected", [
    ("llvm", {}, False, set()),
    ("llvm", {"pipeline": "target"}, False, {"target_pipeline"}),
    ("llvm", {"pipeline": "target"}, True, {"lift_closures", "target_pipeline"}),
    ("llvm -mcpu=skylake", {"opt_level": 2, "export": True}, False, {"target_options", "llvm_options", "exported"}),
    ("llvm", {"codegen": "c", "opt_level": 2}, False, {"c_codegen"}),  # LLVM's options do not apply to C
    ("llvm", {"schedule": "random", "schedule_steps": (("split", (0, 0, 0, 0)),)}, False, {"scheduled_pipeline"}),
    ("llvm", {"tune_records": (("matmul", "[]"),)}, False, {"tuned_pipeline"}),
    ("cuda -arch=sm_80", {}, False, {"target_options", "target_pipeline"}),  # a GPU always takes its pipeline
    ("cuda", {"dlight_rules": ("Matmul",)}, False, {"target_pipeline", "dlight_pipeline"}),
    ("llvm", {"dlight_rules": ("Matmul",)}, False, set()),  # dlight schedules GPU kernels only
])
def test_steps_for_picks_the_steps_of_what_the_target_and_build_name(target, build, closures, expected):
    steps = standalone.steps_for(target, build, closures)
    assert step_names(steps) == expected
    for phase, chosen in steps.items():  # in compile_with's order, never an empty phase
        assert chosen and chosen == [step for step in standalone.STEPS[phase] if step in chosen]


SCHEDULED = parse_build("schedule=random").with_schedule([("split", (0, 0, 0, 0))])


# Each build shape a finding can have on a CPU: its script runs, reproduces the planted wrong
# rewrite, is fixed with the corrected one, and copies the steps of its build alone.
@pytest.mark.parametrize("build, closures", [
    (parse_build(""), False),
    (parse_build("pipeline=target"), False),
    (parse_build("pipeline=target"), True),
    (parse_build("opt-level=2,mcpu=host"), False),
    (parse_build("exec-mode=compiled,export"), False),
    (parse_build("codegen=c"), False),
    (SCHEDULED, False),
])
def test_a_script_runs_reproduces_and_copies_only_its_builds_steps(tmp_path, build, closures):
    passes = resolve_list(f"{PLANTED}scaled_negative(2.0)")
    verdict, optimized = check(NEGATE, passes, ["llvm"], timeout=120)
    assert verdict.finding is not None and verdict.finding.kind == "wrong-result", verdict
    optimized = dataclasses.replace(optimized, closures=closures)  # lifting a module without closures is a no-op
    script = tmp_path / "script.py"
    text = render_script(NEGATE, passes, verdict.finding, module_text(NEGATE, passes), ["llvm"], 60, optimized, build)
    script.write_text(text)
    steps = standalone.steps_for("llvm", build.as_dict(), closures)
    assert_copies_only_its_steps(text, steps)
    if not steps:
        assert "executable = tvm.compile(" in text and "def compile_with(" not in text
    if build is not SCHEDULED:
        assert non_blank(text) <= BUDGET, text
    twin = tmp_path / "fixed.py"
    twin.write_text(text.replace("scaled_negative(2.0)", "scaled_negative(1.0)"))
    bug, fixed = run_scripts(script, twin)
    assert_reproduces(bug, "wrong-result")
    assert_fixed(fixed)


def test_a_gpu_script_copies_its_pipeline_and_dlight_rules_and_nothing_of_schedules_or_tuning():
    """Rendered only (no GPU here): the dlight steps and rules, the target's options."""
    passes = resolve_list(f"{PLANTED}scaled_negative(2.0)")
    verdict, optimized = check(NEGATE, passes, ["llvm"], timeout=120)
    build = parse_build("dlight=random").with_dlight(["Matmul", "Fallback"])
    target = "cuda -arch=sm_80"
    text = render_script(NEGATE, passes, verdict.finding, module_text(NEGATE, passes), [target], 60, optimized, build)
    assert_copies_only_its_steps(text, standalone.steps_for(target, build.as_dict()))
    assert "compile_with(mod, 'cuda -arch=sm_80'" in text


def test_a_target_mismatch_script_copies_the_steps_of_both_targets():
    passes = resolve_list(f"{PLANTED}scaled_negative(2.0)")
    verdict, optimized = check(NEGATE, passes, ["llvm"], timeout=120)
    finding = dataclasses.replace(verdict.finding, kind="target-mismatch")
    targets = ["llvm", "llvm -mcpu=skylake"]
    build = parse_build("pipeline=target")
    text = render_script(NEGATE, passes, finding, module_text(NEGATE, passes), targets, 60, optimized, build)
    assert_copies_only_its_steps(text, union_of_steps(targets, build.as_dict()))
    assert "[sys.argv[1]]" in text  # each child compiles with its own target's steps


@pytest.mark.parametrize("record", sorted((ROOT / "corpus").glob("*.json")), ids=lambda path: path.stem)
def test_each_corpus_script_copies_only_the_steps_its_records_build_needs(record):
    data = json.loads(record.read_text())
    text = record.with_suffix(".py").read_text()
    if "def compile_with(" not in text:  # the plain build, or nothing compiled (a pass error, ill-formed)
        assert not defined_steps(text) and not any(code in text for code in FEATURE_CODE.values())
        return
    targets = data["targets"][:2] if data["kind"] == "target-mismatch" else data["targets"][:1]
    assert_copies_only_its_steps(text, union_of_steps(targets, recorded_build(data).as_dict(),
                                                      "def lift_closures(" in text))


def test_a_schedule_finding_is_its_kernel_and_tvms_schedule_calls(tmp_path):
    """A real TVM defect (vectorize, cache_write, reverse_compute_at give a wrong result): its
    script is the PrimFunc, the schedule's calls and the comparison, and it reproduces."""
    for suffix in (".json", ".py", ".md"):
        shutil.copy(ROOT / "corpus" / f"wrong-result-b894fe0381b2{suffix}", tmp_path)
    rewrite = subprocess.run([sys.executable, "-m", "passfuzz", "replay", "--rewrite", str(tmp_path)], cwd=ROOT,
                             capture_output=True, text=True, timeout=300, env=ENV)
    assert "rewritten" in rewrite.stdout, rewrite
    script = tmp_path / "wrong-result-b894fe0381b2.py"
    text = script.read_text()
    assert "@T.prim_func" in text and "sch.vectorize(loop=" in text and "sch.cache_write(" in text, text
    assert "R.function" not in text and "compile_with" not in text and "\ndef " not in text.split("sch = ", 1)[1]
    assert non_blank(text) <= BUDGET, text
    result, = run_scripts(script)
    assert_reproduces(result, "wrong-result")
    assert "the scheduled add differs from the unscheduled one" in result.stdout

"""A valid module whose plain build fails is blamed on the pass of TVM's build pipeline without
which it runs and matches numpy, not on the generator; its reproducer shows tvm.compile failing
and names the pass. A defect planted in one pipeline pass (tests.planted_pipeline) is found so;
a correct pipeline gives nothing; a pass the build cannot do without is never blamed."""

import json
import os
import subprocess
import sys

import pytest
from tvm import relax

from passfuzz.campaign.engine import FindingError, FuzzConfig, Fuzzer
from passfuzz.cli.replay import replay_one
from passfuzz.findings import corpus
from passfuzz.ir.program import Node, Param, Program
from passfuzz.judge.finding import fingerprint, normalize_error
from passfuzz.judge.pipeline_blame import candidates
from passfuzz.judge.trial import check
from passfuzz.run.builds import parse_build
from passfuzz.run.execute import Outcome, run_side

from .conftest import ROOT
from .planted_pipeline import planted

X = Param((2, 3), "float32", -1, 1, [[0.5, -0.25, 0.0], [1.0, -1.0, 0.125]])
Y = Param((2, 3), "float32", -1, 1, [[0.0, 1.0, -0.5], [0.25, 0.5, -1.0]])
# exp is what the planted passes reject; the negative and multiply are what reduction drops.
PROGRAM = Program((X, Y, Node("negative", (1,)), Node("exp", (0,)), Node("add", (3, 2)), Node("multiply", (4, 1))),
                  (5,))


# The same computation inside a closure: the build lifts it first (LambdaLift), and the watch must
# still see the pipeline's passes.
CLOSURE = Program((X, Y, Node("call", (0, 1), {"local": True, "body": {
    "values": [{"op": "negative", "args": [1], "attrs": {}}, {"op": "exp", "args": [0], "attrs": {}},
               {"op": "add", "args": [3, 2], "attrs": {}}], "outputs": [4]}})), (2,))


@pytest.mark.parametrize("program", [PROGRAM, CLOSURE], ids=["main", "closure"])
def test_a_defect_planted_in_a_pipeline_pass_is_blamed_on_that_pass_not_the_generator(monkeypatch, program):
    monkeypatch.setattr(relax.transform, "KillAfterLastUse", planted("KillAfterLastUse"))
    verdict, _ = check(program, [], ["llvm"], 60)
    finding = verdict.finding
    assert not verdict.generator_defect and finding is not None, verdict
    assert (finding.kind, finding.pipeline_pass, finding.stage) == \
        ("pipeline-error", "KillAfterLastUse", "compile:llvm")
    assert finding.passes == () and not finding.blamed  # TVM's own build is at fault, not a pass under test
    assert "planted defect" in finding.signature and "without KillAfterLastUse" in finding.message


@pytest.mark.parametrize("program", [PROGRAM, CLOSURE], ids=["main", "closure"])
def test_a_correct_pipeline_gives_no_finding_and_tells_which_of_its_passes_changed_the_module(program):
    verdict, _ = check(program, [], ["llvm"], 60)
    assert verdict.finding is None and not verdict.generator_defect
    outcome = run_side(program, None, ["llvm"], 60)
    assert outcome.ok and outcome.pipeline_pass == ""
    changed = set(outcome.pipeline_changed)
    assert {"LegalizeOps", "CallTIRRewrite", "StaticPlanBlockMemory", "KillAfterLastUse"} <= changed
    assert "DispatchSampling" not in outcome.pipeline_changed  # nothing to dispatch: no effect to blame


def test_a_failing_pass_the_build_cannot_do_without_stays_a_generator_defect(monkeypatch):
    # Without LegalizeOps nothing compiles, so the bisection can never show the module is fine.
    from .planted_pipeline import _real
    monkeypatch.setitem(_real, "LegalizeOps", relax.transform.LegalizeOps)
    monkeypatch.setattr(relax.transform, "LegalizeOps", planted("LegalizeOps"))
    verdict, _ = check(PROGRAM, [], ["llvm"], 60)
    assert verdict.finding is None and "planted defect: LegalizeOps" in verdict.generator_defect


def test_the_target_pipeline_names_the_pass_a_compile_fails_in_and_keeps_its_fingerprint(monkeypatch):
    monkeypatch.setattr(relax.transform, "FuseOps", planted("FuseOps"))
    build = parse_build("pipeline=target")
    verdict, optimized = check(PROGRAM, [], ["llvm"], 60, build)  # the plain build never runs FuseOps
    finding = verdict.finding
    assert (finding.kind, finding.pipeline_pass, optimized.pipeline_pass) == ("compile-error", "FuseOps", "FuseOps")
    assert "at compile:llvm in FuseOps: ValueError: planted defect" in finding.message
    assert finding.fingerprint == fingerprint("compile-error", (), normalize_error(optimized.error), build)[0]


def _plant_for_scripts(tmp_path) -> dict:
    """An environment whose every Python process (a script and the child it starts) has the plant."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import tests.planted_pipeline as p\np.plant()\n")
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))


def test_the_reproducer_shows_tvm_compile_failing_and_names_the_pass_and_reduction_keeps_the_fingerprint(
        monkeypatch, tmp_path):
    monkeypatch.setattr(relax.transform, "KillAfterLastUse", planted("KillAfterLastUse"))
    verdict, _ = check(PROGRAM, [], ["llvm"], 60)
    fuzzer = Fuzzer(FuzzConfig(passes=[], targets=["llvm"], corpus_dir=tmp_path, reduce_seconds=60))
    path = fuzzer.reduce_and_save(FindingError(verdict.finding, PROGRAM))
    record = json.loads(path.read_text())
    assert (record["kind"], record["fingerprint"], record["pipeline_pass"]) == \
        ("pipeline-error", verdict.finding.fingerprint, "KillAfterLastUse")
    assert corpus.load(path).program.op_counts() == {"exp": 1}  # reduced to what the planted pass rejects
    assert str(path) in fuzzer.stats.unblamed.values()  # a bug of TVM's build, not of a pass under test

    script = path.with_suffix(".py")
    text = script.read_text()
    assert "tvm.compile(Module, 'llvm')" in text and "disabled_pass=['KillAfterLastUse']" in text
    with_bug = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=_plant_for_scripts(tmp_path),
                              capture_output=True, text=True, timeout=300)
    assert with_bug.returncode == 1, with_bug
    assert with_bug.stdout.startswith("BUG REPRODUCES (pipeline-error): tvm.compile's module fails at compile:llvm")
    assert "planted defect" in with_bug.stdout
    assert "without KillAfterLastUse it runs and matches numpy" in with_bug.stdout
    fixed = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert fixed.returncode == 0 and fixed.stdout.startswith("fixed"), fixed

    assert replay_one(path, 60)[0] == "REPRODUCES"
    monkeypatch.undo()
    assert replay_one(path, 60)[0] == "FIXED"


@pytest.mark.parametrize("record", sorted((ROOT / "corpus").glob("pipeline-*.json")), ids=lambda p: p.stem)
def test_the_corpus_pipeline_findings_blame_a_real_pipeline_pass(record):
    entry = corpus.load(record)
    verdict, _ = check(entry.program, [], entry.record["targets"], 60)
    assert verdict.finding.fingerprint == entry.record["fingerprint"]
    assert verdict.finding.pipeline_pass == entry.record["pipeline_pass"]


def test_passes_that_change_only_the_form_are_tried_after_the_passes_that_compute():
    # A run-time crash (no pass failed): leaving out RewriteDataflowReshape or ToNonDataflow changes
    # what StaticPlanBlockMemory plans, so the planner itself is tried before them.
    changed = ("LegalizeOps", "RewriteDataflowReshape", "ToNonDataflow", "RemovePurityChecking", "CallTIRRewrite",
               "StaticPlanBlockMemory", "KillAfterLastUse")
    order = candidates(Outcome("crash", "run:llvm", "SIGSEGV", pipeline_changed=changed))
    assert sorted(order) == sorted(changed)
    assert order.index("StaticPlanBlockMemory") < order.index("RewriteDataflowReshape")
    assert order.index("StaticPlanBlockMemory") < order.index("ToNonDataflow")
    # The pass a compile failed in is still tried first, a form-only one included.
    first = candidates(Outcome("crash", "compile:llvm", "SIGSEGV", pipeline_pass="RewriteDataflowReshape",
                               pipeline_changed=changed[:1]))
    assert first[0] == "RewriteDataflowReshape"

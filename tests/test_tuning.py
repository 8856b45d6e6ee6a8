"""--build tune=N: a real MetaSchedule tuning of the kernels, applied with MetaScheduleApplyDatabase,
against the untuned build."""

import json
import subprocess
import sys

import numpy as np
import pytest
import tvm
from tvm import relax

from passfuzz.campaign.engine import FuzzConfig, Fuzzer
from passfuzz.judge.trial import check
from passfuzz.portable import tuning_records
from passfuzz.relax.build import build_module
from passfuzz.run.builds import BuildError, parse_build
from passfuzz.run.execute import run_side
from tests.test_schedules import PROGRAM

pytest.importorskip("psutil")  # MetaSchedule's runner needs it (the test extra installs it)

TUNE = parse_build("tune=2")


def test_tune_parses_and_keeps_its_trials_and_directory_out_of_the_reproducer():
    assert TUNE.text == "tune=2" and parse_build(TUNE.text) == TUNE and TUNE.default_schedules == parse_build("")
    tuned = TUNE.with_tune_records([("matmul", [[], []])])
    assert tuned.as_dict() == {"tune_records": (("matmul", [[], []]),)}
    for bad in ("tune=0", "tune=x", "tune=2,schedule=random", "tune=2,codegen=c"):
        with pytest.raises(BuildError):
            parse_build(bad)


def test_a_tuned_build_applies_what_the_tuning_chose_and_computes_what_the_untuned_one_does():
    plain = run_side(PROGRAM, [], ["llvm"], timeout=120)
    tuned = run_side(PROGRAM, [], ["llvm"], timeout=120, build=TUNE)
    assert plain.ok and tuned.ok, tuned.error + tuned.log
    assert [kernel for kernel, _ in tuned.tune_records] == ["matmul", "sum"]
    json.dumps(tuned.tune_records)  # plain data: a record and a script hold it
    np.testing.assert_allclose(tuned.outputs["llvm"][0], plain.outputs["llvm"][0], rtol=1e-5, atol=1e-5)
    # the records change the kernels the pipeline leaves (tuned schedules, not the default ones)
    target = tvm.target.Target("llvm")
    lowered = relax.get_pipeline("default")(build_module(PROGRAM))
    applied = tuning_records.apply_records(lowered, tuned.tune_records, target)
    assert applied["matmul"].script() != lowered["matmul"].script()


def test_a_planted_wrong_database_application_blames_the_tuned_build(tmp_path, monkeypatch):
    from tests import planted_tuning
    monkeypatch.setattr(relax.transform, "MetaScheduleApplyDatabase",
                        planted_tuning.apply_database_initialising_wrongly)
    verdict, optimized = check(PROGRAM, [], ["llvm"], 120, TUNE)
    finding = verdict.finding
    assert finding is not None and "@ tune=2" in finding.signature, verdict
    assert finding.tune_records and optimized.tune_records == finding.tune_records
    fuzzer = Fuzzer(FuzzConfig(passes=[], targets=["llvm"], corpus_dir=tmp_path, build=TUNE))
    path = fuzzer.save(finding, PROGRAM, [], shrunk=True, optimized=optimized)
    record = json.loads(path.with_suffix(".json").read_text())
    assert record["build"] == "tune=2" and [r[0] for r in record["tune_records"]] == ["matmul", "sum"]
    script = path.with_suffix(".py")
    text = script.read_text()
    assert "MetaScheduleApplyDatabase" in text and "records_pass" in text  # the database, applied as data
    # The script applies the records with TVM's real pass (the plant is not in it): fixed.
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0 and "fixed" in ran.stdout, ran.stdout + ran.stderr

"""The record: a finding as a corpus saves it (``<id>.json``, checked against
``schemas/finding.schema.json``), built from a Finding here and nowhere else, by a fuzzing run
(passfuzz.campaign.engine) and by ``passfuzz replay --rewrite`` (which refreshes what the run
that reproduced it saw and keeps the record's identity)."""

from __future__ import annotations

import datetime
from typing import Sequence

import tvm

from passfuzz import __version__
from passfuzz.ir.program import Program
from passfuzz.judge.finding import Finding
from passfuzz.passes.names import PassSpec
from passfuzz.run.targets import default_targets

from .corpus import FORMAT_VERSION, finding_id
from .environment import environment
from .reproducer import module_text

LOG_CHARACTERS = 4000  # the tail of a finding's log a record keeps


def observed(finding: Finding, program: Program, passes: Sequence[PassSpec]) -> dict:
    """What a record holds of the run that showed the finding: refreshed by every rewrite."""
    fields = {"passes": [spec.text for spec in passes], "message": finding.message,
              "log": finding.log[-LOG_CHARACTERS:], "environment": environment(),
              "module": module_text(program, passes)}
    if finding.pipeline_pass:  # the pipeline pass it blames, or the one its compile failed in
        fields["pipeline_pass"] = finding.pipeline_pass
    return fields


def new_record(finding: Finding, program: Program, passes: Sequence[PassSpec], *, build: str,
               targets: Sequence[str], seed: int | None, shrunk: bool, minimal: bool = False,
               slowdown_threshold: float | None = None) -> dict:
    """The record of a finding first saved: its identity, the example, and what its build drew
    (schedule steps, tuning records, dlight rules: the build text alone does not rebuild them)."""
    drawn = finding.to_json()
    record = {
        "format_version": FORMAT_VERSION, "id": finding_id(finding.kind, finding.fingerprint), "kind": finding.kind,
        "fingerprint": finding.fingerprint, "signature": finding.signature, "stage": finding.stage,
        "build": build, "targets": list(targets), "tvm_version": tvm.__version__, "passfuzz_version": __version__,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "seed": seed, "shrunk": shrunk, "program": program.to_json(), **observed(finding, program, passes),
    }
    if minimal:  # a wrong result's ops are then its trigger (passfuzz.judge.finding)
        record["minimal"] = True
    for key in ("schedule", "tune_records"):
        if drawn[key]:
            record[key] = drawn[key]
    if drawn["dlight_rules"] is not None:
        record["dlight_rules"] = drawn["dlight_rules"]
    if drawn["pass_config"]:  # config=random: the PassContext configuration, reduced to the fewest keys
        record["pass_config"] = drawn["pass_config"]
    if slowdown_threshold is not None:  # what replay and the script judge a slowdown by
        record["slowdown_threshold"] = slowdown_threshold
    if finding.outside_contract:
        record["outside_contract"] = finding.outside_contract
    if finding.variant_of:
        record["variant_of"] = finding.variant_of
    return record


def rewritten(record: dict, finding: Finding, program: Program, passes: Sequence[PassSpec]) -> dict:
    """``record`` with what the run that just reproduced it saw."""
    return {**record, **observed(finding, program, passes)}


def unoptimized_on_target(record: dict) -> bool:
    """A failure of the unoptimized module on a target after the first, which built and ran it
    (``judge.oracle.target_failure``): no pass, no pipeline pass, no build of its own."""
    return (record["kind"] in ("compile-error", "runtime-error", "crash", "hang") and not record["passes"]
            and not record.get("pipeline_pass") and not record.get("build")
            and record.get("stage", "").startswith(("compile:", "run:")))


def recheck_targets(record: dict) -> list[str]:
    """The targets a record is checked on again (by replay and reduce): its own, and before the one
    target of a failure of the unoptimized module there (``unoptimized_on_target``) a target that
    builds and runs modules here; on its target alone that failure reads as a generator defect."""
    targets = list(record["targets"])
    if not unoptimized_on_target(record):
        return targets
    reference = next((target for target in [*default_targets(), "c"] if target not in targets), None)
    return [reference, *targets] if reference else targets

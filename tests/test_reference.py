"""Each op's numpy reference agrees with TVM's unoptimized module on llvm (catalogue correctness),
except where the corpus already holds the disagreement as a known TVM bug."""

import pytest
from hypothesis import HealthCheck, given, settings

from passfuzz.catalogue import OPS
from passfuzz.corpus import known_fingerprints
from passfuzz.execute import run_side
from passfuzz.oracle import probe_program, reference_verdict
from strategies import relax_programs

from .conftest import ROOT

KNOWN = known_fingerprints(ROOT / "corpus")


@pytest.mark.parametrize("op", [op.name for op in OPS if op.propose is not None])
def test_reference_matches_tvm(op):
    @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(relax_programs(ops=[op], max_nodes=2))
    def agree(program):
        outcome = run_side(program, None, ["llvm"], timeout=120)
        assert outcome.ok, outcome
        verdict = reference_verdict(program, outcome)
        if verdict.finding is not None:  # which node disagrees first names the finding
            verdict = reference_verdict(program, outcome, run_side(probe_program(program), None, ["llvm"], 120))
        assert not verdict.generator_defect, verdict
        assert verdict.finding is None or verdict.finding.fingerprint in KNOWN, verdict.finding

    agree()


"""Each op's numpy reference agrees with TVM's unoptimized module on llvm (catalogue correctness),
except where the corpus already holds the disagreement as a known TVM bug. bfloat16 gets a run of
its own: drawn among all dtypes, few of an op's examples would hold it."""

import pytest
from hypothesis import HealthCheck, given, settings

from passfuzz.catalogue import OPS
from passfuzz.cli.ops import first_operand_dtypes
from passfuzz.corpus import known_fingerprints
from passfuzz.execute import run_side
from passfuzz.oracle import probe_program, reference_verdict
from strategies import relax_programs

from .conftest import ROOT

KNOWN = known_fingerprints(ROOT / "corpus")


# bool and int64 besides: masks, conditions and indices.
BFLOAT16_RUN = ("bfloat16", "bool", "int64")


@pytest.mark.parametrize("op, dtypes, examples",
                         [(op.name, None, 8) for op in OPS if op.propose is not None] +
                         [(op.name, BFLOAT16_RUN, 4) for op in OPS
                          if op.propose is not None and "bfloat16" in first_operand_dtypes(op)],
                         ids=lambda v: "bfloat16" if v == BFLOAT16_RUN else "all" if v is None else None)
def test_reference_matches_tvm(op, dtypes, examples):
    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(relax_programs(ops=[op], max_nodes=2, **({"dtypes": dtypes} if dtypes else {})))
    def agree(program):
        outcome = run_side(program, None, ["llvm"], timeout=120)
        assert outcome.ok, outcome
        verdict = reference_verdict(program, outcome)
        if verdict.finding is not None:  # which node disagrees first names the finding
            verdict = reference_verdict(program, outcome, run_side(probe_program(program), None, ["llvm"], 120))
        assert not verdict.generator_defect, verdict
        assert verdict.finding is None or verdict.finding.fingerprint in KNOWN, verdict.finding

    agree()


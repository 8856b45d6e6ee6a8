"""Each op's numpy reference agrees with TVM's unoptimized module on llvm (catalogue correctness),
except where the corpus already holds the disagreement as a known TVM bug. bfloat16 and float64 get
a run of their own each: drawn among all dtypes, few of an op's examples would hold them."""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings

from passfuzz.cli.ops import first_operand_dtypes
from passfuzz.findings.corpus import known_fingerprints
from passfuzz.ir.catalogue import OPS
from passfuzz.ir.program import Node, Param, Program
from passfuzz.judge.oracle import probe_program, reference_verdict
from passfuzz.run.execute import run_side
from strategies import relax_programs

from .conftest import ROOT

KNOWN = known_fingerprints(ROOT / "corpus")


# bool and int64 besides: masks, conditions and indices.
BFLOAT16_RUN = ("bfloat16", "bool", "int64")
FLOAT64_RUN = ("float64", "bool", "int64")


@pytest.mark.parametrize("op, dtypes, examples",
                         [(op.name, None, 8) for op in OPS if op.drawable] +
                         [(op.name, run, 4) for run in (BFLOAT16_RUN, FLOAT64_RUN) for op in OPS
                          if op.drawable and run[0] in first_operand_dtypes(op)],
                         ids=lambda v: v[0] if v in (BFLOAT16_RUN, FLOAT64_RUN) else "all" if v is None else None)
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



# batch_norm in training mode on a 2x2 input: channel 0 holds 1 and 3 (batch mean 2, population
# variance 1), channel 1 holds zeros; each field of the op's tuple is one output.
_BN = {"axis": 1, "epsilon": 1.0, "momentum": 0.25, "center": True, "scale": True}
TRAINING_BATCH_NORM = Program((
    Param((2, 2), "float32", -4, 4, [[1.0, 0.0], [3.0, 0.0]]),
    *(Node("const", (), {"shape": [2], "dtype": "float32", "value": v})
      for v in ([2.0, 1.0], [0.5, -1.0], [10.0, 4.0], [8.0, 2.0])),
    *(Node("batch_norm_training", (0, 1, 2, 3, 4), {**_BN, "index": i}) for i in range(3)),
), (5, 6, 7))


def test_training_batch_norm_through_the_plain_build_matches_values_computed_by_hand():
    outcome = run_side(TRAINING_BATCH_NORM, None, ["llvm"], timeout=120)
    assert outcome.ok, outcome
    out, mean, var = outcome.outputs["llvm"]
    s = 1 / np.sqrt(2)  # (x - 2) / sqrt(1 + epsilon)
    assert np.allclose(out, [[-2 * s + 0.5, -1.0], [2 * s + 0.5, -1.0]], rtol=1e-6)
    assert np.allclose(mean, [0.75 * 10 + 0.25 * 2, 0.75 * 4], rtol=1e-6)  # (1 - momentum) * moving + ...
    assert np.allclose(var, [0.75 * 8 + 0.25 * 1, 0.75 * 2], rtol=1e-6)  # ... momentum * population variance
    assert reference_verdict(TRAINING_BATCH_NORM, outcome).finding is None


def _training_batch_norm_attributes(program) -> set:
    return {(key, node.attrs[key]) for node in program.values if isinstance(node, Node)
            and node.op == "batch_norm_training" for key in ("index", "center", "scale", "momentum")}


def test_training_batch_norm_is_drawn_with_every_field_and_attribute():
    seen = set()

    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), database=None,
              derandomize=True)
    @given(relax_programs(ops=["batch_norm_training"], max_nodes=2, symbolic=False))
    def draw(program):
        seen.update(_training_batch_norm_attributes(program))

    draw()
    wanted = {("index", 0), ("index", 1), ("index", 2), ("center", False), ("scale", False), ("momentum", 0.0),
              ("momentum", 1.0)}
    assert wanted <= seen, wanted - seen


def test_drawn_training_batch_norms_match_numpy_through_the_plain_build():
    @settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(relax_programs(ops=["batch_norm_training"], max_nodes=2))
    def agree(program):
        assume(_training_batch_norm_attributes(program))  # a 0-d first input takes no batch_norm
        outcome = run_side(program, None, ["llvm"], timeout=120)
        assert outcome.ok, outcome
        verdict = reference_verdict(program, outcome)
        assert verdict.finding is None and not verdict.generator_defect, verdict

    agree()

"""Each op's numpy reference agrees with TVM's unoptimized module on llvm (catalogue correctness)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from passfuzz.catalogue import OPS, RTOL, is_float
from passfuzz.execute import run_side
from passfuzz.graph import analyse, evaluate
from strategies import relax_programs


@pytest.mark.parametrize("op", [op.name for op in OPS if op.propose is not None])
def test_reference_matches_tvm(op):
    @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(relax_programs(ops=[op], max_nodes=2))
    def agree(program):
        outcome = run_side(program, None, ["llvm"], timeout=120)
        assert outcome.ok, outcome
        infos = analyse(program)
        for got, want, index in zip(outcome.outputs["llvm"], evaluate(program), program.outputs):
            assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
            if is_float(got.dtype.name):
                tol = 10 * RTOL[got.dtype.name]
                np.testing.assert_allclose(got.astype("float64"), want.astype("float64"), rtol=tol,
                                           atol=tol * max(1.0, infos[index].magnitude))
            else:
                np.testing.assert_array_equal(got, want)

    agree()

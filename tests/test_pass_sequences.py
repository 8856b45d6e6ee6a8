"""The pass-sequence strategy: inside the pass contracts, one convention change at most."""

from hypothesis import HealthCheck, given, settings

from passfuzz.passes.catalogue import fuzzable_pool, info
from passfuzz.passes.contracts import sequence_violation
from strategies import pass_sequences


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(pass_sequences(fuzzable_pool(), max_passes=5))
def test_sequences_stay_inside_the_contracts_with_one_convention_change(passes):
    names = [p.name for p in passes]
    assert passes and sequence_violation(passes) == "", names
    for index, spec in enumerate(passes):
        assert set(info(spec).requires) <= set(names[:index]), names
    drawn_changes = [p for p in passes if info(p).convention != "same"]
    # LazyTransformParams brings LiftTransformParams as its prerequisite: a modelled pair
    assert len(drawn_changes) <= 1 or [p.name for p in drawn_changes] == ["LiftTransformParams", "LazyTransformParams"]

"""The pass-sequence strategy: prerequisites in place, one convention change at most."""

from hypothesis import HealthCheck, given, settings

from passfuzz.pass_catalogue import fuzzable_pool, info
from strategies import pass_sequences


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(pass_sequences(fuzzable_pool(), max_passes=5))
def test_sequences_hold_their_prerequisites_and_one_convention_change(passes):
    names = [p.name for p in passes]
    for index, spec in enumerate(passes):
        assert set(info(spec).requires) <= set(names[:index]), names
        assert info(spec).level != "lowering"
    drawn_changes = [p for p in passes if info(p).convention != "same"]
    # LazyTransformParams brings LiftTransformParams as its prerequisite: a modelled pair
    assert len(drawn_changes) <= 1 or [p.name for p in drawn_changes] == ["LiftTransformParams", "LazyTransformParams"]

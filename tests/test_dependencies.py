"""Canary for the pinned Hypothesis: hypothesis-jsonschema 0.23.1 fails on Hypothesis >= 6.170.10
('many' object has no attribute 'more') for any object schema. When this test passes on a newer
Hypothesis, the pin in pyproject.toml can move."""

from hypothesis import given, settings
from hypothesis_jsonschema import from_schema


@settings(max_examples=20, database=None)
@given(from_schema({"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}}))
def test_hypothesis_jsonschema_draws_objects(document):
    assert isinstance(document["a"], int)

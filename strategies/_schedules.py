"""Schedules as Hypothesis data: a list of (primitive, choices) steps for passfuzz.portable.schedules, and
a sequence of dlight rules for passfuzz.portable.dlight_rules.

The steps shrink toward no steps (the unscheduled kernels), a step toward the first primitive
and toward choices of 0; the rules toward none (dlight's Fallback alone)."""

from hypothesis import strategies as st

from passfuzz.portable.dlight_rules import RULES
from passfuzz.portable.schedules import CHOICES, PRIMITIVES


def schedule_steps(max_steps: int = 6) -> st.SearchStrategy:
    step = st.tuples(st.sampled_from(sorted(PRIMITIVES)),
                     st.tuples(*[st.integers(min_value=0, max_value=15)] * CHOICES))
    return st.lists(step, max_size=max_steps).map(tuple)


def dlight_rule_sequences() -> st.SearchStrategy:
    return st.lists(st.sampled_from(RULES), unique=True, max_size=len(RULES)).map(tuple)

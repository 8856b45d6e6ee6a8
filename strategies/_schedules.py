"""Schedules as Hypothesis data: a list of (primitive, choices) steps for passfuzz.schedules.

The list shrinks toward no steps (the unscheduled kernels), a step toward the first primitive
and toward choices of 0."""

from hypothesis import strategies as st

from passfuzz.schedules import CHOICES, PRIMITIVES


def schedule_steps(max_steps: int = 6) -> st.SearchStrategy:
    step = st.tuples(st.sampled_from(sorted(PRIMITIVES)),
                     st.tuples(*[st.integers(min_value=0, max_value=15)] * CHOICES))
    return st.lists(step, max_size=max_steps).map(tuple)

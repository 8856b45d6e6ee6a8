"""Hypothesis strategies for pass sequences, so that a failing sequence shrinks too."""

from __future__ import annotations

from typing import Sequence

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from passfuzz.pass_catalogue import with_prerequisites
from passfuzz.passes import PassSpec


def pass_sequences(pool: Sequence[str], *, max_passes: int = 4) -> st.SearchStrategy[list[PassSpec]]:
    """Lists of 1 to ``max_passes`` passes drawn from ``pool`` (pass names as on the command line),
    each preceded by the prerequisites it needs (see passfuzz.pass_catalogue).

    Examples from this strategy shrink toward fewer passes and passes earlier in ``pool``."""
    if not pool or max_passes < 1:
        raise InvalidArgument("pass_sequences needs a non-empty pool and max_passes >= 1")
    specs = [PassSpec(name) for name in pool]
    return st.lists(st.sampled_from(specs), min_size=1, max_size=max_passes).map(with_prerequisites)

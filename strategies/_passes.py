"""Hypothesis strategies for pass sequences, so that a failing sequence shrinks too."""

from __future__ import annotations

from typing import Sequence

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from passfuzz.passes.catalogue import info
from passfuzz.passes.contracts import arrange
from passfuzz.passes.names import PassSpec


def pass_sequences(pool: Sequence[str], *, max_passes: int = 4) -> st.SearchStrategy[list[PassSpec]]:
    """Lists of 1 to ``max_passes`` passes drawn from ``pool`` (pass names as on the command line),
    put inside the pass contracts (``passfuzz.passes.contracts.arrange``: in pipeline phase order, each
    preceded by the prerequisites it needs), with at most one pass that changes the calling
    convention of ``main``.

    Examples from this strategy shrink toward fewer passes and passes earlier in ``pool``."""
    if not pool or max_passes < 1:
        raise InvalidArgument("pass_sequences needs a non-empty pool and max_passes >= 1")
    specs = [PassSpec(name) for name in pool]
    return st.lists(st.sampled_from(specs), min_size=1, max_size=max_passes).map(_one_convention_change).map(arrange)


def _one_convention_change(passes: list[PassSpec]) -> list[PassSpec]:
    """Keep only the first pass that changes main's calling convention: passfuzz's adapters model
    each such pass (and LazyTransformParams after its prerequisites), not arbitrary compositions
    of them, and an unmodelled composition is only ever incomparable."""
    kept, seen = [], False
    for spec in passes:
        changes = info(spec).convention != "same"
        if not (changes and seen):
            kept.append(spec)
        seen = seen or changes
    return kept

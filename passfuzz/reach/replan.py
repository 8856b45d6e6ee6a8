"""Re-planning a run whose named pass stays untested: evidence taken during the run.

Focus is a plan made before the first example, from the pass catalogue or a probe. When a named
pass then changes the module in fewer than ``FLOOR`` of the first ``AFTER`` examples it ran in,
the plan was wrong or too narrow, and the run says so and plans again, once per pass:

- the ops that the run's own firing programs hold clearly more often than its programs do
  (``probe.enriched`` over the run's counts), when it fired at all;
- a probe with twice the budget, the current focus and those ops as its hints (a TVM pass too:
  its catalogue entry may name the op but not the form that fires);
- the new focus is the union of the old one and all that was found; when nothing new was found,
  focus is dropped, so the whole catalogue is drawn alike (a plan that found nothing should not
  keep narrowing generation).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from .focus import Probing
from .probe import enriched, probe_pass

AFTER = 100  # examples a named pass ran in before its fire rate is judged
FLOOR = 0.01  # below it, the pass is re-planned for


@dataclass(frozen=True)
class Replan:
    """A new focus for the run, and the one line that says why."""

    focus: tuple[str, ...]
    reason: str


def untested(pass_runs: dict[str, int], pass_fired: dict[str, int], names: Sequence[str],
             done: Sequence[str]) -> list[tuple[str, float, int]]:
    """(name, fire rate, runs) of the named passes not yet re-planned for whose rate is below FLOOR
    after AFTER examples."""
    found = []
    for name in names:
        runs = pass_runs.get(name, 0)
        rate = pass_fired.get(name, 0) / runs if runs else 0.0
        if name not in done and runs >= AFTER and rate < FLOOR:
            found.append((name, rate, runs))
    return found


def replan(spec, rate: float, runs: int, focus: Sequence[str], counts: dict[str, list[int]],
           probing: Probing) -> Replan:
    """The new focus for ``spec``, which changed the module in ``rate`` of ``runs`` examples with
    the run's ``focus``; ``counts``: op -> [examples it fired in, examples] among the run's
    programs holding that op."""
    fired = round(rate * runs)
    from_run = enriched(counts, runs, fired) if fired else []
    hints = list(dict.fromkeys([*focus, *from_run]))
    wider = replace(probing, budget=max(2 * probing.budget, 20.0))
    seen = probe_pass(spec, probing.allowed(), budget=wider.budget, hints=hints, match_cast=probing.match_cast,
                      dtypes=probing.dtypes or None)
    found = [op for op in (*from_run, *seen.ops) if op not in focus]
    said = f"{spec.name} changed the module in {100 * rate:.1f}% of {runs} examples"
    if found:
        new = tuple(dict.fromkeys([*focus, *found]))
        return Replan(new, f"{said}: focus widened to {','.join(new)} (the run's firing programs "
                           f"{','.join(from_run) or 'name no op'}; a wider probe {seen.line()})")
    return Replan((), f"{said}: no focus from now on (the run's firing programs name no op; a wider probe "
                      f"{seen.line()})")

"""A run's statistics: what a Fuzzer counts, and how the counts of several workers add up.

The engine's events carry them; the console, the run log and the run directory
read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Stats:
    examples: int = 0  # generated examples, both sides run
    shrink_runs: int = 0  # examples run while shrinking or reducing
    generator_defects: int = 0
    incomparable: int = 0
    fired: int = 0  # examples where the passes changed the module
    pass_runs: dict[str, int] = field(default_factory=dict)  # per pass: examples it ran in
    pass_fired: dict[str, int] = field(default_factory=dict)  # per pass: examples where it changed the module
    known: int = 0  # examples that hit an already known bug
    behaviours: int = 0  # behaviours of the named passes first seen in this run (passfuzz.reach.behaviours)
    last_new_behaviour: float = 0.0  # seconds into the run when the last of them was seen
    known_hits: dict[str, int] = field(default_factory=dict)  # per known fingerprint (or fault id): examples that hit it
    seconds_generating: float = 0.0  # spent checking fresh examples
    seconds_shrinking: float = 0.0  # spent checking examples while shrinking or reducing
    findings: dict[str, str] = field(default_factory=dict)  # new bugs of what was named: id -> .json record
    unblamed: dict[str, str] = field(default_factory=dict)  # new bugs of TVM's plain build (no pass to blame)
    outside_contract: dict[str, str] = field(default_factory=dict)  # misuse of a pass, saved apart, never a bug
    variants: dict[str, str] = field(default_factory=dict)  # id -> "<fault id> <record path>": a known fault's variants
    # observations, never bugs (passfuzz.judge.observations): how many examples showed each, and
    # those saved apart (the first of each fingerprint): id -> .json record
    missed_rewrites: int = 0
    not_idempotent: int = 0
    missed: dict[str, str] = field(default_factory=dict)
    defect_samples: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    stop_reason: str = ""
    seed: int | None = None
    examples_by_worker: dict[str, int] = field(default_factory=dict)  # with several workers (passfuzz.campaign.parallel)
    workers_lost: list[str] = field(default_factory=list)  # workers that died or left mid-run
    internal_errors: int = 0  # rounds dropped because passfuzz itself raised (engine.MAX_INTERNAL_ERRORS)

    def merge(self, other: "Stats") -> None:
        self.last_new_behaviour = max(self.last_new_behaviour, other.last_new_behaviour)
        for name in ("examples", "shrink_runs", "generator_defects", "incomparable", "fired", "known", "behaviours",
                     "seconds_generating", "seconds_shrinking", "missed_rewrites", "not_idempotent",
                     "internal_errors"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("findings", "unblamed", "outside_contract", "variants", "missed", "examples_by_worker"):
            getattr(self, name).update(getattr(other, name))
        for name in ("pass_runs", "pass_fired", "known_hits"):
            mine = getattr(self, name)
            for key, value in getattr(other, name).items():
                mine[key] = mine.get(key, 0) + value
        self.defect_samples.extend(other.defect_samples[: 5 - len(self.defect_samples)])
        self.workers_lost.extend(other.workers_lost)

    def rarely_fired(self, names, floor: float) -> list[tuple[str, float, int]]:
        """(name, fire rate, examples it ran in) of each pass of ``names`` that changed the module
        in no example (``floor`` 0) or in fewer than ``floor`` of those it ran in: what the run
        tested of it is less than asked."""
        rates = [(name, self.pass_fired.get(name, 0) / runs if (runs := self.pass_runs.get(name, 0)) else 0.0,
                  self.pass_runs.get(name, 0)) for name in names]
        return [(name, rate, runs) for name, rate, runs in rates if rate == 0 or rate < floor]

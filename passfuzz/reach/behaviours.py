"""The behaviour corpus: for each thing a named pass was seen to do, the smallest program that
showed it, kept across runs so that the next run starts where the last one stopped.

A behaviour is what one example observed of one pass, in terms the run already has: the pass, the
Relax ops it removed and those it added, each with its attributes in a few buckets
(``Outcome.changes``, each op form once: ``relax.sum[axis=last,keepdims=false]``, see
``passfuzz.relax.build.op_form``), and how the example ended (``ok``, or the finding's kind).
Rewrites of different ops tell apart, and so do rewrites of one op whose attributes differ (the
axis reduced, a flag, the dtype cast to); the dtypes and shapes of the values do not (yet).
Coverage without C++ instrumentation, as HypoFuzz and AFL keep a corpus per coverage
edge: a program that made a pass do something new is worth mutating, and the rarer the behaviour,
the more a draw among behaviours (one program each) favours it over fresh generation.

Stored as one small JSON file per behaviour under ``<corpus>/.reach/behaviours/``, named by the
behaviour's hash and written whole (write and rename), so workers of one machine share the
directory; a program replaces the stored one only when it is smaller. A run reads the behaviours
of its named passes once, when it starts (``load``); its run directory keeps that list, so a
resumed run draws what the uninterrupted one would.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Iterable, Sequence

from passfuzz.ir.catalogue import OpError
from passfuzz.ir.graph import analyse
from passfuzz.ir.program import Program, ProgramError

from .probe import write_whole

DIRECTORY = Path(".reach") / "behaviours"  # in the corpus


def observed(changes: Sequence[tuple[str, Sequence[str], Sequence[str]]], named: Iterable[str],
             ending: str) -> list[tuple[str, str]]:
    """(pass, behaviour) for each behaviour an example showed of the ``named`` passes."""
    wanted = set(named)
    return [(name, f"{name}: -{','.join(removed)} +{','.join(added)} -> {ending}")
            for name, removed, added in changes if name in wanted]


def _size(program: Program) -> int:
    return len(program.values)


class BehaviourStore:
    """``<corpus>/.reach/behaviours/``: a behaviour's smallest program, one file each."""

    def __init__(self, corpus: Path):
        self.directory = Path(corpus) / DIRECTORY
        self.sizes: dict[str, int] = {}  # what this process has offered or read: behaviour -> size kept

    def _path(self, behaviour: str) -> Path:
        return self.directory / f"{hashlib.sha256(behaviour.encode()).hexdigest()[:16]}.json"

    def offer(self, behaviour: str, program: Program, pass_name: str) -> bool:
        """Keep ``program`` for ``behaviour`` if the behaviour is new or the program smaller than
        the one kept; True when no process had kept the behaviour before."""
        if behaviour in self.sizes and self.sizes[behaviour] <= _size(program):
            return False
        path = self._path(behaviour)
        new = behaviour not in self.sizes
        try:  # another worker of this machine may have kept it meanwhile (or raced us: both count it)
            kept = json.loads(path.read_text(encoding="utf-8"))["size"]
            new = False
        except (OSError, ValueError, KeyError, TypeError):
            kept = None
        if kept is not None and kept <= _size(program):
            self.sizes[behaviour] = kept
            return False
        self.sizes[behaviour] = _size(program)
        self.directory.mkdir(parents=True, exist_ok=True)
        write_whole(path, json.dumps({"behaviour": behaviour, "pass": pass_name, "size": _size(program),
                                      "program": program.to_json()}) + "\n")
        return new

    def load(self, named: Iterable[str]) -> dict[str, Program]:
        """The behaviours kept for the ``named`` passes (a file that does not read is skipped)."""
        wanted, found = set(named), {}
        for path in sorted(self.directory.glob("*.json")) if self.directory.is_dir() else ():
            try:
                doc = json.loads(path.read_text(encoding="utf-8"))
                if doc["pass"] in wanted:
                    program = Program.from_json(doc["program"])
                    analyse(program)  # kept by another passfuzz, whose catalogue may differ
                    found[doc["behaviour"]] = program
                    self.sizes[doc["behaviour"]] = int(doc["size"])
            except (OSError, ValueError, KeyError, TypeError, ProgramError, OpError):
                continue
        return found

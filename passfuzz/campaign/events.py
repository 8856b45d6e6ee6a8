"""What a run tells its listeners: one frozen dataclass per kind of event.

The engine (and, with workers, the parent that merges their statistics) calls a ``Notify`` with
these; the console, the live display and the run log dispatch on the type. A misspelt field is
an AttributeError where the listener reads it, not a key nobody looks up. Events cross process
boundaries (fork workers' queue, the Dask queue), so they hold only picklable data.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Union

if TYPE_CHECKING:  # annotations only: the console imports this module before TVM, and needs not TVM
    from passfuzz.ir.program import Program
    from passfuzz.judge.finding import Finding

    from .stats import Stats


@dataclass(frozen=True)
class ExampleChecked:
    """An example or shrink candidate was checked: the statistics now (with workers, the total)."""
    stats: Stats


@dataclass(frozen=True)
class FindingSeen:
    """A new bug, seen for the first time and saved unshrunk; shrinking follows."""
    finding: Finding
    path: Path


@dataclass(frozen=True)
class OutsideContract:
    """A failure after a pass ran outside its contract: saved apart, unshrunk, never a bug."""
    finding: Finding
    path: Path


@dataclass(frozen=True)
class VariantSeen:
    """A failure matching a known fault's signatures (``finding.variant_of``): saved apart, unshrunk,
    listed under the fault, never counted as a new bug."""
    finding: Finding
    path: Path


@dataclass(frozen=True)
class Observed:
    """A pass left something undone (passfuzz.judge.observations: a missed rewrite, a pass not
    idempotent), first seen: lightly reduced and saved apart, never a bug."""
    observation: Finding
    path: Path


@dataclass(frozen=True)
class FindingSaved:
    """A finding shrunk and reduced (or as far as time allowed), saved over its first sighting."""
    finding: Finding
    path: Path
    program: Program


@dataclass(frozen=True)
class ClusterJoined:
    """The run is on these workers of a Dask cluster; ``multithreaded``: those with several threads."""
    scheduler: str
    workers: tuple[str, ...]
    multithreaded: tuple[str, ...]


@dataclass(frozen=True)
class WorkerRefused:
    """A worker joined mid-run running another passfuzz or TVM than the client; it gets no work."""
    worker: str
    why: str  # one line naming what differs


@dataclass(frozen=True)
class WorkerLost:
    """A worker died or left mid-run; the others go on."""
    worker: str
    why: str


@dataclass(frozen=True)
class Replanned:
    """A named pass stayed untested (passfuzz.reach.replan): the run now draws with a new focus."""
    focus: tuple[str, ...]
    reason: str  # one line: the fire rate, what was found, the new focus


@dataclass(frozen=True)
class InternalError:
    """passfuzz itself raised while generating or judging an example (its bug, not TVM's): the
    round is dropped and the run goes on, up to a few times; the traceback is kept for a report."""
    error: str  # the exception's type and first line
    path: str  # the file holding the traceback ('' when the run keeps no directory)


Event = Union[ExampleChecked, FindingSeen, OutsideContract, VariantSeen, Observed, FindingSaved, ClusterJoined, WorkerRefused,
              WorkerLost, Replanned, InternalError]
Notify = Callable[[Event], None]


"""The known-bug baseline: the triaged faults of passfuzz's own corpus and the records that show
them, shipped with the package.

A fingerprint in the baseline is *known* wherever passfuzz runs, also in an empty ``--corpus``:
otherwise a pass author's first run stops (``-x``) at a TVM bug passfuzz found long ago, such as
argmax returning -1, before it meets the bug of their own pass. The baseline is per TVM release
(``known/tvm-<major>.<minor>.json``): a bug fixed in the next release must count as new there if it
comes back. It is derived from ``corpus/`` (its records and its faults, passfuzz.findings.faults)
by ``passfuzz known --write-baseline corpus``; a test keeps the two in step.

Each known record names its fault, and each fault carries the signatures (``matches``) that make a
new finding a variant of it: kept, listed under the fault, never counted as a new bug.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from passfuzz.judge.finding import names_one_bug

from . import faults as fault_files
from .corpus import VARIANTS, CorpusError, atomic_write, entries, trigger_of
from .corpus import load as load_record

BASELINE_FORMAT = 2


class BaselineError(ValueError):
    """A baseline file that cannot be read; the message names it."""


@dataclass(frozen=True)
class KnownBug:
    """A record of the triaged corpus: a fingerprint that never counts as new."""
    id: str
    kind: str
    fingerprint: str
    passes: tuple[str, ...]
    what: str  # what this record shows of its fault (the fault file's note for it)
    upstream: str  # its fault's upstream line: "apache/tvm#20194 (open)", or "" when not filed
    trigger: str = ""  # a wrong result's trigger entry (passfuzz.judge.finding); "" known by fingerprint
    fault: str = ""  # the id of the fault it shows (passfuzz.findings.faults)

    def to_json(self) -> dict:
        data = {"id": self.id, "kind": self.kind, "fingerprint": self.fingerprint, "passes": list(self.passes),
                "what": self.what, "upstream": self.upstream, "fault": self.fault}
        return {**data, "trigger": self.trigger} if self.trigger else data


@dataclass(frozen=True)
class KnownFault:
    """What a run needs of a triaged fault: its name, its upstream state and its ``matches``."""
    id: str
    title: str
    shows_as: str
    counted: bool
    upstream: str
    matches: tuple[fault_files.Match, ...] = ()
    records: int = 0  # the corpus records that show it (a wrong gradient's among them, known by no fingerprint)

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "shows_as": self.shows_as, "counted": self.counted,
                "upstream": self.upstream, "records": self.records,
                "matches": [m.to_json() for m in self.matches]}

    @classmethod
    def of(cls, fault: fault_files.Fault) -> "KnownFault":
        return cls(fault.id, fault.title, fault.shows_as, fault.counted,
                   fault.upstream_line if fault.filed else "", fault.matches, len(fault.records))

    @property
    def filed(self) -> bool:
        return bool(self.upstream)  # a baseline keeps the upstream line of a filed fault only

    @property
    def record_count(self) -> int:
        return self.records

    @property
    def name(self) -> str:
        """'[Bug][Relax][X] what (apache/tvm#1)': how a run's summary names it."""
        return self.title + (f" ({self.upstream.split(';')[0]})" if self.upstream else "")


@dataclass(frozen=True)
class Baseline:
    bugs: tuple[KnownBug, ...] = ()
    faults: tuple[KnownFault, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.bugs or self.faults)

    def fault(self, fault_id: str) -> KnownFault | None:
        return next((fault for fault in self.faults if fault.id == fault_id), None)

    def fault_of(self, fingerprint_or_fault: str) -> KnownFault | None:
        """The fault a known fingerprint (or a fault id, as a variant is named) belongs to."""
        bug = next((bug for bug in self.bugs if bug.fingerprint == fingerprint_or_fault), None)
        return self.fault(bug.fault if bug else fingerprint_or_fault)


def known_set(baseline: Baseline) -> tuple[str, ...]:
    """What ``baseline`` makes known to a Fuzzer: its fingerprints and triggers, and its faults'
    variant signatures (passfuzz.judge.finding)."""
    return (tuple(bug.fingerprint for bug in baseline.bugs) + tuple(bug.trigger for bug in baseline.bugs if bug.trigger)
            + tuple(match.entry(fault.id) for fault in baseline.faults for match in fault.matches))


def release(version: str) -> str:
    """'0.27.0.post1' -> '0.27': a baseline holds for one release line."""
    match = re.match(r"(\d+)\.(\d+)", version)
    return f"{match.group(1)}.{match.group(2)}" if match else version


def baseline_name(tvm_version: str) -> str:
    return f"tvm-{release(tvm_version)}.json"


def shipped_path(tvm_version: str) -> Path:
    """Where the baseline for ``tvm_version``'s release lives in this checkout of passfuzz."""
    return Path(str(resources.files("passfuzz").joinpath("known", baseline_name(tvm_version))))


def read(path: Path) -> Baseline:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if data.get("format") != BASELINE_FORMAT:
            raise ValueError(f"format {data.get('format')!r}, this passfuzz reads format {BASELINE_FORMAT}")
        bugs = tuple(KnownBug(b["id"], b["kind"], b["fingerprint"], tuple(b["passes"]), b["what"], b["upstream"],
                              b.get("trigger", ""), b.get("fault", "")) for b in data["bugs"])
        faults = tuple(KnownFault(f["id"], f["title"], f["shows_as"], f["counted"], f["upstream"],
                                  tuple(map(fault_files.Match.from_json, f["matches"])), f.get("records", 0))
                       for f in data.get("faults", ()))
        return Baseline(bugs, faults)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BaselineError(f"{path}: not a known-bug baseline: {exc}") from None


@lru_cache(maxsize=4)
def shipped(tvm_version: str) -> Baseline:
    """The baseline shipped for ``tvm_version``'s release; empty for a release without one."""
    resource = resources.files("passfuzz").joinpath("known", baseline_name(tvm_version))
    if not resource.is_file():
        return Baseline()
    with resources.as_file(resource) as path:
        return read(path)


def from_corpus(directory: Path) -> Baseline:
    """The baseline a triaged corpus directory defines: each record, named by the fault that lists
    it (``<directory>/faults/``), a wrong result with its trigger (passfuzz.judge.finding), except
    a wrong gradient no single op was seen to show: every loss program shares its final ``sum``
    with the trigger, so known ahead it would hide every other wrong gradient. A corpus without faults (a user's own) makes its
    records known by fingerprint alone."""
    faults = fault_files.load(directory)
    owner = {record["id"]: (fault, record["note"]) for fault in faults for record in fault.records}
    bugs = []
    for path in entries([directory]):
        entry = load_record(path)
        record = entry.record
        if not names_one_bug(record["signature"]):
            continue
        fault, note = owner.get(record["id"], (None, ""))
        upstream = fault.upstream_line if fault and fault.filed else ""
        bugs.append(KnownBug(record["id"], record["kind"], record["fingerprint"], tuple(record["passes"]), note,
                             upstream, trigger_of(entry), fault.id if fault else ""))
    return Baseline(tuple(bugs), tuple(KnownFault.of(fault) for fault in faults))


def write(baseline: Baseline, path: Path, tvm_version: str) -> None:
    data = {"format": BASELINE_FORMAT, "tvm_release": release(tvm_version),
            "faults": [fault.to_json() for fault in sorted(baseline.faults, key=lambda f: f.id)],
            "bugs": [bug.to_json() for bug in sorted(baseline.bugs, key=lambda b: b.id)]}
    atomic_write(path, json.dumps(data, indent=1) + "\n")


def load(spec: str, tvm_version: str) -> Baseline:
    """What ``--known-bugs`` names: 'default' (the shipped baseline), 'none', a baseline file,
    or a corpus directory whose records count as known."""
    if spec == "default":
        return shipped(tvm_version)
    if spec == "none":
        return Baseline()
    path = Path(spec)
    if path.is_dir():
        try:
            return from_corpus(path)
        except (CorpusError, fault_files.FaultError, OSError, ValueError, KeyError) as exc:
            raise BaselineError(f"{path}: cannot read its records: {exc}") from None
    if not path.exists():
        raise BaselineError(f"{path}: no such file or directory")
    return read(path)


def fault_names(baseline: Baseline, corpus_dir: Path | None = None) -> tuple[tuple[str, str], ...]:
    """(fingerprint or fault id, the fault's name) for each known record, each fault, and each
    variant a run saved in ``corpus_dir`` before: what a run's summary names its known hits by."""
    names = {fault.id: fault.name for fault in baseline.faults}
    variants = []
    folder = Path(corpus_dir) / VARIANTS if corpus_dir is not None else None
    for path in sorted(folder.glob("*.json")) if folder is not None and folder.is_dir() else ():
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            variants.append((record["fingerprint"], names.get(record["variant_of"], record["variant_of"])))
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a malformed record names nothing; the plan warns about it
    return tuple((bug.fingerprint, names[bug.fault]) for bug in baseline.bugs if bug.fault in names) \
        + tuple(names.items()) + tuple(variants)


def hits_by_fault(hits: dict[str, int], names: dict[str, str]) -> list[tuple[str, int]]:
    """A run's known hits (fingerprint or fault id -> count) as (name, count), one per fault, most
    hit first. A fingerprint of no fault (a user's own corpus) is named by itself."""
    counts: dict[str, int] = {}
    for key, count in hits.items():
        name = names.get(key, key)
        counts[name] = counts.get(name, 0) + count
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))

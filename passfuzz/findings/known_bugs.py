"""The known-bug baseline: the triaged bugs of passfuzz's own corpus, shipped with the package.

A fingerprint in the baseline is *known* wherever passfuzz runs, also in an empty ``--corpus``:
otherwise a pass author's first run stops (``-x``) at a TVM bug passfuzz found long ago, such as
argmax returning -1, before it meets the bug of their own pass. The baseline is per TVM release
(``known/tvm-<major>.<minor>.json``): a bug fixed in the next release must count as new there if it
comes back. It is derived from ``corpus/`` (records plus the README's triage table) by
``passfuzz known --write-baseline corpus``; a test keeps the two in step.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from passfuzz.judge.finding import names_one_bug

from .corpus import CorpusError, atomic_write, entries
from .corpus import load as load_record
from .corpus import trigger_of

BASELINE_FORMAT = 1


class BaselineError(ValueError):
    """A baseline file that cannot be read; the message names it."""


@dataclass(frozen=True)
class KnownBug:
    id: str
    kind: str
    fingerprint: str
    passes: tuple[str, ...]
    what: str  # the corpus README's one-line description of the true trigger
    upstream: str  # "apache/tvm#20194 (open)", or "" when not filed
    trigger: str = ""  # a wrong result's trigger entry (passfuzz.judge.finding); "" known by fingerprint

    def to_json(self) -> dict:
        data = {"id": self.id, "kind": self.kind, "fingerprint": self.fingerprint, "passes": list(self.passes),
                "what": self.what, "upstream": self.upstream}
        return {**data, "trigger": self.trigger} if self.trigger else data


def known_set(bugs) -> tuple[str, ...]:
    """What ``bugs`` make known to a Fuzzer: their fingerprints and triggers (passfuzz.judge.finding)."""
    return tuple(bug.fingerprint for bug in bugs) + tuple(bug.trigger for bug in bugs if bug.trigger)


def release(version: str) -> str:
    """'0.27.0.post1' -> '0.27': a baseline holds for one release line."""
    match = re.match(r"(\d+)\.(\d+)", version)
    return f"{match.group(1)}.{match.group(2)}" if match else version


def baseline_name(tvm_version: str) -> str:
    return f"tvm-{release(tvm_version)}.json"


def shipped_path(tvm_version: str) -> Path:
    """Where the baseline for ``tvm_version``'s release lives in this checkout of passfuzz."""
    return Path(str(resources.files("passfuzz").joinpath("known", baseline_name(tvm_version))))


def read(path: Path) -> list[KnownBug]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return [KnownBug(b["id"], b["kind"], b["fingerprint"], tuple(b["passes"]), b["what"], b["upstream"],
                         b.get("trigger", "")) for b in data["bugs"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BaselineError(f"{path}: not a known-bug baseline: {exc}") from None


@lru_cache(maxsize=4)
def shipped(tvm_version: str) -> tuple[KnownBug, ...]:
    """The baseline shipped for ``tvm_version``'s release; empty for a release without one."""
    resource = resources.files("passfuzz").joinpath("known", baseline_name(tvm_version))
    if not resource.is_file():
        return ()
    with resources.as_file(resource) as path:
        return tuple(read(path))


def from_corpus(directory: Path) -> list[KnownBug]:
    """The baseline a triaged corpus directory defines: each record, described by its line in the
    directory's README.md table (``| `id` | passes | what | upstream |``), a wrong result with its
    trigger (passfuzz.judge.finding), except a wrong gradient: every loss program shares its final
    ``sum`` with the trigger, so known ahead it would hide every other wrong gradient."""
    lines = _readme_lines(directory / "README.md")
    bugs = []
    for path in entries([directory]):
        entry = load_record(path)
        record = entry.record
        if not names_one_bug(record["signature"]):
            continue
        what, upstream = lines.get(record["id"], ("", ""))
        bugs.append(KnownBug(record["id"], record["kind"], record["fingerprint"], tuple(record["passes"]), what,
                             "" if upstream.startswith("not filed") else upstream,
                             trigger_of(entry)))
    return bugs


def _readme_lines(readme: Path) -> dict[str, tuple[str, str]]:
    """id -> (what, upstream) from the triage table's rows."""
    if not readme.is_file():
        return {}
    rows = {}
    for line in readme.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        if len(cells) == 4 and re.fullmatch(r"`[a-z-]+-[0-9a-f]{12}`", cells[0]):
            rows[cells[0].strip("`")] = (cells[2], cells[3])
    return rows


def write(bugs: list[KnownBug], path: Path, tvm_version: str) -> None:
    data = {"format": BASELINE_FORMAT, "tvm_release": release(tvm_version),
            "bugs": [bug.to_json() for bug in sorted(bugs, key=lambda b: b.id)]}
    atomic_write(path, json.dumps(data, indent=1) + "\n")


def load(spec: str, tvm_version: str) -> tuple[KnownBug, ...]:
    """What ``--known-bugs`` names: 'default' (the shipped baseline), 'none', a baseline file,
    or a corpus directory whose records count as known."""
    if spec == "default":
        return shipped(tvm_version)
    if spec == "none":
        return ()
    path = Path(spec)
    if path.is_dir():
        try:
            return tuple(from_corpus(path))
        except (CorpusError, OSError, ValueError, KeyError) as exc:
            raise BaselineError(f"{path}: cannot read its records: {exc}") from None
    if not path.exists():
        raise BaselineError(f"{path}: no such file or directory")
    return tuple(read(path))

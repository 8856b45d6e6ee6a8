"""The corpus: one finding is <id>.json (the record, validated against the shipped JSON Schema),
<id>.py (the standalone reproducer) and <id>.md (the bug report).

The id is derived from the fingerprint, so each bug is stored once; a shrunk finding replaces
its unshrunk first sighting. Every write is atomic (temporary file, then rename), so no file is
ever seen half written, whenever the writer is killed. The three files of one finding cannot be
replaced together; the record is written last, as the commit point: a kill between them leaves
the script and report of the newer version beside the older record (or, at a first sighting,
with no record yet, which no loader reads: loaders and known fingerprints go by the records).
A run directory (passfuzz.campaign.runs) still lists such a finding in progress, and ``--resume`` writes
all three again. A killed writer leaves its temporary file behind (hidden, named with its pid);
``remove_orphaned_temporaries`` deletes those of processes no longer alive.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import jsonschema

from passfuzz.ir.graph import analyse
from passfuzz.ir.program import Program, ProgramError
from passfuzz.judge.finding import trigger_entry

FORMAT_VERSION = 1  # of the record; the schema pins it
# Findings of passes run outside their contracts (passfuzz.passes.contracts): misuse, kept apart from bugs.
OUTSIDE_CONTRACT = "outside-contract"
# New findings that match a known fault's signatures (passfuzz.findings.faults): kept, not counted as new.
VARIANTS = "variants"
# What passes left undone (passfuzz.judge.observations: missed rewrites, passes not idempotent): never bugs.
MISSED = "missed"


class CorpusError(ValueError):
    """A corpus file that cannot be loaded; the message names the file and the field."""


@lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(resources.files("passfuzz").joinpath("schemas/finding.schema.json").read_text())


@dataclass(frozen=True)
class Entry:
    path: Path  # the .json record
    record: dict
    program: Program

    @property
    def id(self) -> str:
        return self.record["id"]


def finding_id(kind: str, fingerprint: str) -> str:
    return f"{kind}-{fingerprint}"


def file_mode() -> int:
    """The mode a new file gets: 0o666 less the process's umask, as ``open`` would give it
    (``mkstemp`` creates its files 0o600 whatever the umask)."""
    return 0o666 & ~_umask()


def _umask() -> int:
    try:  # Linux says it without changing it (another thread may be creating a file meanwhile)
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # elsewhere, reading the umask sets it: set it back at once
    os.umask(mask)
    return mask


def atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp")
    try:
        os.fchmod(fd, file_mode())
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


_TEMPORARY = re.compile(r"^\..+\.(\d+)\.[^.]+\.tmp$")  # as atomic_write names them, with the writer's pid


def remove_orphaned_temporaries(directory: Path) -> list[Path]:
    """Delete the temporary files left in ``directory`` by writers that were killed (whose pid
    is no longer alive); those of live writers are theirs to rename."""
    removed = []
    for path in directory.glob(".*.tmp") if directory.is_dir() else ():
        match = _TEMPORARY.match(path.name)
        if match and not _alive(int(match.group(1))):
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def save(directory: Path, record: dict, script: str, report: str) -> Path:
    validate(record, directory / f"{record['id']}.json")
    atomic_write(directory / f"{record['id']}.py", script)
    atomic_write(directory / f"{record['id']}.md", report)
    path = directory / f"{record['id']}.json"
    atomic_write(path, json.dumps(record, indent=1) + "\n")
    return path


def validate(record: object, path: Path | str) -> Program:
    """Schema first, then the Program's own rules; CorpusError names the file and the field."""
    error = jsonschema.exceptions.best_match(jsonschema.Draft7Validator(schema()).iter_errors(record))
    if error is not None:
        field = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        raise CorpusError(f"{path}: field {field}: {error.message[:300]}")
    return validate_program(record["program"], path)


def validate_program(doc: dict, path: Path | str) -> Program:
    """The Program of a record's "program" field (already schema-checked), held to its own rules."""
    try:
        program = Program.from_json(doc)
        analyse(program)
    except ProgramError as exc:
        raise CorpusError(f"{path}: field program: {exc}") from None
    return program


def load(path: Path) -> Entry:
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise CorpusError(f"{path}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise CorpusError(f"{path}: not JSON: {exc}") from None
    return Entry(Path(path), record, validate(record, path))


def entries(paths: list[Path]) -> list[Path]:
    """The .json records named by ``paths`` (files, or directories searched one level deep)."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.glob("*.json") if not p.name.startswith(".")))
        elif path.exists():
            found.append(path)
        else:
            raise CorpusError(f"{path}: no such file or directory")
    return found


def _records(directory: Path) -> list[Path]:
    """The record files of a corpus directory, of its outside-contract findings, its variants and its
    observations."""
    return [p for folder in (directory, directory / OUTSIDE_CONTRACT, directory / VARIANTS, directory / MISSED)
            if folder.is_dir()
            for p in sorted(folder.glob("*.json")) if not p.name.startswith(".")]


# path -> (mtime_ns, size, '' or why the record is malformed, its trigger entry): each version of a
# file is read and validated once, so reading the known bugs stays cheap enough for every round.
_checked: dict[Path, tuple[int, int, str, str]] = {}


def _check(path: Path) -> tuple[str, str]:
    """('' or why the record at ``path`` is malformed, its passfuzz.judge.finding trigger entry)."""
    try:
        stat = path.stat()
    except OSError as exc:
        return f"{path}: cannot read: {exc.strerror}", ""
    cached = _checked.get(path)
    if cached is not None and cached[:2] == (stat.st_mtime_ns, stat.st_size):
        return cached[2:]
    why, trigger = "", ""
    try:
        entry = load(path)
        if entry.id != path.stem:
            why = f"{path}: holds the record of {entry.id}, not {path.stem}"
        else:
            trigger = trigger_of(entry)
    except CorpusError as exc:
        why = str(exc)
    _checked[path] = (stat.st_mtime_ns, stat.st_size, why, trigger)
    return why, trigger


def trigger_of(entry: Entry) -> str:
    """The passfuzz.judge.finding trigger entry of a loaded record ("" when it is known by its
    fingerprint alone)."""
    def ops() -> list[str]:
        from passfuzz.relax.build import relax_ops  # TVM, imported only for a record that has a trigger

        return relax_ops(entry.program)

    return trigger_entry(entry.record, ops)


def problem(path: Path) -> str:
    """'' for a record that loads and is named by its id; else one line naming the file and why not."""
    return _check(path)[0]


def malformed(directory: Path) -> list[str]:
    """One line per record in the corpus that does not load (see ``problem``)."""
    return [why for why in map(problem, _records(directory)) if why]


def known_fingerprints(directory: Path) -> set[str]:
    """The known set of the corpus and its outside-contract findings (passfuzz.judge.finding): the
    fingerprints of the records that load, read from their names, and the trigger entries of its
    wrong results. A malformed record makes no bug known, so one found again is saved afresh over it."""
    known = set()
    for path in _records(directory):
        why, trigger = _check(path)
        if not why:
            known.add(path.stem.rsplit("-", 1)[-1])
            known.update(filter(None, [trigger]))
    return known

"""Seeds: existing Relax modules and corpus records that fuzzing starts from.

``find_seeds(paths)`` walks files and directories (recursively) for two kinds of source:

- Python/TVMScript files. Every ``tvm.IRModule`` bound at module level, or as an attribute of a
  class defined in the file (TVM's pass tests write ``class TestX: @I.ir_module class Before``
  and ``class Expected``), is a seed named ``path::TestX::Before``. ``tvm.script`` parses a class
  body when it is decorated, so executing the file's body finds them all; pytest is not needed.
  Executing a file runs arbitrary code, so it happens in a forked child (``isolate``) with a time
  limit, and so does the import into a Program (``passfuzz.importer``), which sees TVM objects a
  fuzzing process never built itself. Only plain data (Programs, names, reasons) comes back.
- Corpus ``.json`` records: their Program, as saved. In a directory, a ``.py`` beside a
  record of the same name is its reproducer and is not executed; JSON that is no record is
  someone else's file and passes silently.

A module the importer cannot turn into a Program is a rejection (its name and a one-line
reason); a file that cannot be executed is a one-line warning and is skipped. Neither ever
shows a traceback.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from .program import Program

FILE_TIMEOUT = 120.0  # seconds to execute one file and import its modules
_NESTING = 2  # classes inside classes are searched this deep


class SeedError(ValueError):
    """No seed can come from what was given (a missing path); the message is one line."""


@dataclass(frozen=True)
class Seed:
    name: str  # path::Class::Attribute, or the record's path
    program: Program | None  # None when rejected
    reason: str = ""  # why it was rejected, one line

    @property
    def imported(self) -> bool:
        return self.program is not None


@dataclass
class SeedSet:
    """What ``find_seeds`` found: every module or record, and the files it could not read."""

    seeds: list[Seed] = field(default_factory=list)
    files: int = 0  # files that held at least one module or record
    warnings: list[str] = field(default_factory=list)  # one line per file skipped

    @property
    def programs(self) -> list[Program]:
        return [seed.program for seed in self.seeds if seed.program is not None]

    @property
    def rejected(self) -> list[Seed]:
        return [seed for seed in self.seeds if seed.program is None]

    def within_dtypes(self, dtypes) -> "SeedSet":
        """The same, with every seed that computes in a dtype outside ``dtypes`` rejected (the
        targets or the passes cannot take it)."""
        from .catalogue.base import leaves
        from .graph import analyse

        def outside(program: Program) -> list[str]:
            used = {leaf.dtype for info in analyse(program) for leaf in leaves(info)}
            return sorted(used - set(dtypes))

        seeds = [seed if seed.program is None or not outside(seed.program) else
                 Seed(seed.name, None, f"computes in {','.join(outside(seed.program))}, not drawn for these "
                                       "targets and passes")
                 for seed in self.seeds]
        return SeedSet(seeds, self.files, self.warnings)

    def summary(self) -> str:
        """``42 modules in 7 files, 30 imported, 12 rejected (9 unknown op relax.nn.conv3d, ...)``"""
        line = f"{len(self.seeds)} module(s) in {self.files} file(s), {len(self.programs)} imported, " \
               f"{len(self.rejected)} rejected"
        groups = Counter(reason_group(seed.reason) for seed in self.rejected).most_common()
        if groups:
            shown = ", ".join(f"{n} {reason}" for reason, n in groups[:5])
            line += f" ({shown}{', ...' if len(groups) > 5 else ''})"
        return line


def reason_group(reason: str) -> str:
    """A rejection's reason without where it occurred, so that equal causes count together:
    ``unknown op relax.nn.conv3d at main/lv3`` and ``... at main/lv7`` are one group."""
    return re.split(r" (?:at|in) (?=\S+$)| \((?:at|in) [^)]*\)$|; ", reason.strip(), maxsplit=1)[0][:80]


def import_program(mod) -> Program:
    """The importer, loaded only when a module is imported (raises its ImportRejected)."""
    from .importer import import_module

    return import_module(mod)


def find_seeds(paths: Iterable[Path | str], convert: Callable[[Any], Program] = import_program,
               timeout: float = FILE_TIMEOUT) -> SeedSet:
    """Every seed in ``paths`` (files or directories, searched recursively for ``*.py`` and
    ``*.json``). SeedError if a path does not exist."""
    found = SeedSet()
    for path in map(Path, paths):
        if not path.exists():
            raise SeedError(f"--seeds: {path}: no such file or directory")
        named = path.is_file()
        files = [path] if named else sorted(p for p in path.rglob("*") if p.suffix in (".py", ".json") and p.is_file()
                                            and not any(part.startswith(".") for part in p.relative_to(path).parts))
        for file in files:
            if not named and file.suffix == ".py" and file.with_suffix(".json").is_file():
                continue  # a corpus reproducer: its record beside it is the seed, executing it only reruns the bug
            if file.suffix == ".json":
                seeds = _record_seed(file, found.warnings, named)
            else:
                seeds = _file_seeds(file, convert, timeout, found.warnings)
            found.files += bool(seeds)
            found.seeds += seeds
    return found


def _record_seed(path: Path, warnings: list[str], named: bool) -> list[Seed]:
    """A corpus record's Program. In a directory, JSON that is no record at all (no "program")
    is someone else's file and passes silently; a broken record is a warning."""
    from .corpus import CorpusError, load

    if not named:
        try:
            if "program" not in json.loads(path.read_text(encoding="utf-8")):
                return []
        except (OSError, ValueError, TypeError):
            return []
    try:
        return [Seed(str(path), load(path).program)]
    except CorpusError as exc:
        warnings.append(f"{exc}"[:300])
        return []


def _file_seeds(path: Path, convert: Callable[[Any], Any], timeout: float, warnings: list[str]) -> list[Seed]:
    from .isolate import run_forked

    result = run_forked(lambda: converted_modules(path, convert), timeout)
    if result.status != "ok":
        why = {"hang": f"took longer than {timeout:g} s", "crash": f"crashed ({result.error})"}.get(
            result.status, "raised " + (result.error.splitlines() or ["an error"])[0])
        warnings.append(f"{path}: skipped: executing it {why}"[:300])
        return []
    return [Seed(name, value if isinstance(value, Program) else None, "" if isinstance(value, Program) else value)
            for name, value in result.value]


def converted_modules(path: Path, convert: Callable[[Any], Any]) -> list[tuple[str, Any]]:
    """(name, ``convert(module)``) for every IRModule the file defines, or (name, one-line reason)
    where ``convert`` raised. Executes the file: call it in a child."""
    out = []
    for name, mod in modules_in(path):
        try:
            out.append((name, convert(mod)))
        except Exception as exc:  # noqa: BLE001 - a rejection is any failure to import, told in one line
            from_importer = type(exc).__name__ == "ImportRejected"
            message = (str(exc).strip().splitlines() or [""])[0]
            out.append((name, message if from_importer else f"{type(exc).__name__}: {message}"))
    return out


def modules_in(path: Path) -> list[tuple[str, Any]]:
    """Execute the file as a module named after it (not ``__main__``, so its ``tvm.testing.main()``
    does not run) and list its IRModules: module level, then in the classes it defines."""
    import tvm

    shown, path = str(path), Path(path).resolve()
    name = "passfuzz_seed_" + re.sub(r"\W", "_", path.stem)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))  # sibling helpers the file imports
    sys.modules[name] = module
    spec.loader.exec_module(module)
    found: list[tuple[str, Any]] = []
    seen: set[int] = set()

    def walk(namespace: dict, prefix: str, depth: int) -> None:
        for key, value in list(namespace.items()):
            if isinstance(value, tvm.IRModule) and id(value) not in seen:
                seen.add(id(value))
                found.append((f"{prefix}::{key}", value))
            elif isinstance(value, type) and value.__module__ == name and depth < _NESTING:
                walk(vars(value), f"{prefix}::{key}", depth + 1)

    walk(vars(module), shown, 0)
    return found

"""Seeds: existing Relax modules and corpus records that fuzzing starts from.

``find_seeds(paths)`` walks files and directories (recursively) for two kinds of source:

- Python/TVMScript files. Every ``tvm.IRModule`` bound at module level, or as an attribute of a
  class defined in the file (``class TestX: @I.ir_module class Before`` and ``class Expected``),
  is a seed named ``path::TestX::Before``. ``tvm.script`` parses a class body when it is
  decorated, so executing the file's body finds them. Most of TVM's tests parse theirs inside
  ``def test_...():`` though, so the file's argument-less tests are then called too (outside
  pytest, failures ignored, each stopped where it first applies a pass or builds) while
  ``@I.ir_module`` records what it parses
  (``path::test_simple::Before``). A module without ``main`` gives a seed per public Relax
  function (``path::test_x::Before::foo``). Executing a file runs arbitrary code, so it happens
  in a forked child (``isolate``) with a time limit, and so does the import into a Program
  (``passfuzz.relax.importer``), which sees TVM objects a fuzzing process never built itself. Only
  plain data (Programs, names, reasons) comes back, each seed as soon as it is imported, so a
  test that hangs or crashes loses only what came after it. Files run ``workers`` children at a
  time, and what each gave is kept in a cache directory keyed by its content (``cache_key``), so a
  second load of unchanged files executes none. Each seed also keeps the pass its file's tests
  applied to it, with the arguments (``passfuzz check-tests`` checks it with that pass).
- Corpus ``.json`` records: their Program, as saved. In a directory, a ``.py`` beside a
  record of the same name is its reproducer and is not executed; JSON that is no record is
  someone else's file and passes silently.
- Model seeds (``.json``, written by ``passfuzz import-model``, ``schemas/model-seed.schema.json``):
  a real model's Program, imported from the frontend's module as an object, since a module
  holding tensor constants prints as TVMScript with a metadata section no parser reads back.

A module the importer cannot turn into a Program is a rejection (its name and a one-line
reason); a file that cannot be executed is a one-line warning and is skipped. Neither ever
shows a traceback.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import hashlib
import importlib.util
import inspect
import json
import os
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from passfuzz.ir.program import Program

FILE_TIMEOUT = 120.0  # seconds to execute one file and import its modules
# The name a file binds next to a module (at module level, or in the class holding it) to give the
# arguments of its ``main``: a list in parameter order, or a function without parameters returning one.
ARGUMENTS_NAME = "arguments"
# a kernel's TVMScript binding a loop or launch to a GPU thread (T.thread_binding, T.launch_thread)
_GPU_THREAD = re.compile(r"[\"']((?:blockIdx|threadIdx)\.[xyz])[\"']")
_NESTING = 2  # classes inside classes are searched this deep


class SeedError(ValueError):
    """No seed can come from what was given (a missing path); the message is one line."""


@dataclass(frozen=True)
class Seed:
    name: str  # path::Class::Attribute, or the record's path
    program: Program | None  # None when rejected
    reason: str = ""  # why it was rejected, one line
    given: bool = False  # its arguments are the file's own (``ARGUMENTS_NAME``), not drawn by the importer
    # the passes its file's tests applied to it (``passfuzz --passes`` text, in the order seen) and,
    # one line each, those applied that passfuzz cannot name (a custom pass, arguments no literal gives)
    passes: tuple[str, ...] = ()
    unnamed: tuple[str, ...] = ()

    @property
    def file(self) -> str:
        """The file it comes from (its name up to the first ``::``)."""
        return self.name.split("::", 1)[0]


@dataclass
class SeedSet:
    """What ``find_seeds`` found: every module or record, and the files it could not read."""

    seeds: list[Seed] = field(default_factory=list)
    files: int = 0  # files that held at least one module or record
    warnings: list[str] = field(default_factory=list)  # one line per file skipped
    cached: int = 0  # Python files whose seeds came from the cache rather than executing them

    @property
    def programs(self) -> list[Program]:
        return [seed.program for seed in self.seeds if seed.program is not None]

    @property
    def rejected(self) -> list[Seed]:
        return [seed for seed in self.seeds if seed.program is None]

    def within_dtypes(self, dtypes) -> "SeedSet":
        """The same, with every seed that computes in a dtype outside ``dtypes`` rejected (the
        targets or the passes cannot take it)."""
        from passfuzz.ir.catalogue.base import leaves
        from passfuzz.ir.graph import analyse

        def outside(program: Program) -> list[str]:
            used = {leaf.dtype for info in analyse(program) for leaf in leaves(info)}
            return sorted(used - set(dtypes))

        seeds = [seed if seed.program is None or not outside(seed.program) else
                 Seed(seed.name, None, f"computes in {','.join(outside(seed.program))}, not drawn for these "
                                       "targets and passes")
                 for seed in self.seeds]
        return SeedSet(seeds, self.files, self.warnings, self.cached)

    def without_gpu_kernels(self) -> SeedSet:
        """The same, with every seed holding a kernel bound to GPU threads rejected: the CPU
        targets cannot build one (LLVM's codegen has no thread index: "InternalError: not
        implemented"), and TVM's tests write such kernels to be compared, not run
        (test_transform_rewrite_dataflow_reshape.py)."""
        def bound(program: Program) -> str:
            for _, attrs in program.every_node():
                found = _GPU_THREAD.search(attrs.get("kernel") or "")
                if found:
                    return f"{attrs.get('name', 'a kernel')} on {found.group(1)}"
            return ""

        seeds = [seed if seed.program is None or not bound(seed.program) else
                 Seed(seed.name, None, "holds a kernel bound to GPU threads, which the CPU targets cannot build; "
                                       + bound(seed.program))
                 for seed in self.seeds]
        return SeedSet(seeds, self.files, self.warnings, self.cached)

    def without_ops(self, left_out) -> "SeedSet":
        """The same, with every seed that holds an op of ``left_out`` rejected (the named passes'
        contracts do not accept it: passfuzz.passes.contracts.generation)."""
        def held(program: Program) -> list[str]:
            return sorted(set(program.node_ops()) & set(left_out))

        seeds = [seed if seed.program is None or not held(seed.program) else
                 Seed(seed.name, None, f"holds {','.join(held(seed.program))}, which the named passes do not take")
                 for seed in self.seeds]
        return SeedSet(seeds, self.files, self.warnings, self.cached)

    def summary(self) -> str:
        """``42 modules in 7 files, 30 imported, 12 rejected (9 unknown op relax.nn.conv3d, ...)``"""
        line = f"{len(self.seeds)} module(s) in {self.files} file(s), {len(self.programs)} imported, " \
               f"{len(self.rejected)} rejected"
        groups = Counter(reason_group(seed.reason) for seed in self.rejected).most_common()
        if groups:
            shown = ", ".join(f"{n} {reason}" for reason, n in groups[:5])
            line += f" ({shown}{', ...' if len(groups) > 5 else ''})"
        if self.cached:
            line += f"; {self.cached} file(s) read from the cache"
        return line


def reason_group(reason: str) -> str:
    """A rejection's reason without where it occurred, so that equal causes count together:
    ``unknown op relax.nn.conv3d at main/lv3`` and ``... at main/lv7`` are one group, and so are
    ``cannot import foo: binding lv0 = R.call_tir(...): op relax.call_tir is not in ...`` and
    the same at another binding (the cause is the last of three or more parts)."""
    parts = reason.strip().split(": ")
    cause = parts[-1] if len(parts) >= 3 else reason.strip()
    return re.split(r" (?:at|in) (?=\S+$)| \((?:at|in) [^)]*\)$|; ", cause, maxsplit=1)[0][:80]


def import_program(mod, function: str, arguments: list | None = None) -> Program:
    """The importer, loaded only when a module is imported (raises its ImportRejected)."""
    from passfuzz.relax.importer import import_module

    return import_module(mod, function=function, arguments=arguments)


def entry_functions(mod) -> list[str]:
    """The functions of ``mod`` a seed starts from: ``main`` when there is one, else each public
    Relax function (TVM's tests often name theirs ``foo``, or ``before`` and ``expected``)."""
    from tvm import relax

    names = sorted(gv.name_hint for gv, fn in mod.functions.items() if isinstance(fn, relax.Function))
    if "main" in names:
        return ["main"]
    public = [n for n in names if mod[n].attrs is not None and "global_symbol" in mod[n].attrs]
    return public or names


def seed_paths(text: str) -> list[Path]:
    """``--seeds``' comma-separated paths, ``~`` expanded, glob patterns (``test_transform_*.py``,
    ``**``) matched. SeedError for a path that does not exist or a pattern matching nothing."""
    paths: list[Path] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        part = os.path.expanduser(part)
        matches = sorted(glob.glob(part, recursive=True)) if glob.has_magic(part) else [part]
        if not matches or not Path(matches[0]).exists():
            raise SeedError(f"--seeds: {part}: {'matches nothing' if glob.has_magic(part) else 'no such file or directory'}")
        paths += map(Path, matches)
    if not paths:
        raise SeedError("--seeds: no path given")
    return paths


def seed_files(paths: Iterable[Path | str]) -> list[tuple[Path, bool]]:
    """(file, named) for every ``*.py`` and ``*.json`` file in ``paths`` (directories searched
    recursively, hidden ones left out), ``named`` when the path was the file itself. SeedError if
    a path does not exist."""
    files: list[tuple[Path, bool]] = []
    for path in map(Path, paths):
        if not path.exists():
            raise SeedError(f"--seeds: {path}: no such file or directory")
        if path.is_file():
            files.append((path, True))
            continue
        for file in sorted(path.rglob("*")):
            if file.suffix not in (".py", ".json") or not file.is_file() or \
                    any(part.startswith(".") for part in file.relative_to(path).parts):
                continue
            if file.suffix == ".py" and file.with_suffix(".json").is_file():
                continue  # a corpus reproducer: its record beside it is the seed, executing it only reruns the bug
            files.append((file, False))
    return files


def reachable_module(mod, function: str):
    """``mod`` cut to ``function`` and the functions it calls, transitively: one module of TVM's
    tests often holds ``before`` and ``expected`` side by side, and a seed is one of them."""
    import tvm
    from tvm import relax

    keep, todo = {function}, [function]
    while todo:
        fn = mod[todo.pop()]
        if isinstance(fn, relax.Function):
            for gv in relax.analysis.all_global_vars(fn):
                if gv.name_hint not in keep:
                    keep.add(gv.name_hint)
                    todo.append(gv.name_hint)
    if len(keep) == len(mod.functions):
        return mod
    return tvm.IRModule({gv: fn for gv, fn in mod.functions.items() if gv.name_hint in keep}, attrs=mod.attrs,
                        global_infos=mod.global_infos)


def find_seeds(paths: Iterable[Path | str], convert: Callable[[Any, str], Program] = import_program,
               timeout: float = FILE_TIMEOUT, workers: int = 1, cache: Path | None = None,
               progress: Callable[[int, int, Path], None] | None = None) -> SeedSet:
    """Every seed in ``paths`` (``seed_files``), in the files' order; ``convert(module, function)``
    imports one function of a module. Python files are executed ``workers`` at a time, each in a
    child with ``timeout`` seconds. ``cache``: a directory where what a Python file gave is kept by
    its content (``cache_key``; only with the default ``convert``), so that a file unchanged since is
    not executed again. ``progress(done, total, file)`` after each Python file. SeedError if a path
    does not exist."""
    files = seed_files(paths)
    scripts = [file for file, _ in files if file.suffix == ".py"]
    if convert is not import_program:
        cache = None  # what the cache holds is the importer's
    per_file: dict[Path, tuple[list[Seed], str]] = {}
    keys = {file: cache_key(file) for file in scripts} if cache is not None else {}
    for file in scripts:
        kept = _cached(cache, keys[file], file, timeout) if cache is not None else None
        if kept is not None:
            per_file[file] = kept
    found = SeedSet(cached=len(per_file))
    done = len(per_file)
    if progress is not None and done:
        progress(done, len(scripts), list(per_file)[-1])
    todo = [file for file in scripts if file not in per_file]
    from passfuzz.run.isolate import run_forked_each

    jobs = [lambda file=file: report_modules(file, convert) for file in todo]
    for index, result in run_forked_each(jobs, timeout, workers):
        file = todo[index]
        seeds, warning = _file_result(file, result, timeout)
        per_file[file] = seeds, warning
        if cache is not None:
            _store(cache, keys[file], file, seeds, warning, timeout if result.status == "hang" else None)
        done += 1
        if progress is not None:
            progress(done, len(scripts), file)
    for file, named in files:
        if file.suffix == ".json":
            seeds = _record_seed(file, found.warnings, named)
        else:
            seeds, warning = per_file[file]
            if warning:
                found.warnings.append(f"{file}: {warning}"[:300])
        found.files += bool(seeds)
        found.seeds += seeds
    return found


CACHE_FORMAT = 1  # of a file's entry in the seed cache (``_store``)


def cache_key(path: Path) -> str:
    """What a Python file's seeds depend on, as a file name: its content and where it is (it may
    import its siblings), passfuzz's version and the source of what decides what a file gives (this
    module, the importer, the op and pass catalogues: ``importing_source``), and TVM's version."""
    from passfuzz import __version__

    from .installation import identity

    digest = hashlib.sha256()
    for part in (str(CACHE_FORMAT), str(Path(path).resolve()), __version__, importing_source(), identity()["tvm"]):
        digest.update(f"{part}\0".encode())
    digest.update(Path(path).read_bytes())
    return digest.hexdigest()


@functools.cache
def importing_source() -> str:
    """A digest of the source that decides what a seed file gives: ``passfuzz/ir/`` (Programs, the op
    catalogue), ``passfuzz/relax/`` (the importer) and ``passfuzz/portable/`` it builds with,
    ``passfuzz/passes/`` (pass names) and this module. An edit elsewhere (the engine, the command
    line) leaves the cache as it is."""
    from .installation import source_digest

    package = Path(__file__).resolve().parent.parent
    return source_digest([package / name for name in ("ir", "relax", "portable", "passes")]) + \
        hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def _cached(cache: Path, key: str, path: Path, timeout: float) -> tuple[list[Seed], str] | None:
    """What ``path`` gave when it was last executed with this key, or None: no entry, one that
    cannot be read (a cache entry is only ever executed again), or a file that ran out of a
    shorter time limit than ``timeout`` then (given more time, it may give more)."""
    try:
        doc = json.loads((cache / f"{key}.json").read_text(encoding="utf-8"))
        if doc["hung_after"] is not None and doc["hung_after"] < timeout:
            return None
        seeds = [Seed(f"{path}{item['name']}", Program.from_json(item["program"]) if item["program"] else None,
                      item["reason"], item["given"], tuple(item["passes"]), tuple(item["unnamed"]))
                 for item in doc["seeds"]]
        return seeds, doc["warning"]
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _store(cache: Path, key: str, path: Path, seeds: list[Seed], warning: str, hung_after: float | None) -> None:
    """Keep what ``path`` gave, written whole or not at all; names are kept without the path.
    ``hung_after``: the time limit it ran out of (None: it ended)."""
    from passfuzz.findings.corpus import atomic_write

    doc = {"format": CACHE_FORMAT, "file": str(path), "warning": warning, "hung_after": hung_after,
           "seeds": [{"name": seed.name[len(str(path)):], "program": seed.program.to_json() if seed.program else None,
                      "reason": seed.reason, "given": seed.given, "passes": list(seed.passes),
                      "unnamed": list(seed.unnamed)} for seed in seeds]}
    try:
        atomic_write(cache / f"{key}.json", json.dumps(doc) + "\n")
    except OSError:  # a cache: without it the file is executed again next time
        pass


def _record_seed(path: Path, warnings: list[str], named: bool) -> list[Seed]:
    """A corpus record's or model seed's Program. In a directory, JSON that is neither (no
    "program") is someone else's file and passes silently; a broken one is a warning."""
    from passfuzz.findings.corpus import CorpusError, load

    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError):
        doc = None
    if not named and (not isinstance(doc, dict) or "program" not in doc):
        return []
    try:
        if isinstance(doc, dict) and "frontend" in doc:
            return [Seed(str(path), load_model_seed(doc, path))]
        return [Seed(str(path), load(path).program)]
    except CorpusError as exc:
        warnings.append(f"{exc}"[:300])
        return []


MODEL_SEED_FORMAT = 1  # of a model seed file; the schema pins it


def model_seed(program: Program, origin: Path, frontend: str) -> dict:
    """The model seed file's content (``schemas/model-seed.schema.json``) for ``program``,
    imported from the model at ``origin`` through ``frontend``; checked against the schema."""
    import tvm

    from passfuzz import __version__

    doc = {"format_version": MODEL_SEED_FORMAT, "origin": origin.name, "frontend": frontend,
           "tvm_version": tvm.__version__, "passfuzz_version": __version__, "program": program.to_json()}
    load_model_seed(doc, origin)
    return doc


def load_model_seed(doc: object, path: Path) -> Program:
    """The Program of a model seed file's content; CorpusError naming the file and the field."""
    import jsonschema
    from importlib import resources
    from referencing import Registry, Resource

    from passfuzz.findings.corpus import CorpusError, schema, validate_program

    own = json.loads(resources.files("passfuzz").joinpath("schemas/model-seed.schema.json").read_text())
    registry = Registry().with_resources([(s["$id"], Resource.from_contents(s)) for s in (own, schema())])
    error = jsonschema.exceptions.best_match(jsonschema.Draft7Validator(own, registry=registry).iter_errors(doc))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        raise CorpusError(f"{path}: field {where}: {error.message[:300]}")
    return validate_program(doc["program"], path)


def _file_result(path: Path, result, timeout: float) -> tuple[list[Seed], str]:
    """The seeds one Python file's child sent (``report_modules``), each with the passes its tests
    applied to it, and why executing it failed ('' when it did not). Each seed is sent back as soon
    as it is converted, so a file whose tests hang or crash later still gives the seeds found before."""
    notes = result.notes
    applied = [value for key, value in notes.items() if key.startswith("applied:")]

    def about(name: str) -> list[tuple[str, str]]:  # (pass text, why it has none) the tests applied to it
        return [(text, why) for names, text, why in applied
                if any(name == module or name.startswith(module + "::") for module in names)]

    seeds = []
    for key, (name, value, given) in notes.items():
        if key.startswith("seed:"):
            passes = about(name)
            seeds.append(Seed(name, value if isinstance(value, Program) else None,
                              "" if isinstance(value, Program) else value, given,
                              tuple(dict.fromkeys(text for text, _ in passes if text)),
                              tuple(dict.fromkeys(why for _, why in passes if why))))
    if result.status == "ok":
        return seeds, ""
    why = {"hang": f"took longer than {timeout:g} s", "crash": f"crashed ({result.error})"}.get(
        result.status, "raised " + (result.error.splitlines() or ["an error"])[0])
    kept = f"kept the {len(seeds)} module(s) found before" if seeds else "skipped"
    return seeds, f"{kept}: executing it {why}"


def report_modules(path: Path, convert: Callable[[Any, str], Any]) -> int:
    """Send the parent (``isolate.note``) (name, ``convert(module, function)``, whether the file
    gave the arguments) for every entry function (``entry_functions``) of every IRModule the file
    defines, or (name, one-line reason, ...) where ``convert`` raised; return how many. ``main``'s
    arguments are the file's own where it binds ``ARGUMENTS_NAME`` next to the module
    (``convert(module, "main", arguments=...)``). Executes the file and its tests: call it in a child."""
    from passfuzz.run.isolate import note

    count, applied = 0, 0

    def on_pass(names: tuple[str, ...], text: str, why: str) -> None:
        nonlocal applied
        note(f"applied:{applied}", (names, text, why))
        applied += 1

    for name, mod, given in modules_in(path, on_pass):
        functions = entry_functions(mod)
        if not functions:
            note(f"seed:{count}", (name, "no Relax function", False))
            count += 1
        for function in functions:
            own = given is not None and function == "main"
            try:
                if own:
                    value = convert(reachable_module(mod, function), function, arguments=_arguments(given))
                else:
                    value = convert(reachable_module(mod, function), function)
            except Exception as exc:  # noqa: BLE001 - a rejection is any failure to import, told in one line
                message = (str(exc).strip().splitlines() or [""])[0]
                value = message if type(exc).__name__ == "ImportRejected" else f"{type(exc).__name__}: {message}"
            note(f"seed:{count}", (name if function == "main" else f"{name}::{function}", value, own))
            count += 1
    return count


def _arguments(given) -> list:
    """The arguments a file binds as ``ARGUMENTS_NAME``: a list or tuple, or a function without
    parameters returning one."""
    value = given() if callable(given) else given
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{ARGUMENTS_NAME} must be a list of main's arguments (or a function returning one), "
                         f"not {type(value).__name__}")
    return list(value)


# Names TVM main moved from tvm.relax to tvm.ir: the tests of a checkout of main import them from
# there (VDevice: 17 files of tests/python/relax/ in August 2026; DummyGlobalInfo: the TVMScript
# parser's tests), which fails on a release that has them in tvm.relax (0.27). The child executing
# a test file names them in tvm.ir too, in that child only.
MOVED_TO_TVM_IR = ("VDevice", "DummyGlobalInfo")


def modules_in(path: Path, on_pass: Callable[[tuple[str, ...], str, str], None] | None = None
               ) -> Iterator[tuple[str, Any, Any]]:
    """Execute the file as a module named after it (not ``__main__``, so its ``tvm.testing.main()``
    does not run) and yield its IRModules, each once: those bound at module level and in the
    classes it defines, then those its tests parse with ``@I.ir_module`` inside their bodies
    (TVM's tests mostly write ``class Before`` inside ``def test_...():``). Every test function
    and method that takes no argument is called, outside pytest; what a test raises is ignored,
    since its modules were parsed when its body reached them. Each comes with what the namespace
    holding it binds as ``ARGUMENTS_NAME`` (None if nothing; modules parsed inside tests: None).
    ``on_pass(module names, pass text, why)`` is told the pass a test stopped at (``pass_text``:
    the ``passfuzz --passes`` text of a pass of ``tvm.relax.transform`` with literal arguments, else
    '' and why) and the modules it is about: the module it was applied to, those the test parsed,
    and for a test method those of its class; a pass given arguments, only the module it was applied
    to when that is one of the file's (its arguments may name that module's functions or variables)."""
    import tvm
    import tvm_ffi
    from tvm.script.parser.ir import entry

    shown, path = str(path), Path(path).resolve()
    name = "passfuzz_seed_" + re.sub(r"\W", "_", path.stem)
    parsed: list[tuple[str, Any]] = []  # (qualified name of the class, module), as ir_module parses them
    parse = entry.parse

    def recording_parse(program, *args, **kwargs):
        mod = parse(program, *args, **kwargs)
        if isinstance(program, type) and isinstance(mod, tvm.IRModule):
            parsed.append((program.__qualname__.replace(".<locals>", ""), mod))
        return mod

    entry.parse = recording_parse  # this child only: ir_module looks its parse up at each call
    for moved in MOVED_TO_TVM_IR:
        if not hasattr(tvm.ir, moved) and hasattr(tvm.relax, moved):
            setattr(tvm.ir, moved, getattr(tvm.relax, moved))  # the same class, named in tvm.ir too
    made = _recording_pass_constructors(tvm.relax.transform)  # before the file imports them
    expecting = _counting_expected_failures()  # likewise pytest.raises
    # the importer's list of TVM's global functions, taken before the file registers its own
    from passfuzz.relax import importer  # noqa: F401
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))  # sibling helpers the file imports
    sys.modules[name] = module
    spec.loader.exec_module(module)
    seen: set = set()
    named: dict[int, str] = {}  # structural hash -> the name the module was first yielded under

    def first_time(mod, given=None) -> bool:  # the same module with other arguments is another seed
        key = (tvm_ffi.structural_hash(mod), id(given))
        named.setdefault(key[0], "")
        if key in seen:
            return False
        seen.add(key)
        return True

    def walk(namespace: dict, prefix: str, depth: int) -> Iterator[tuple[str, Any, Any]]:
        for key, value in list(namespace.items()):
            if isinstance(value, tvm.IRModule) and first_time(value, namespace.get(ARGUMENTS_NAME)):
                named[tvm_ffi.structural_hash(value)] = named[tvm_ffi.structural_hash(value)] or f"{prefix}::{key}"
                yield f"{prefix}::{key}", value, namespace.get(ARGUMENTS_NAME)
            elif isinstance(value, type) and value.__module__ == name and depth < _NESTING:
                yield from walk(vars(value), f"{prefix}::{key}", depth + 1)

    yield from walk(vars(module), shown, 0)
    for test in _tests(module, name):
        parsed.clear()
        applied: list[tuple[Any, Any]] = []
        with _stopping_at_the_first_pass_or_build(tvm, applied, expecting):  # not while importing: the importer
            # may run passes
            try:
                test()
            except BaseException:  # noqa: BLE001 - a failing or skipped test still parsed its modules
                pass
        about = []
        for qualname, mod in parsed:
            if first_time(mod):
                named[tvm_ffi.structural_hash(mod)] = f"{shown}::{qualname.replace('.', '::')}"
                yield f"{shown}::{qualname.replace('.', '::')}", mod, None
            about.append(named[tvm_ffi.structural_hash(mod)])
        if on_pass is None or not applied:
            continue
        owner = getattr(test, "__self__", None)
        if owner is not None:  # a test method: about its class's modules (``TestX::Before``)
            about += [known for known in named.values() if known.startswith(f"{shown}::{type(owner).__name__}::")]
        the_pass, mod, expected_to_fail = applied[0]
        text, why = made[id(the_pass)][1:] if id(the_pass) in made else \
            ("", f"a pass not made by tvm.relax.transform ({_pass_name(the_pass)})")
        if expected_to_fail:
            text, why = "", f"{_pass_name(the_pass)} inside pytest.raises: its test expects it to fail"
        if isinstance(mod, tvm.IRModule) and named.get(tvm_ffi.structural_hash(mod)):
            if "(" in text:  # its arguments may name what only that module holds (BindSymbolicVars({'n': 16}))
                about = []
            about.append(named[tvm_ffi.structural_hash(mod)])
        if about:
            on_pass(tuple(dict.fromkeys(about)), text, why)


def _pass_name(the_pass) -> str:
    try:
        return str(the_pass.info.name)
    except Exception:  # noqa: BLE001 - only for a message
        return type(the_pass).__name__


def _recording_pass_constructors(transform) -> dict[int, tuple[Any, str, str]]:
    """Replace every pass constructor function of ``tvm.relax.transform`` (in this child) by one
    that records what it made: id(pass) -> (the pass, kept alive so that ids stay unique; its
    ``passfuzz --passes`` text or ''; why it has none)."""
    import functools

    from passfuzz.passes.names import builtin_pass_names

    made: dict[int, tuple[Any, str, str]] = {}
    for pass_name in builtin_pass_names():
        original = getattr(transform, pass_name)
        if not inspect.isfunction(original):  # a class: subclassed and checked with isinstance, left alone
            continue

        @functools.wraps(original)
        def constructor(*args, _original=original, _name=pass_name, **kwargs):
            the_pass = _original(*args, **kwargs)
            made[id(the_pass)] = (the_pass, *pass_text(_name, args, kwargs))
            return the_pass

        setattr(transform, pass_name, constructor)
    return made


def pass_text(name: str, args: tuple, kwargs: dict) -> tuple[str, str]:
    """(``passfuzz --passes`` text, '') for pass ``name`` called with ``args`` and ``kwargs``, when
    each is a Python literal; else ('', why not)."""
    import ast

    def literal(value) -> str | None:
        text = repr(value)
        try:
            back = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
        return text if type(back) is type(value) and back == value else None

    parts = [literal(value) for value in args] + [None if literal(value) is None else f"{key}={literal(value)}"
                                                   for key, value in kwargs.items()]
    if any(part is None for part in parts):
        given = [type(value).__name__ for value in (*args, *kwargs.values()) if literal(value) is None]
        return "", f"{name} with arguments that are no Python literals ({', '.join(dict.fromkeys(given))})"
    return (f"{name}({', '.join(parts)})" if parts else name), ""


def _counting_expected_failures() -> list[int]:
    """Replace ``pytest.raises`` (in this child) by one whose context counts, in the list returned,
    how many are open: a pass applied inside one is expected to fail, and a test of that is no
    module to check with it. [0] when pytest is not installed."""
    open_ = [0]
    try:
        import pytest
    except ImportError:
        return open_
    raises = pytest.raises

    class Counted:
        def __init__(self, context):
            self.context = context

        def __enter__(self):
            open_[0] += 1
            return self.context.__enter__()

        def __exit__(self, *exc):
            open_[0] -= 1
            return self.context.__exit__(*exc)

    def counted_raises(*args, **kwargs):
        context = raises(*args, **kwargs)
        return Counted(context) if hasattr(context, "__enter__") else context

    pytest.raises = counted_raises
    return open_


class _Enough(Exception):
    """A test reached a pass or a build: the modules it is about are parsed by then."""


@contextlib.contextmanager
def _stopping_at_the_first_pass_or_build(tvm, applied: list, expecting: list[int]) -> Iterator[None]:
    """Inside, applying a pass or building ends the test: what follows (the pass, the comparison,
    compiling and running) costs seconds and parses nothing new. ``applied`` gets (the pass, the
    module it was applied to, whether it ran inside ``pytest.raises``: ``expecting[0]`` > 0) when a
    pass ended it."""
    def enough(*args, **kwargs):
        raise _Enough()

    def first_pass(the_pass, mod=None, *args, **kwargs):
        applied.append((the_pass, mod, expecting[0] > 0))
        raise _Enough()

    saved = tvm.ir.transform.Pass.__call__, tvm.compile, tvm.relax.build
    tvm.ir.transform.Pass.__call__ = first_pass
    tvm.compile = tvm.relax.build = enough
    try:
        yield
    finally:
        tvm.ir.transform.Pass.__call__, tvm.compile, tvm.relax.build = saved


def _tests(module, name: str) -> Iterator[Callable[[], Any]]:
    """The test functions and methods of ``module`` that take no argument (pytest's parametrized
    and fixture-taking tests are left out: their arguments are pytest's)."""
    def bare(fn) -> bool:
        try:
            return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                       for p in inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            return False

    for key, value in list(vars(module).items()):
        if key.startswith("test") and inspect.isfunction(value) and value.__module__ == name and bare(value):
            yield value
        elif key.startswith("Test") and inspect.isclass(value) and value.__module__ == name:
            try:
                instance = value()
            except BaseException:  # noqa: BLE001 - a class that needs pytest to set it up
                continue
            for attr in dir(value):
                method = getattr(instance, attr, None)
                if attr.startswith("test") and inspect.ismethod(method) and bare(method):
                    yield method

"""TVM's own tests as a validation corpus (``passfuzz check-tests``): every module their files
define, checked as it is, not mutated.

Alive2 found LLVM bugs by checking LLVM's own unit tests; TVM's Relax tests hold modules written to
exercise each pass. A module is found and imported as a seed is (passfuzz.campaign.seeds: the
files executed in children, on every core, through the seed cache), and checked with the passes
its tests apply to it (recorded where a test first applies a pass) and the pass its file is named
after (``test_transform_fold_constant.py``: FoldConstant), or with ``--passes`` instead. Each pass
list gets its prerequisites and is checked against the pass contracts before it runs (a list
outside them is reported, not run); a module a pass's precondition refuses is seen in the child
that applies it, and reported so too. A check is one trial (passfuzz.judge.trial: both sides, the
numpy reference, the boundary oracles) on the module's arguments and draws inside its imported
ranges; findings are named against the known bugs, saved, reduced and saved again as a fuzzing
run's are (``Fuzzer.check_as_it_is``). The report is per file: modules, imported, checked,
findings, and why the rest were not checked.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import multiprocessing.connection
import re
import signal
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

from passfuzz.findings import corpus
from passfuzz.ir.program import Program
from passfuzz.passes.names import PassSpec

from .engine import FuzzConfig, Fuzzer
from .seeds import Seed, SeedSet, reason_group

OUTSIDE = "outside the pass contracts: "
NOT_REACHED = "not reached: the time was up"
INTERRUPTED = "not reached: interrupted"


def file_pass(path: str | Path) -> str:
    """The pass of ``tvm.relax.transform`` a test file is named after, '' for none:
    ``test_transform_<snake name>[_more].py`` or ``test_<snake name>[_more].py``, the longest name
    that fits (``test_transform_legalize_ops_nn.py``: LegalizeOps; ``test_transform_fuse_ops_by_pattern.py``:
    FuseOpsByPattern, not FuseOps)."""
    from passfuzz.passes.names import builtin_pass_names

    match = re.fullmatch(r"test_(?:transform_)?(\w+)", Path(path).stem)
    if match is None:
        return ""
    rest = match.group(1)
    fits = [name for name in builtin_pass_names() if rest == snake(name) or rest.startswith(snake(name) + "_")]
    return max(fits, key=len, default="")


def snake(name: str) -> str:
    """``FoldConstant`` -> ``fold_constant``, ``FuseTIR`` -> ``fuse_tir``, ``AnnotateTIROpPattern`` ->
    ``annotate_tir_op_pattern``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


@dataclass(frozen=True)
class Check:
    """One imported module with one pass list (prerequisites included), to be checked."""

    module: str  # the seed's name, path::Class::Attribute
    program: Program
    passes: tuple[PassSpec, ...]

    @property
    def file(self) -> str:
        return self.module.split("::", 1)[0]


@dataclass
class Plan:
    """What will be checked, and why each module that will not be is not."""

    checks: list[Check] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)  # module -> why none of its pass lists runs


def pass_lists(seed: Seed, given: Sequence[PassSpec] | None,
               siblings: Sequence[str] = ()) -> tuple[list[tuple[PassSpec, ...]], list[str]]:
    """The pass lists ``seed`` is checked with, each with its prerequisites and inside the pass
    contracts, and one line for each pass it cannot be checked with: ``given`` (``--passes``),
    else the passes its tests applied to it, then its file's (``file_pass``). ``siblings``: the
    other functions of its module that are seeds of their own; a pass naming one is refused."""
    from passfuzz.judge import gradient
    from passfuzz.passes.catalogue import info, with_prerequisites
    from passfuzz.passes.contracts import sequence_violation
    from passfuzz.passes.names import PassSpecError, resolve

    candidates: list[list[PassSpec]] = [list(given)] if given is not None else []
    refused: list[str] = []
    if given is None:
        texts = list(dict.fromkeys([*seed.passes, *filter(None, [file_pass(seed.file)])]))
        for text in texts:
            try:
                spec = _entry_as_main(resolve(text), seed.name.rsplit("::", 1)[-1])
            except PassSpecError as exc:
                refused.append(f"pass {text}: {str(exc)[:120]}")
                continue
            other = next((name for name in _names_in(spec) if name in siblings), None)
            if other is not None:  # the module's other function, which this seed's Program does not hold
                refused.append(f"its test's {spec.name} names {other}, another function of its module")
            else:
                candidates.append([spec])
        if not texts:
            refused += [f"its test applies {why}" for why in seed.unnamed] or \
                ["no pass: its tests apply none and its file's name names none"]
    lists = []
    for named in candidates:
        passes = with_prerequisites(named)
        skipped = next((f"{spec.name} is not fuzzable here: {info(spec).skip}" for spec in passes if info(spec).skip),
                       "")
        broken = sequence_violation(passes)
        if skipped:
            refused.append(skipped)
        elif gradient.involved(passes):
            refused.append("Gradient differentiates loss programs drawn for it, which a test's module is not")
        elif broken:
            refused.append(OUTSIDE + broken)
        else:
            lists.append(tuple(passes))
    unique = {tuple(spec.text for spec in passes): passes for passes in reversed(lists)}  # arguments may not hash
    return list(reversed(unique.values())), refused


def _entry_as_main(spec: PassSpec, entry: str) -> PassSpec:
    """``spec`` with each argument naming the seed's function ``entry`` (``BindSymbolicVars({'n': 16},
    'main_1')``) naming ``main`` instead: a seed's Program builds its function as ``main``."""
    from passfuzz.passes.names import resolve

    from .seeds import pass_text

    if entry == "main" or entry not in _names_in(spec):
        return spec

    def renamed(value):
        if isinstance(value, (list, tuple)):
            return type(value)(renamed(item) for item in value)
        return "main" if isinstance(value, str) and value == entry else value

    args = tuple(renamed(value) for value in spec.args)
    kwargs = {key: renamed(value) for key, value in spec.kwargs}
    return resolve(pass_text(spec.name, args, kwargs)[0])


def _names_in(spec: PassSpec) -> list[str]:
    """The strings among a pass's arguments, those inside a list included
    (``LiftTransformParams(shared_transform=['func1', 'func2'])``): the functions it may name."""
    values = [*spec.args, *dict(spec.kwargs).values()]
    return [item for value in values for item in (value if isinstance(value, (list, tuple)) else [value])
            if isinstance(item, str)]


def plan_checks(found: SeedSet, given: Sequence[PassSpec] | None, dtypes: Sequence[str] | None = None,
                gpu: bool = False) -> Plan:
    """Every imported seed of ``found`` with each of its pass lists (``pass_lists``); a seed none
    of them can check, computing in a dtype outside ``dtypes`` (the targets cannot), or holding a
    kernel bound to GPU threads where no target is a ``gpu``, is refused with the first reason.
    The checks take the files in turn (each file's first, then each file's second, ...), so a run
    cut short by --max-time has checked some of every file rather than all of the first files."""
    plan = Plan()
    drawable = found.within_dtypes(dtypes) if dtypes else found
    drawable = drawable if gpu else drawable.without_gpu_kernels()
    functions: dict[str, set[str]] = {}  # a module's name -> its functions that are seeds of their own
    for seed in found.seeds:
        module, _, function = seed.name.rpartition("::")
        functions.setdefault(module, set()).add(function)
    for seed, kept in zip(found.seeds, drawable.seeds):
        if seed.program is None:
            continue
        if kept.program is None:
            plan.refused[seed.name] = kept.reason
            continue
        module, _, function = seed.name.rpartition("::")
        lists, refused = pass_lists(seed, given, sorted(functions[module] - {function}))
        if not lists:
            plan.refused[seed.name] = refused[0]
        plan.checks += [Check(seed.name, seed.program, passes) for passes in lists]
    turn: Counter = Counter()
    places = []  # each check's place within its file: 1, 2, ...
    for check in plan.checks:
        turn[check.file] += 1
        places.append(turn[check.file])
    plan.checks = [check for _, _, check in sorted(zip(places, range(len(places)), plan.checks))]
    return plan


@dataclass(frozen=True)
class Checked:
    """What one Check came to; plain data, sent back from a worker."""

    module: str
    passes: tuple[str, ...]
    outcome: str  # "clean", "finding", "known", "variant", "incomparable", "defect", or why it was not checked
    detail: str = ""  # the finding's kind and message, or why it was incomparable or did not run
    kind: str = ""
    fingerprint: str = ""
    path: str = ""  # where the finding was saved
    known_as: str = ""  # the known fault or fingerprint it is a case of
    blamed: bool = False  # a new finding blaming a pass (not TVM's plain build: passfuzz.judge.finding)
    seconds: float = 0.0

    @property
    def ran(self) -> bool:
        """Was the module checked with these passes (inside their contracts, to a verdict)?"""
        return self.outcome in ("clean", "finding", "known", "variant")


def check_one(fuzzer: Fuzzer, check: Check) -> Checked:
    """One module with one pass list, as ``Fuzzer.check_as_it_is`` checks it."""
    started = time.monotonic()
    verdict, optimized, known_as, path = fuzzer.check_as_it_is(check.program, list(check.passes))
    seconds = time.monotonic() - started
    texts = tuple(spec.text for spec in check.passes)
    finding = verdict.finding
    said = {"module": check.module, "passes": texts, "seconds": seconds}
    outside = finding.outside_contract if finding is not None else \
        optimized.outside_contract if optimized is not None else ""
    if outside:  # a precondition the child saw the module break, before the pass ran
        return Checked(outcome=OUTSIDE + outside, **said)
    if verdict.generator_defect:
        return Checked(outcome="defect", detail=verdict.generator_defect.splitlines()[0][:300], **said)
    if finding is None:
        if verdict.incomparable:
            return Checked(outcome="incomparable", detail=verdict.incomparable.splitlines()[0][:300], **said)
        return Checked(outcome="clean", **said)
    message = f"{finding.kind}: {(finding.message.splitlines() or [''])[0][:200]}"
    found = {"kind": finding.kind, "fingerprint": finding.fingerprint, "detail": message}
    if known_as:
        return Checked(outcome="known", known_as=known_as, **found, **said)
    fid = corpus.finding_id(finding.kind, finding.fingerprint)
    if finding.variant_of:
        return Checked(outcome="variant", known_as=finding.variant_of,
                       path=fuzzer.stats.variants.get(fid, "").rpartition(" ")[2], **found, **said)
    return Checked(outcome="finding", path=str(path or ""), blamed=finding.blamed, **found, **said)


def run_checks(checks: Sequence[Check], config: FuzzConfig, workers: int,
               on_checked: Callable[[int, Checked], None]) -> tuple[list[Checked | None], str]:
    """Check each of ``checks`` (``workers`` processes, each with a Fuzzer on the shared corpus),
    telling ``on_checked(index, checked)`` as each ends; stop starting new ones past
    ``config.max_time`` or at Ctrl-C (a check under way finishes, a reduction stops and keeps the
    finding's first save). Returns what each came to (None: not reached) and why the run stopped
    ('' when every check ran)."""
    results: list[Checked | None] = [None] * len(checks)
    stop = [""]
    started = time.monotonic()

    def record(index: int, checked: Checked) -> None:
        results[index] = checked
        on_checked(index, checked)

    if workers == 1 or len(checks) <= 1:
        fuzzer = Fuzzer(dataclasses.replace(config, max_time=None))
        with _stopping_on_sigint(fuzzer, stop):
            for index, checked in _checks_in_turn(fuzzer, checks, range(len(checks)), config.max_time, started,
                                                  stop):
                record(index, checked)
    else:
        stop[0] = _in_workers(checks, config, workers, started, record)
    if not stop[0] and any(result is None for result in results):
        stop[0] = NOT_REACHED
    return results, stop[0]


@contextlib.contextmanager
def _stopping_on_sigint(fuzzer: Fuzzer, stop: list[str]) -> Iterator[None]:
    """Inside, Ctrl-C stops the checks after the one under way (and a reduction at its next step);
    a second Ctrl-C stops at once."""
    def interrupted(signum, frame):
        if stop[0] == INTERRUPTED:
            raise KeyboardInterrupt
        stop[0] = INTERRUPTED
        fuzzer.interrupted = True

    previous = signal.signal(signal.SIGINT, interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _checks_in_turn(fuzzer: Fuzzer, checks: Sequence[Check], indices, max_time: float | None, started: float,
                    stop: list[str]) -> Iterator[tuple[int, Checked]]:
    for index in indices:
        if stop[0] or (max_time is not None and time.monotonic() - started > max_time):
            return
        try:
            yield index, check_one(fuzzer, checks[index])
        except KeyboardInterrupt:  # a reduction stopped by Ctrl-C: the finding's first save is kept
            stop[0] = INTERRUPTED
            return


def _in_workers(checks: Sequence[Check], config: FuzzConfig, workers: int, started: float,
                record: Callable[[int, Checked], None]) -> str:
    """The checks shared by ``workers`` forked processes, each taking the next one not taken; the
    checks themselves are inherited by the fork, only indices and results cross. Returns why it
    stopped early ('' if it did not)."""
    context = multiprocessing.get_context("fork")
    taken = context.Value("i", 0)
    processes, readers = [], []
    for worker in range(min(workers, len(checks))):
        reader, writer = context.Pipe(duplex=False)
        process = context.Process(target=_worker, args=(checks, config, worker, taken, started, writer), daemon=True)
        process.start()
        writer.close()
        processes.append(process)
        readers.append(reader)
    stop = ""
    open_readers = list(readers)
    while open_readers:
        try:
            for reader in multiprocessing.connection.wait(open_readers, timeout=1.0):
                try:
                    message = reader.recv()
                except EOFError:
                    open_readers.remove(reader)
                    continue
                if isinstance(message, str):  # the worker's last word: why it stopped
                    stop = stop or message
                else:
                    record(*message)
        except KeyboardInterrupt:
            if stop == INTERRUPTED:  # a second Ctrl-C: the workers are stopped at once
                for process in processes:
                    process.kill()
                break
            stop = INTERRUPTED  # the workers got it too: each ends its check under way
    for process in processes:
        process.join(timeout=5)
    return stop


def _worker(checks: Sequence[Check], config: FuzzConfig, worker: int, taken, started: float, writer) -> None:
    fuzzer = Fuzzer(dataclasses.replace(config, max_time=None), worker=worker)
    stop = [""]

    def indices() -> Iterator[int]:
        while True:
            with taken.get_lock():
                index = taken.value
                taken.value += 1
            if index >= len(checks):
                return
            yield index

    with _stopping_on_sigint(fuzzer, stop):
        for index, checked in _checks_in_turn(fuzzer, checks, indices(), config.max_time, started, stop):
            writer.send((index, checked))
    writer.send(stop[0])
    writer.close()


def grouped(why: str) -> str:
    """Why a module was not checked, without what tells one module from another, so that equal
    causes count together: a contract without its citation of TVM's source and what broke it in
    this module, any other reason as ``seeds.reason_group`` groups it."""
    if why.startswith(OUTSIDE):
        return re.split(r" \((?:py|cc|test|unsure):", why)[0][:200]
    return reason_group(why)


@dataclass
class FileReport:
    """One test file: how many modules it defines, imported, checked, the findings, and why the
    rest were not checked (grouped reasons, counted in modules)."""

    file: str
    modules: int = 0
    imported: int = 0
    checked: int = 0
    findings: list[Checked] = field(default_factory=list)  # new, known and variants alike
    not_checked: Counter = field(default_factory=Counter)
    passes: Counter = field(default_factory=Counter)  # pass list (comma-separated) -> modules checked with it
    warning: str = ""

    def to_json(self) -> dict:
        return {"file": self.file, "modules": self.modules, "imported": self.imported, "checked": self.checked,
                "findings": [{"module": f.module, "passes": list(f.passes), "outcome": f.outcome, "kind": f.kind,
                              "fingerprint": f.fingerprint, "path": f.path, "known_as": f.known_as,
                              "message": f.detail} for f in self.findings],
                "not_checked": dict(self.not_checked.most_common()), "passes": dict(self.passes.most_common()),
                "warning": self.warning}


def file_reports(found: SeedSet, plan: Plan, checks: Sequence[Check], results: Sequence[Checked | None],
                 stop: str) -> list[FileReport]:
    """Per file, in the order the files were found: a module counts as checked when one of its
    pass lists ran; one that was not is counted under the first reason (the importer's, a refusal,
    the outcome of its checks, or the run stopping first)."""
    reports: dict[str, FileReport] = {}
    for warning in found.warnings:
        file = warning.split(": ", 1)[0]
        reports.setdefault(file, FileReport(file)).warning = warning.split(": ", 1)[-1]
    outcomes: dict[str, list[Checked | None]] = {}
    for check, result in zip(checks, results):
        outcomes.setdefault(check.module, []).append(result)
    for seed in found.seeds:
        report = reports.setdefault(seed.file, FileReport(seed.file))
        report.modules += 1
        if seed.program is None:
            report.not_checked[f"not imported: {reason_group(seed.reason)}"] += 1
            continue
        report.imported += 1
        if seed.name in plan.refused:
            report.not_checked[grouped(plan.refused[seed.name])] += 1
            continue
        done = outcomes.get(seed.name, [])
        report.findings += [r for r in done if r is not None and r.outcome in ("finding", "known", "variant")]
        if any(r is not None and r.ran for r in done):
            report.checked += 1
            report.passes.update({",".join(r.passes) for r in done if r is not None and r.ran})
        elif any(r is not None for r in done):
            first = next(r for r in done if r is not None)
            why = {"defect": "the unoptimized module does not run",
                   "incomparable": f"incomparable: {first.detail}"}.get(first.outcome, first.outcome)
            report.not_checked[grouped(why)] += 1
        else:
            report.not_checked[stop or NOT_REACHED] += 1
    order = {seed.file: index for index, seed in enumerate(found.seeds)}
    return sorted(reports.values(), key=lambda r: order.get(r.file, len(order)))

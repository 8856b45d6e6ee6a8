"""Oracles at every pass boundary: what must hold of each module a pass returns, beyond computing
what the original computes.

- ``print-round-trip``: ``mod.script()`` parsed back by ``tvm.script.from_source`` is structurally
  equal to the module (passfuzz.portable.round_trip).
- ``json-round-trip``: ``tvm.ir.save_json`` then ``load_json`` gives a structurally equal module.
  Each is checked in a child of its own: on TVM 0.27.0.post1 ``save_json`` segfaults on any
  module holding a PrimExpr (every Relax module with a tensor shape).
- ``nondeterministic-pass``: the passes applied, in lockstep, to two fresh builds of the Program
  give structurally equal modules after every pass.
- ``nondeterministic-output``: the optimized module compiled and run twice gives bit-identical
  outputs on CPU targets (off by default: it costs a side).
- idempotence: each pass that changed the module, applied once more to its own output (a third
  fresh build, the passes applied in lockstep), gives it back unchanged; a change is a
  ``not-idempotent`` observation (passfuzz.judge.observations), not a finding. A pass that raises or
  crashes there is a bug: the sequence with that pass repeated is run as an optimized side, and
  its pass-error or crash is the finding (so replay and reduction see it as any failing pass).
  Passes the catalogue does not expect idempotent (``PassInfo.not_idempotent``), and a repeat
  that breaks the pass's contract (its phase, its preconditions on its own output), are not checked.

The JSON round trip is off by default too (``BoundaryChecks``).

The checks of the modules (all but ``nondeterministic-output``) run in the optimized side's child
of a fresh example, on the modules its passes return (``module_checks``, an observer of
passfuzz.run.execute), which spares a child that would build the module and apply the passes once
more (about a tenth of an example: benchmarks/throughput.py --levers). A check that crashes, hangs
or raises there has the side run again without them (so the side's verdict stands), and then the
checks run in a child of their own, as they do while shrinking.

The original module is checked first, before any pass: a module that does not round-trip before
any pass shows a printer, parser or serializer bug that blames no pass (``passes=()``, saved and
listed apart like a reference mismatch), and the check is then not applied after the passes (it
would fail there for the same reason). A failure after a pass blames the first pass after which
the check fails, so the finding needs no prefix search. The printer is checked first, then
determinism, then JSON: on TVM 0.27 the original's JSON always crashes, a known finding once
saved, and checked last it hides no other.

A signature's detail is the parser's error normalized (``finding.normalize_error``), or where the
two modules differ: the last three names of the structural-equality path (``extent.ty.dtype``),
without the function names and indices, which vary from program to program.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import tvm
import tvm_ffi

from passfuzz.ir.program import Node, Param, Program
from passfuzz.passes.catalogue import info as pass_info
from passfuzz.passes.contracts import module_violation, sequence_violation
from passfuzz.passes.names import PassSpec
from passfuzz.portable.round_trip import first_line, json_round_trip, print_round_trip
from passfuzz.portable.standalone import GPU_KINDS, kind_of
from passfuzz.relax.build import build_module
from passfuzz.run import isolate
from passfuzz.run.builds import PLAIN_BUILD, Build
from passfuzz.run.execute import Outcome, run_side

from .finding import Finding, new_finding, normalize_error
from .observations import NOT_IDEMPOTENT
from .oracle import Verdict, judge

PRINT_ROUND_TRIP = "print-round-trip"
JSON_ROUND_TRIP = "json-round-trip"
NONDETERMINISTIC_PASS = "nondeterministic-pass"
NONDETERMINISTIC_OUTPUT = "nondeterministic-output"
KINDS = (PRINT_ROUND_TRIP, JSON_ROUND_TRIP, NONDETERMINISTIC_PASS, NONDETERMINISTIC_OUTPUT)
# The stage each kind names: "<head>:<pass>", or "<head>:original" before any pass.
STAGE_HEADS = {PRINT_ROUND_TRIP: "print", JSON_ROUND_TRIP: "json", NONDETERMINISTIC_PASS: "repeat",
               NONDETERMINISTIC_OUTPUT: "rerun"}


@dataclass(frozen=True)
class BoundaryChecks:
    """Which boundary oracles run; the defaults are those that cost little (benchmarks/boundaries.py)
    and tell something on this TVM: on 0.27.0.post1 the JSON round trip crashes on every module
    with a tensor, one fault, so it is asked for (``--serialization-round-trip``)."""

    print_round_trip: bool = True
    json_round_trip: bool = False
    same_passes: bool = True  # nondeterministic-pass
    same_outputs: bool = False  # nondeterministic-output: a second compile and run of the optimized module
    idempotence: bool = True  # each pass applied once more to its own output (passfuzz.judge.observations)
    missed_rewrites: bool = True  # a pass that left a form it promises to rewrite (passfuzz.judge.observations)

    @classmethod
    def only(cls, kind: str) -> BoundaryChecks:
        """The one check that shows a finding of ``kind`` (replaying a record); none for another kind."""
        return cls(kind == PRINT_ROUND_TRIP, kind == JSON_ROUND_TRIP, kind == NONDETERMINISTIC_PASS,
                   kind == NONDETERMINISTIC_OUTPUT, kind == NOT_IDEMPOTENT, kind == "missed-rewrite")

    @property
    def in_child(self) -> bool:
        return self.print_round_trip or self.json_round_trip or self.same_passes or self.idempotence


NO_CHECKS = BoundaryChecks(False, False, False, False, False, False)


def boundary_verdict(program: Program, passes: Sequence[PassSpec], original: Outcome, optimized: Outcome,
                     targets: Sequence[str], timeout: float, build: Build, checks: BoundaryChecks) -> Verdict:
    """A boundary finding of an example whose sides already matched, or Verdict() (see the module doc).
    A child that crashes or hangs outside the JSON round trip's own child tells nothing new (the
    optimized side applied the same passes): no verdict."""
    before_passes = Verdict()  # a finding of the original module, told if nothing blames a pass
    if checks.in_child:
        if optimized.observed is not None:  # checked in the optimized side's child (module_checks)
            child = isolate.ChildResult("ok", optimized.observed[0], notes=optimized.observed[1])
        else:
            if checks.print_round_trip:
                _warm_up()
            child = isolate.run_forked(lambda: _check_modules(program, passes, checks, timeout), timeout)
        observed = _not_idempotent(passes, child.notes.get("not_idempotent"))
        before_passes = Verdict(observations=observed)
        if child.status == "ok" and child.value is not None:
            kind, ran, detail, message, stage = child.value
            before_passes = Verdict(new_finding(kind, tuple(passes[:ran]), detail, message, stage), observations=observed)
            if ran:
                return before_passes
        if child.notes.get("again_raised") or (child.status in ("crash", "hang") and child.last_mark.startswith("again:")):
            repeated = _repeated_failure(program, passes, child.notes["again"], original, targets, timeout, build)
            if repeated.finding is not None:
                return repeated
    if checks.same_outputs and optimized.ok:
        rerun = _rerun_verdict(program, passes, original, optimized, targets, timeout, build)
        if rerun.finding is not None and (rerun.finding.passes or before_passes.finding is None):
            return Verdict(rerun.finding, observations=before_passes.observations)
    return before_passes


def _not_idempotent(passes: Sequence[PassSpec], noted) -> tuple[Finding, ...]:
    """The ``not-idempotent`` observation the child noted ((passes run, where the modules differ)), if any."""
    if not noted:
        return ()
    ran, where = noted
    spec = passes[ran - 1]
    return (new_finding(NOT_IDEMPOTENT, tuple(passes[:ran]), f"changes again at {_path_tail(where)}",
                        f"{spec.text} applied once more to its own output changes it: {where}", f"again:{spec.text}"),)


def _repeated_failure(program: Program, passes: Sequence[PassSpec], ran: int, original: Outcome,
                      targets: Sequence[str], timeout: float, build: Build) -> Verdict:
    """The pass the child applied once more to its own output raised or crashed there: the sequence
    up to it with it repeated, run as an optimized side and judged, is the finding (a pass-error,
    crash or hang of that pass), or nothing when it does not fail again."""
    repeated = (*passes[:ran], passes[ran - 1])
    verdict = judge(program, repeated, original, run_side(program, repeated, targets, timeout, build), build)
    failed = verdict.finding is not None and verdict.finding.stage == f"pass:{passes[ran - 1].text}"
    return verdict if failed else Verdict()


def module_checks(program: Program, passes: Sequence[PassSpec], checks: BoundaryChecks,
                  timeout: float) -> ModuleChecks | None:
    """The checks to run in the optimized side's child (``run_side``'s observer), or None when
    none of them runs in a child. Warms the printer up first, so the child inherits it."""
    if not checks.in_child:
        return None
    if checks.print_round_trip:
        _warm_up()
    return ModuleChecks(program, passes, checks, timeout)


class ModuleChecks:
    """The checks of the modules the passes return, in a child: the optimized side's, as its
    observer (passfuzz.run.execute.PassObserver), or one of their own (``_check_modules``).
    ``result()`` is (kind, passes run, detail, message, stage) of the first finding, pass-blaming
    ones before those of the original module, or None; and the notes (``again``, ``again_raised``,
    ``not_idempotent``), each also sent to the parent when made, which reads notes after a crash."""

    def __init__(self, program: Program, passes: Sequence[PassSpec], checks: BoundaryChecks, timeout: float):
        self.program, self.passes, self.checks, self.timeout = program, passes, checks, timeout
        self.found = self.found_before_passes = None
        self.notes: dict = {}
        self.printing = checks.print_round_trip
        self.second = self.third = None
        self.modules: list = []  # (after what, passes run, module): the JSON round trips, checked last

    def before(self, mod) -> None:
        program, checks = self.program, self.checks
        self.second = build_module(program) if checks.same_passes else None
        # The copy each pass is applied to once more: the determinism copy when there is one (it equals
        # the module after each pass, checked; a second lockstep copy doubled FoldConstant's cost), else a third.
        self.third = build_module(program) if checks.idempotence and self.second is None else None
        self.modules = [("original", 0, mod)]
        if self.printing:
            isolate.mark("print:original")
            why = print_round_trip(mod)
            if why:
                self.found_before_passes = (PRINT_ROUND_TRIP, 0, _detail(why), f"the unoptimized module {why}",
                                            "print:original")
                self.printing = False

    def after(self, ran: int, spec: PassSpec, mod, changed: bool) -> None:
        if self.found is not None:
            return
        if changed:  # else it was checked before the pass
            self.modules.append((spec.text, ran, mod))
        if self.printing and changed:
            isolate.mark(f"print:{spec.text}")
            why = print_round_trip(mod)
            if why:
                self.found = (PRINT_ROUND_TRIP, ran, _detail(why), f"the module after {spec.text} {why}",
                              f"print:{spec.text}")
                return
        if self.second is not None:
            isolate.mark(f"repeat:{spec.text}")
            try:
                self.second = spec.for_program(self.program).instantiate()(self.second)
            except Exception as error:  # noqa: BLE001 - it did not raise on the first copy
                message = f"{spec.text} raised {first_line(error)} on one fresh copy of the module, not on the other"
                self.found = (NONDETERMINISTIC_PASS, ran, "raises on one copy only", message, f"repeat:{spec.text}")
                return
            if not tvm_ffi.structural_equal(mod, self.second):
                where = _difference(mod, self.second)
                message = f"{spec.text} applied to two fresh copies of the module gives modules that differ: {where}"
                self.found = (NONDETERMINISTIC_PASS, ran, f"copies differ at {_path_tail(where)}", message,
                              f"repeat:{spec.text}")
                return
            if self.checks.idempotence and changed:
                self.second = self._applied_again(ran, mod, self.second)
        if self.third is not None:
            self.third = self._idempotent(ran, mod, self.third, changed)

    def result(self) -> tuple[tuple | None, dict]:
        if self.found is None and self.checks.json_round_trip:
            self._json_round_trips()
        return self.found or self.found_before_passes, self.notes

    def _json_round_trips(self) -> None:
        for after, ran, mod in self.modules:
            isolate.mark(f"json:{after}")
            child = isolate.run_forked(lambda mod=mod: _quietly(json_round_trip, mod), self.timeout)
            if child.status == "ok" and not child.value:
                continue
            if child.status == "ok":
                why, detail = child.value, _detail(child.value)
            else:  # a crash, a hang, or an error outside json_round_trip's own try
                why = f"{child.status}: {child.error}"
                detail = normalize_error(child.error) if child.status == "error" else why
            whose = "the unoptimized module" if not ran else f"the module after {after}"
            found = (JSON_ROUND_TRIP, ran, detail, f"tvm.ir.save_json and load_json of {whose}: {why}", f"json:{after}")
            if not ran:  # the original does not serialize: a pass cannot be blamed for what follows
                self.found_before_passes = self.found_before_passes or found
                return
            self.found = found
            return

    def _note(self, key: str, value) -> None:
        self.notes[key] = value
        isolate.note(key, value)

    def _idempotent(self, ran: int, once, copy, changed: bool):
        """The ``ran``-th pass applied to ``copy`` (a copy of the module before it, in lockstep
        with ``once``, its output), then, when it changed the module and is expected idempotent
        there, once more. Returns the copy to go on with, or None once the check has nothing more to tell."""
        spec = self.passes[ran - 1]
        try:
            copy = spec.for_program(self.program).instantiate()(copy)
        except Exception:  # noqa: BLE001 - one copy raising, the other not, is determinism's to tell
            return None
        if not changed or not tvm_ffi.structural_equal(copy, once):
            return copy if not changed else None  # copies that differ: determinism's to tell
        return self._applied_again(ran, once, copy)

    def _applied_again(self, ran: int, once, copy):
        """The ``ran``-th pass, which changed the module into ``once``, applied once more to
        ``copy`` (structurally equal to ``once``) when it is expected idempotent there. Returns the
        copy to go on with (equal to ``once``), or None when it changed."""
        spec = self.passes[ran - 1]
        repeated = [*self.passes[:ran], spec]
        # the pass as it ran (BindParams with the program's weights): a repeat that names what its
        # first run consumed is outside its contract, not a pass that fails on its own output
        called = spec.for_program(self.program)
        if pass_info(spec).not_idempotent or sequence_violation(repeated) or module_violation(called, once):
            return copy
        self._note("again", ran)
        isolate.mark(f"again:{spec.text}")
        try:
            twice = spec.for_program(self.program).instantiate()(copy)
        except Exception as error:  # noqa: BLE001 - a bug: the parent runs the repeated sequence to show it
            self._note("again_raised", first_line(error))
            return None
        if not tvm_ffi.structural_equal(twice, once):
            self._note("not_idempotent", (ran, _difference(once, twice)))
            return None
        return twice


def _check_modules(program: Program, passes: Sequence[PassSpec], checks: BoundaryChecks,
                   timeout: float) -> tuple | None:
    """In a child of their own: the module checks (``ModuleChecks``) on a fresh build, the passes
    applied; its first finding, or None."""
    observer, mod = ModuleChecks(program, passes, checks, timeout), build_module(program)
    observer.before(mod)
    for ran, spec in enumerate(passes, start=1):
        isolate.mark(f"pass:{spec.text}")
        before = tvm_ffi.structural_hash(mod)  # a hash: a pass may update its input in place
        try:
            mod = spec.for_program(program).instantiate()(mod)
        except Exception:  # noqa: BLE001 - the optimized side judges a pass that raises
            break
        observer.after(ran, spec, mod, tvm_ffi.structural_hash(mod) != before)
    return observer.result()[0]


def _quietly(function, *args):
    """``function(*args)`` with the default action on SIGSEGV: TVM's handler symbolizes a
    backtrace first, which made a crashing round trip take 0.1 s instead of 0.02 s."""
    signal.signal(signal.SIGSEGV, signal.SIG_DFL)
    return function(*args)


# A module whose print and parse do, once per process, what every first one does (the parser's
# lazy imports, TIR's above all): done before the first child is forked, as run.execute warms up.
_WARM_UP = Program((Param((2, 3), "float32", -1, 1, [[0.5] * 3] * 2), Node("exp", (0,))), (1,))
_warmed: list[bool] = []


def _warm_up() -> None:
    if _warmed:
        return
    _warmed.append(True)
    try:
        print_round_trip(tvm.relax.transform.LegalizeOps()(build_module(_WARM_UP)))
    except Exception:  # noqa: BLE001 - only the head start is lost; the child meets it again
        pass


def _difference(a, b) -> str:
    try:
        tvm.ir.assert_structural_equal(a, b)
    except ValueError as error:
        return first_line(error)
    return "structural_equal and assert_structural_equal disagree"


_PATH = re.compile(r"<root>(\S*?):?$")


def _path_tail(line: str) -> str:
    """The last three names of a structural-equality path: where two modules differ, without the
    function names and indices that vary with the program."""
    match = _PATH.search(line)
    if not match:
        return normalize_error(line)
    names = [re.sub(r"\[.*?\]", "", part) for part in re.sub(r"\[[^\]]*\]", "", match.group(1)).split(".")]
    return ".".join([name for name in names if name][-3:]) or "the root"


# A quoted name is the program's (name 'n0' is not defined), not the fault's; but in Python's
# "'Var' object has no attribute 'as_ty'" both are the parser's own names, and they tell its
# faults apart (R.Tuple's field, 'as_ty', and R.Callable's, 'get_symbolic_vars', are two).
_QUOTED = re.compile(r"(?P<code>'\w+' object has no attribute '\w+')|'[^']*'")


def _detail(why: str) -> str:
    """A round trip's failure (portable.round_trip's line), as a signature detail."""
    head, _, rest = why.partition(": ")
    if head.startswith(("parses back to another module", "loads back as another module")):
        return f"{head} at {_path_tail(rest)}"
    return f"{head}: " + normalize_error(_QUOTED.sub(lambda quoted: quoted["code"] or "'...'", rest))


def cpu_targets(targets: Sequence[str]) -> list[str]:
    return [target for target in targets if kind_of(target) not in GPU_KINDS]


def _rerun_verdict(program: Program, passes: Sequence[PassSpec], original: Outcome, optimized: Outcome,
                   targets: Sequence[str], timeout: float, build: Build) -> Verdict:
    """The optimized module compiled and run again: a ``nondeterministic-output`` finding when a
    CPU target's outputs are not bit-identical. It blames the passes unless the original module,
    compiled and run again, differs too (or is the module that ran: the passes changed nothing)."""
    cpu = cpu_targets(targets)
    if not cpu:
        return Verdict()
    build = build.with_tune_records(optimized.tune_records) if build.tune is not None else build
    again = run_side(program, passes, cpu, timeout, build)
    difference = _bits_differ(optimized, again, cpu)
    if not difference:
        return Verdict()
    blamed: Sequence[PassSpec] = passes
    if optimized.reused or _bits_differ(original, run_side(program, None, cpu, timeout), cpu):
        blamed = ()
    whose = "the optimized module" if blamed else "the unoptimized module"
    target = difference.split(":", 1)[0]
    return Verdict(new_finding(NONDETERMINISTIC_OUTPUT, blamed, "outputs differ between two runs",
                               f"{whose}, compiled and run twice, {difference}", f"rerun:{target}",
                               build=build if blamed else PLAIN_BUILD, targets=(target,)))


def _bits_differ(first: Outcome, second: Outcome, targets: Sequence[str]) -> str:
    """'' when both sides ran and every output on ``targets`` is bit-identical, else what differs."""
    if not second.ok:
        return ""  # a failure the first run did not show is for the differential oracle to judge
    for target in targets:
        a, b = first.outputs.get(target, []), second.outputs.get(target, [])
        if len(a) != len(b):
            return f"{target}: {len(a)} outputs, then {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes():
                bad = np.argwhere(x.view(np.uint8).reshape(-1) != y.view(np.uint8).reshape(-1)) \
                    if x.shape == y.shape and x.dtype == y.dtype else None
                where = "" if bad is None or not len(bad) else f" (first differing byte {int(bad[0][0])})"
                return f"{target}: output {i} ({x.dtype}, shape {x.shape}) is not bit-identical{where}"
    return ""

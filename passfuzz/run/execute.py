"""Build, transform, compile and run one side of a comparison in an isolated child -> Outcome.

The original side is the Program's module compiled as is (the plain build); the optimized side
is a fresh build with the passes applied in order, checked for well-formedness, compiled under
the run's ``Build`` and called through the calling-convention adapter. Each side runs in its own isolated child, so a crash on the optimized
side never loses the original's results: forked from this process for CPU targets, from the fork
server for GPU targets (passfuzz.run.isolate says why).

An optimized side whose passes left the module structurally equal to the original, under the
plain build, is the original's module compiled the same way again: its child stops after the
passes (which still run, so a pass that raises, crashes, hangs or leaves ill-formed IR is found
as before) and the original side's outputs stand for its compile and run (``Outcome.reused``).
Compiling it twice could only show TVM's nondeterminism, which no pass is to blame for.

An optimized side may carry a ``PassObserver``: checks of each module a pass returns (the boundary
oracles, passfuzz.judge.boundaries) run in the side's own child on the modules it makes anyway,
instead of in a child that builds the module and applies the passes once more. The observer's
time is added to the child's limit, and a child that crashes, hangs or raises while observing is
run again without it, so a check that brings its child down never costs the side its verdict.
"""

from __future__ import annotations

import dataclasses
import re
import time
from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

import numpy as np
import tvm_ffi
from tvm import relax

from passfuzz.ir.program import Node, Param, Program
from passfuzz.passes.catalogue import info as pass_info
from passfuzz.passes.contracts import module_violation
from passfuzz.passes.names import PassSpec
from passfuzz.portable.standalone import has_closures, headline, kind_of, load, numpy_outputs, target_config, to_tvm
from passfuzz.relax.build import op_counts, build_module

from . import isolate
from .builds import PLAIN_BUILD, Build
from .calling import PLAIN, Adapter, choose_adapter
from .pipeline_watch import watched
from .targets import needs_fresh_process
from .tuning import tune

TUNING_SECONDS = 30  # added to a tuning side's time limit per trial (a trial builds and runs every kernel)


@dataclass
class Outcome:
    status: str  # "ok" | "error" | "crash" | "hang" | "incomparable"
    stage: str = ""  # where it ended: "build", "pass:<p>", "well-formed:<p>", "compile:<target>", "run:<target>"
    error: str = ""  # one line: "InternalError: ...", "SIGSEGV", "no result after 60 s"
    outputs: dict[str, list[np.ndarray]] = field(default_factory=dict)  # per target
    changed: bool | None = None  # did the passes change the module (optimized side only)
    fired: tuple[str, ...] = ()  # the passes that changed the module they were given (up to a failure)
    # per pass that fired: (pass, Relax ops it removed, ops it added), each op form once (its attributes
    # bucketed: relax.build.op_form), up to a failure
    changes: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()
    adapter: Adapter | None = None  # how the optimized module was called
    outside_contract: str = ""  # the first pass that received a module its contract does not accept
    outside_contract_at: int | None = None  # that pass's index in the pass list
    closures: bool = False  # the optimized module had local functions, lifted before compiling
    pipeline_pass: str = ""  # the pass of the build's Relax pipeline it failed in ("" none, or after it)
    pipeline_changed: tuple[str, ...] = ()  # the pipeline passes that changed the module (up to a failure)
    tune_records: tuple = ()  # with tune=N: what the tuning chose (passfuzz.portable.tuning_records)
    log: str = ""  # the child's stderr tail and traceback, for the report
    reused: bool = False  # the passes left the module unchanged: the original side's compile and run stand for it
    # the external codegens the optimized module holds functions for (their Codegen attribute):
    # compiled here as plain Relax, as tvm.compile does on llvm without RunCodegen
    external: tuple[str, ...] = ()
    # per argument draw (``variants``, passfuzz.ir.argument_draws), outputs per target, as ``outputs``
    draws: tuple[dict[str, list[np.ndarray]], ...] = ()
    failed_draw: int | None = None  # the side failed running this draw, after the Program's own arguments ran
    observed: Any = None  # what the side's PassObserver concluded; None when none ran to its end

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class PassObserver(Protocol):
    """Checks run inside an optimized side's child on the modules its passes return (module doc).
    It must not change a module it is given; what it concludes must pickle."""

    def before(self, mod) -> None:
        """The module built from the Program, before any pass."""

    def after(self, ran: int, spec: PassSpec, mod, changed: bool) -> None:
        """The module the ``ran``-th pass returned (well-formed where the pass promises it)."""

    def result(self) -> Any:
        """What it concluded, once every pass has run."""


def _observing(step, *args) -> Any:
    """One observer step, its time given back to the child's limit; the note says a failure from
    here on is the observer's."""
    isolate.note("observing", True)
    started = time.perf_counter()
    value = step(*args)
    isolate.extend_deadline(time.perf_counter() - started)
    isolate.note("observing", False)
    return value


class IllFormed(Exception):
    """The optimized module fails relax.analysis.well_formed."""


def _run_side(program: Program, passes: Sequence[PassSpec] | None, targets: Sequence[str], build: Build,
              disabled: str = "", stop_if_unchanged: bool = False, variants: Sequence[Program] = (),
              observer: PassObserver | None = None) -> dict:
    isolate.mark("build")
    mod = build_module(program)
    adapter, changed, fired, outside_contract, changes = PLAIN, None, [], "", []
    if passes is not None:
        if observer is not None:
            _observing(observer.before, mod)
        checking = True  # until a lowering pass, after which well_formed rejects valid modules
        for index, spec in enumerate(passes):
            called = spec.for_program(program)  # with the arguments it runs with, which a precondition may read
            if not outside_contract:
                outside_contract = module_violation(called, mod)
                if outside_contract:  # the parent needs it even if the pass then fails
                    isolate.note("outside_contract", outside_contract)
                    isolate.note("outside_contract_at", index)
            isolate.mark(f"pass:{spec.text}")
            before = tvm_ffi.structural_hash(mod)  # a hash: a pass may update its input in place
            ops_before = op_counts(mod, forms=True)
            mod = called.instantiate()(mod)
            fires = tvm_ffi.structural_hash(mod) != before
            if fires:
                fired.append(spec.text)
                isolate.note("fired", tuple(fired))  # known even if a later pass fails
                ops_after = op_counts(mod, forms=True)  # what it did, in ops and their attributes: a behaviour
                changes.append((spec.text, tuple(sorted(ops_before - ops_after)), tuple(sorted(ops_after - ops_before))))
                isolate.note("changes", tuple(changes))
            checking = checking and pass_info(spec).well_formed_after
            if checking:
                isolate.mark(f"well-formed:{spec.text}")
                _check_well_formed(mod)
            if observer is not None:
                _observing(observer.after, index + 1, spec, mod, fires)
        if observer is not None:
            isolate.note("observed", _observing(observer.result))
        reference = build_module(program)  # fresh: a pass may have mutated its input
        changed = not tvm_ffi.structural_equal(reference, mod)
        adapter = choose_adapter(reference, mod, program.num_input, program.symbol_values())
        if adapter is None:
            return {"incomparable": "main's signature changed and no calling adapter is known", "changed": changed,
                    "fired": fired, "outside_contract": outside_contract}
        # A reproducer of a failing compile or run must call main this way, and lift closures too.
        isolate.note("adapter", adapter)
        isolate.note("closures", has_closures(mod))
        isolate.note("external", external_codegens(mod))
        if stop_if_unchanged and not changed:
            return {"unchanged": True, "changed": changed, "adapter": adapter, "fired": fired,
                    "outside_contract": outside_contract, "closures": has_closures(mod)}
    build = _tuned(mod, targets, build)
    outputs, draws = {}, [{} for _ in variants]
    args = program.arguments()
    for target in targets:
        isolate.mark(f"compile:{target}")
        # load lifts local functions itself; lifted here, the build's pipeline is the first pass
        # the watch sees (passfuzz.run.pipeline_watch), and the module compiled is the same.
        lifted = relax.transform.LambdaLift()(mod) if has_closures(mod) else mod
        with watched(disabled):
            executable, device = load(lifted, target, build.as_dict())
        isolate.mark(f"run:{target}")
        tensors = [to_tvm(a, device) for a in args]
        state = adapter.prepare(program, tensors)
        vm = relax.VirtualMachine(executable, device)
        outputs[target] = numpy_outputs(adapter.call(vm, program, tensors, state))
        for draw, variant in enumerate(variants):  # the same executable and VM, other arguments
            isolate.note("draw", draw)  # a failure from here on is this draw's
            tensors = [to_tvm(a, device) for a in variant.arguments()]
            draws[draw][target] = numpy_outputs(adapter.call(vm, variant, tensors, adapter.prepare(variant, tensors)))
        isolate.note("draw", None)
    return {"outputs": outputs, "draws": tuple(draws), "changed": changed, "adapter": adapter, "fired": fired,
            "outside_contract": outside_contract, "closures": passes is not None and has_closures(mod),
            "tune_records": build.tune_records}


def external_codegens(mod) -> tuple[str, ...]:
    """The external codegens ``mod`` has Relax functions for (MergeCompositeFunctions, or
    FuseOpsByPattern with annotate_codegen=True, mark them with a Codegen attribute)."""
    return tuple(sorted({str(func.attrs["Codegen"]) for func in mod.functions.values()
                         if isinstance(func, relax.Function) and func.attrs is not None and "Codegen" in func.attrs}))


def _tuned(mod, targets: Sequence[str], build: Build) -> Build:
    """``build`` applying what a tuning of ``mod``'s kernels chose, for the first llvm target,
    when it tunes and has no records yet (a run replaying a finding's records tunes nothing)."""
    llvm = [target for target in targets if kind_of(target) == "llvm"]
    if build.tune is None or build.tune_records or not llvm:
        return build
    isolate.mark("tune")
    lifted = relax.transform.LambdaLift()(mod) if has_closures(mod) else mod
    build = build.with_tune_records(tune(lifted, target_config(llvm[0]), build.tune, build.tune_dir,
                                         build.pipeline))
    isolate.note("tune_records", build.tune_records)  # a failure after it reproduces with these
    return build


# A module whose build and compile do, once per process, what every first build and compile does:
# the lazy imports, the ABC subclass caches FFI conversion fills, LLVM's set-up.
_WARM_UP = Program((Param((2, 3), "float32", -1, 1, [[0.5] * 3] * 2), Node("exp", (0,)), Node("add", (1, 0))), (2,))
_warmed: set[str] = set()


def _warm_up(target: str) -> None:
    """Build and compile a tiny module in this process once, before the first child is forked:
    every child then inherits what that did once instead of redoing it (a side of a small program
    took 420-510 ms in a child of a warmed parent, 600 ms in a child of a cold one). Compiled
    only, never run: running a kernel could start TVM's thread pool, and a fork does not carry
    threads over. A failure here only
    costs the head start; the child meets it again and reports it."""
    if target in _warmed:
        return
    _warmed.add(target)
    try:
        load(build_module(_WARM_UP), target)
    except Exception:  # noqa: BLE001 - the side itself will say what is wrong
        pass


def _reusable(original: Outcome | None, passes: Sequence[PassSpec] | None, targets: Sequence[str], build: Build,
              disabled: str) -> bool:
    """May an optimized side stop after its passes when they leave the module unchanged? Only
    when it would compile that module exactly as the original side did: the plain build, the
    same targets, the whole pipeline; and when the original side ran (its outputs stand in)."""
    return (original is not None and original.ok and passes is not None and build == PLAIN_BUILD
            and not disabled and list(original.outputs) == list(targets))


def fired_passes(program: Program, passes: Sequence[PassSpec]) -> list[str]:
    """The passes that changed the module they were given, as the optimized side counts them,
    in process and without compiling (the fire-rate benchmark and the motif tests). A pass may
    raise: that is for the fuzzer to judge, here it propagates."""
    mod, fired = build_module(program), []
    for spec in passes:
        before = tvm_ffi.structural_hash(mod)
        mod = spec.instantiate()(mod)
        if tvm_ffi.structural_hash(mod) != before:
            fired.append(spec.text)
    return fired


def _check_well_formed(mod) -> None:
    try:
        relax.analysis.well_formed(mod)
    except Exception as exc:  # noqa: BLE001 - its message names the violation
        text = str(exc).strip()
        raise IllFormed(text.splitlines()[-1] if text else "well_formed failed") from None
    if not relax.analysis.check_well_formed(mod):
        raise IllFormed("check_well_formed returned False")


def run_side(program: Program, passes: Sequence[PassSpec] | None, targets: Sequence[str],
             timeout: float, build: Build = PLAIN_BUILD, disabled: str = "",
             original: Outcome | None = None, variants: Sequence[Program] = (),
             observer: PassObserver | None = None) -> Outcome:
    """One side in an isolated child; ``passes=None`` is the original side (always the plain build).
    ``disabled``: a pass of the build's Relax pipeline to leave out (passfuzz.judge.pipeline_blame).
    ``original``: the original side's Outcome on the same program and targets; an optimized side
    the passes left unchanged then reuses its outputs instead of compiling and running again.
    ``variants``: the Program with other arguments (passfuzz.ir.argument_draws), run after its own
    arguments on the same compiled module; their outputs are ``Outcome.draws``. ``observer``: checks
    of each module a pass returns, run in this side's child (module doc); their conclusion is
    ``Outcome.observed``."""
    if passes is None:
        build, observer = PLAIN_BUILD, None
    reuse = _reusable(original, passes, targets, build, disabled)
    if build.tune is not None and not build.tune_records:
        timeout += TUNING_SECONDS * build.tune  # a side's time limit is for compiling and running
    if needs_fresh_process(targets):
        child = isolate.run_fresh(_run_side, (program, passes, list(targets), build, disabled, reuse, tuple(variants),
                                              observer), timeout)
    else:
        _warm_up(targets[0])
        child = isolate.run_forked(lambda: _run_side(program, passes, targets, build, disabled, reuse, variants,
                                                     observer), timeout)
    if child.status != "ok" and child.notes.get("observing"):  # the observer's fault, not the side's
        return run_side(program, passes, targets, timeout, build, disabled, original, variants)
    pipeline = {"pipeline_pass": child.notes.get("pipeline_pass", ""),
                "pipeline_changed": child.notes.get("pipeline_changed", ())}
    changes = tuple(child.notes.get("changes", ()))
    contract_at = child.notes.get("outside_contract_at")
    if child.status != "ok":
        return Outcome(child.status, child.last_mark, headline(child.error),
                       log=child.stderr_tail, adapter=child.notes.get("adapter"), fired=child.notes.get("fired", ()),
                       outside_contract=child.notes.get("outside_contract", ""), outside_contract_at=contract_at,
                       closures=child.notes.get("closures", False), tune_records=child.notes.get("tune_records", ()),
                       changes=changes, external=child.notes.get("external", ()),
                       failed_draw=child.notes.get("draw"), **pipeline)
    value = child.value
    if value.get("unchanged"):
        return dataclasses.replace(original, changed=False, adapter=value["adapter"], fired=tuple(value["fired"]),
                                   outside_contract=value["outside_contract"], closures=value["closures"],
                                   outside_contract_at=contract_at, reused=True, changes=changes,
                                   external=child.notes.get("external", ()), observed=child.notes.get("observed"))
    if "incomparable" in value:
        return Outcome("incomparable", "adapter", value["incomparable"], changed=value["changed"],
                       fired=tuple(value["fired"]), outside_contract=value["outside_contract"], changes=changes,
                       outside_contract_at=contract_at)
    return Outcome("ok", "done", outputs=value["outputs"], draws=value["draws"], changed=value["changed"], adapter=value["adapter"],
                   fired=tuple(value["fired"]), outside_contract=value["outside_contract"],
                   outside_contract_at=contract_at, closures=value["closures"], tune_records=value["tune_records"],
                   changes=changes, external=child.notes.get("external", ()), observed=child.notes.get("observed"),
                   **pipeline)

"""Build, transform, compile and run one side of a comparison in an isolated child -> Outcome.

The original side is the Program's module compiled as is (the plain build); the optimized side
is a fresh build with the passes applied in order, checked for well-formedness, compiled under
the run's ``Build`` and called through the calling-convention adapter. Each side runs in its own isolated child, so a crash on the optimized
side never loses the original's results: forked from this process for CPU targets, from the fork
server for GPU targets (passfuzz.isolate says why).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import tvm_ffi
from tvm import relax

from . import isolate
from .builds import PLAIN_BUILD, Build
from .calling import PLAIN, Adapter, choose_adapter
from .contracts import module_violation
from .pass_catalogue import info as pass_info
from .passes import PassSpec
from .program import Program
from .relax_build import build_module
from .pipeline_watch import watched
from .standalone import has_closures, load, numpy_outputs, to_tvm
from .standalone import kind_of, target_config
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
    adapter: Adapter | None = None  # how the optimized module was called
    outside_contract: str = ""  # the first pass that received a module its contract does not accept
    closures: bool = False  # the optimized module had local functions, lifted before compiling
    pipeline_pass: str = ""  # the pass of the build's Relax pipeline it failed in ("" none, or after it)
    pipeline_changed: tuple[str, ...] = ()  # the pipeline passes that changed the module (up to a failure)
    tune_records: tuple = ()  # with tune=N: what the tuning chose (passfuzz.tuning_records)
    log: str = ""  # the child's stderr tail and traceback, for the report

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class IllFormed(Exception):
    """The optimized module fails relax.analysis.well_formed."""


def _run_side(program: Program, passes: Sequence[PassSpec] | None, targets: Sequence[str], build: Build,
              disabled: str = "") -> dict:
    isolate.mark("build")
    mod = build_module(program)
    adapter, changed, fired, outside_contract = PLAIN, None, [], ""
    if passes is not None:
        checking = True  # until a lowering pass, after which well_formed rejects valid modules
        for spec in passes:
            if not outside_contract:
                outside_contract = module_violation(spec, mod)
                if outside_contract:  # the parent needs it even if the pass then fails
                    isolate.note("outside_contract", outside_contract)
            isolate.mark(f"pass:{spec.text}")
            before = tvm_ffi.structural_hash(mod)  # a hash: a pass may update its input in place
            mod = spec.for_program(program).instantiate()(mod)
            if tvm_ffi.structural_hash(mod) != before:
                fired.append(spec.text)
                isolate.note("fired", tuple(fired))  # known even if a later pass fails
            checking = checking and pass_info(spec).well_formed_after
            if checking:
                isolate.mark(f"well-formed:{spec.text}")
                _check_well_formed(mod)
        reference = build_module(program)  # fresh: a pass may have mutated its input
        changed = not tvm_ffi.structural_equal(reference, mod)
        adapter = choose_adapter(reference, mod, program.num_input, program.symbol_values())
        if adapter is None:
            return {"incomparable": "main's signature changed and no calling adapter is known", "changed": changed,
                    "fired": fired, "outside_contract": outside_contract}
        # A reproducer of a failing compile or run must call main this way, and lift closures too.
        isolate.note("adapter", adapter)
        isolate.note("closures", has_closures(mod))
    build = _tuned(mod, targets, build)
    outputs = {}
    args = program.arguments()
    for target in targets:
        isolate.mark(f"compile:{target}")
        # load lifts local functions itself; lifted here, the build's pipeline is the first pass
        # the watch sees (passfuzz.pipeline_watch), and the module compiled is the same.
        lifted = relax.transform.LambdaLift()(mod) if has_closures(mod) else mod
        with watched(disabled):
            executable, device = load(lifted, target, build.as_dict())
        isolate.mark(f"run:{target}")
        tensors = [to_tvm(a, device) for a in args]
        state = adapter.prepare(program, tensors)
        vm = relax.VirtualMachine(executable, device)
        outputs[target] = numpy_outputs(adapter.call(vm, program, tensors, state))
    return {"outputs": outputs, "changed": changed, "adapter": adapter, "fired": fired,
            "outside_contract": outside_contract, "closures": passes is not None and has_closures(mod),
            "tune_records": build.tune_records}


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
             timeout: float, build: Build = PLAIN_BUILD, disabled: str = "") -> Outcome:
    """One side in an isolated child; ``passes=None`` is the original side (always the plain build).
    ``disabled``: a pass of the build's Relax pipeline to leave out (passfuzz.pipeline_blame)."""
    if passes is None:
        build = PLAIN_BUILD
    if build.tune is not None and not build.tune_records:
        timeout += TUNING_SECONDS * build.tune  # a side's time limit is for compiling and running
    if needs_fresh_process(targets):
        child = isolate.run_fresh(_run_side, (program, passes, list(targets), build, disabled), timeout)
    else:
        child = isolate.run_forked(lambda: _run_side(program, passes, targets, build, disabled), timeout)
    pipeline = {"pipeline_pass": child.notes.get("pipeline_pass", ""),
                "pipeline_changed": child.notes.get("pipeline_changed", ())}
    if child.status != "ok":
        return Outcome(child.status, child.last_mark, child.error.strip().splitlines()[0] if child.error else "",
                       log=child.stderr_tail, adapter=child.notes.get("adapter"), fired=child.notes.get("fired", ()),
                       outside_contract=child.notes.get("outside_contract", ""),
                       closures=child.notes.get("closures", False), tune_records=child.notes.get("tune_records", ()),
                       **pipeline)
    value = child.value
    if "incomparable" in value:
        return Outcome("incomparable", "adapter", value["incomparable"], changed=value["changed"],
                       fired=tuple(value["fired"]), outside_contract=value["outside_contract"])
    return Outcome("ok", "done", outputs=value["outputs"], changed=value["changed"], adapter=value["adapter"],
                   fired=tuple(value["fired"]), outside_contract=value["outside_contract"],
                   closures=value["closures"], tune_records=value["tune_records"], **pipeline)

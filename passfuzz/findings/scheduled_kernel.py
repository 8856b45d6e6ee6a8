"""The kernel a ``--build schedule=random`` finding schedules, as a maintainer would write it: the
PrimFunc the schedule acts on (TVMScript), the schedule's calls (its trace, as TVM prints it), and
the buffers the unscheduled build first called it with.

The drawn steps act on the PrimFuncs the Relax pipeline leaves (passfuzz.portable.schedules);
a finding whose steps changed exactly one of them is that PrimFunc's bug, and its script needs
no Relax at all. The kernel is taken in a forked child (passfuzz.run.isolate): it lowers, schedules
and runs the module, and a schedule that crashes TVM must not take passfuzz with it. The
schedule is replayed with the primitives as passfuzz.portable.schedules defines them
(``OWN_PRIMITIVES``), so its trace is TVM's real calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import tvm
import tvm_ffi
from tvm import relax, s_tir

from passfuzz.ir.program import Program
from passfuzz.passes.names import PassSpec
from passfuzz.portable import schedules
from passfuzz.portable.standalone import has_closures, lift_closures, to_tvm
from passfuzz.relax.build import build_module
from passfuzz.run.calling import PLAIN, Adapter
from passfuzz.run.isolate import run_forked


@dataclass(frozen=True)
class Kernel:
    name: str  # the PrimFunc's name, in the lowered module and in the script
    script: str  # its TVMScript before the schedule (``@T.prim_func``), parsing back to it
    trace: tuple[str, ...]  # the schedule's calls on ``sch = tvm.s_tir.Schedule(<name>)``
    arguments: tuple[np.ndarray, ...]  # its buffers as first called, outputs zeroed
    outputs: tuple[int, ...]  # which of ``arguments`` it writes


def scheduled_kernel(program: Program, passes: Sequence[PassSpec], steps: Sequence, target: str,
                     adapter: Adapter, timeout: float) -> Kernel | None:
    """The one kernel ``steps`` change in ``program``'s module after ``passes``, lowered for
    ``target`` (a CPU target: its ``main`` called through ``adapter``, as the finding's run
    called it); None when they change none or several, when it takes other than tensors, or
    when the child fails."""
    result = run_forked(lambda: _kernel(program, passes, steps, target, adapter), timeout)
    return result.value if result.status == "ok" else None


def _kernel(program: Program, passes: Sequence[PassSpec], steps: Sequence, target: str,
            adapter: Adapter = PLAIN) -> Kernel | None:
    mod = build_module(program)
    for spec in passes:
        mod = spec.for_program(program).instantiate()(mod)
    mod = lift_closures(mod) if has_closures(mod) else mod
    with tvm.target.Target(target):
        lowered = relax.get_pipeline("default")(mod)
    changed = []
    for name, own in schedules.steps_per_function(lowered, steps).items():
        sch = schedules.schedule_of(lowered[name], own, schedules.OWN_PRIMITIVES) if own else None
        if sch is not None and not tvm_ffi.structural_equal(sch.mod["main"], lowered[name]):
            changed.append((name, sch))
    if len(changed) != 1:
        return None
    (name, sch), = changed
    func = lowered[name].without_attr("global_symbol")  # the parser gives it back from the name
    text = "\n".join(line for line in func.script(name=name).splitlines() if not line.startswith("# from "))
    text = text.replace("@T.prim_func(private=True, ", "@T.prim_func(")  # private: no global symbol
    if not tvm_ffi.structural_equal(tvm.script.from_source(text).without_attr("global_symbol"), func):
        return None
    arguments = _first_call(mod, program, name, target, adapter)
    if arguments is None or len(arguments) != len(func.params):
        return None
    written = _written(func)
    outputs = tuple(k for k, param in enumerate(func.params) if param.name in written)
    arguments = tuple(np.zeros_like(a) if k in outputs else a for k, a in enumerate(arguments))
    return Kernel(name, text.strip() + "\n", tuple(sch.trace.as_python()), arguments, outputs)


def _written(func) -> set[str]:
    """The names of the buffers the blocks under ``func``'s root block write (in 0.27 a buffer
    parameter is the buffer's own variable)."""
    sch = s_tir.Schedule(tvm.IRModule({"main": func}))
    return {region.source.name for block in schedules.root_blocks(sch) for region in sch.get(block).writes}


def _first_call(mod, program: Program, name: str, target: str, adapter: Adapter) -> list[np.ndarray] | None:
    """The buffers the unscheduled build passes kernel ``name`` at its first call (numpy copies
    taken before it runs); None when it is not called or takes other than tensors."""
    vm = relax.VirtualMachine(tvm.compile(mod, target), tvm.cpu())
    seen: list = []

    def instrument(func, symbol, before_run, ret_value, *args):
        if before_run and symbol == name and not seen:
            seen.append([a.numpy() if hasattr(a, "numpy") else None for a in args])
        return 0  # VMInstrumentReturnKind.NO_OP: carry on

    vm.set_instrument(instrument)
    tensors = [to_tvm(a) for a in program.arguments()]
    adapter.call(vm, program, tensors, adapter.prepare(program, tensors))
    if not seen or any(a is None for a in seen[0]):
        return None
    return seen[0]

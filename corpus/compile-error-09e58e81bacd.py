"""passfuzz compile-error-09e58e81bacd: compile-error after FoldConstant compiled with schedule=random on llvm.

error at compile:llvm: InternalError: Check failed: (is_scalable_expr && TargetHasVLA(target_)) is false: Failed to vectorize loop with extent n0 for target {"kind":"llvm","tag":"","keys":["cpu"],"host":{"kind":"llvm","tag":"","keys":["cpu"],"mtriple":"x86_64-conda-linux-gnu"},"mtriple":"x86_64-conda-linux-gnu"}
Exits 1 while the bug reproduces, 0 once it is fixed.
"""
import sys
from typing import TypeVar

import numpy as np
import tvm
from tvm import relax
from tvm import s_tir
from tvm.script import ir as I
from tvm.script import relax as R


def kind_of(target):
    """The target kind of a target string such as "llvm" or "cuda -arch=sm_80"."""
    return target.split()[0] if target.split() else ""


def compile_with(mod, target, build, steps):
    """(executable, device): ``mod`` built by ``relax.build`` for ``target`` under ``build`` after
    ``steps`` (``steps_for``), phase by phase; without steps, the plain build."""
    for step in steps.get("module", ()):
        mod = step(mod)
    config = {"kind": kind_of(target)}
    for step in steps.get("target", ()):
        config = step(config, target, build)
    tgt = tvm.target.Target(config)
    pipeline = "default"
    for step in steps.get("pipeline", ()):
        pipeline = step(pipeline, tgt, build)
    executable = relax.build(mod, tgt, relax_pipeline=pipeline, exec_mode=build.get("exec_mode", "bytecode"))
    for step in steps.get("executable", ()):
        executable = step(executable)
    kind = config["kind"]
    return executable, tvm.cpu(0) if kind in ("llvm", "c") else tvm.runtime.device(kind, 0)


CHOICES = 4


def _loop(sch, block, choice):
    loops = sch.get_loops(block)
    if not loops:
        raise ValueError("the block has no loops")
    return loops[choice % len(loops)]


def _vectorize(sch, block, a, b):
    sch.vectorize(_loop(sch, block, a))
    return sch


PRIMITIVES = {'vectorize': _vectorize}


def _blocks(sch):
    return sch.get_child_blocks(sch.get_sblock("root", func_name="main"))


def schedulable(func) -> bool:
    """Does ``func`` (a PrimFunc) have blocks under a root block, which the primitives act on?"""
    try:
        return bool(_blocks(s_tir.Schedule(tvm.IRModule({"main": func}))))
    except Exception:  # noqa: BLE001 - no root block (a lowered shape function): nothing to schedule
        return False


def apply_step(sch, step):
    """The schedule after ``step`` (a copy of ``sch``), or None when the schedule rejects it."""
    name, choices = step
    choices = tuple(choices) + (0,) * (CHOICES - len(choices))
    trial = sch.copy()
    try:
        blocks = _blocks(trial)
        if not blocks:
            return None
        return PRIMITIVES[name](trial, blocks[choices[1] % len(blocks)], choices[2], choices[3])
    except Exception:  # noqa: BLE001 - a rejected primitive is a skipped step, not a finding
        return None


def schedule_function(func, steps):
    """``func`` (a PrimFunc) scheduled by ``steps`` in order (rejected ones skipped)."""
    sch = s_tir.Schedule(tvm.IRModule({"main": func}), debug_mask="all")
    for step in steps:
        sch = apply_step(sch, step) or sch
    return sch.mod["main"]


def apply_schedule(mod, steps):
    """``mod`` with each step applied to the PrimFunc its first choice picks (modulo the
    schedulable PrimFuncs, in name order)."""
    names = sorted(gv.name_hint for gv, func in mod.functions.items()
                   if isinstance(func, tvm.tirx.PrimFunc) and schedulable(func))
    if not names or not steps:
        return mod
    per_function = {name: [] for name in names}
    for name, choices in steps:
        choices = tuple(choices) + (0,) * (CHOICES - len(choices))
        per_function[names[choices[0] % len(names)]].append((name, choices))
    mod = mod.clone()  # a pass leaves its input as it was
    for name, own in per_function.items():
        if own:
            mod.update_func(mod.get_global_var(name), schedule_function(mod[name], own))
    return mod


def schedule_pass(steps):
    """A module pass applying ``steps`` (run after the Relax pipeline, on the kernels it leaves)."""
    @tvm.transform.module_pass(opt_level=0, name="PassfuzzRandomSchedule")
    def _schedule(mod, _ctx):
        return apply_schedule(mod, steps)
    return _schedule


def followed_by(pipeline, last):
    """The Relax pipeline ``pipeline`` (a name or a pass), then the pass ``last``."""
    return tvm.transform.Sequential([relax.get_pipeline(pipeline) if isinstance(pipeline, str) else pipeline, last])


def scheduled_pipeline(pipeline, tgt, build):
    """schedule=random: the drawn schedule, on the kernels the Relax pipeline leaves."""
    return followed_by(pipeline, schedule_pass(build["schedule_steps"]))


def numpy_outputs(value):
    """The VM's result (a tensor or nested tuples of tensors) as a flat list of numpy arrays."""
    if hasattr(value, "numpy"):
        return [value.numpy()]
    return [array for item in value for array in numpy_outputs(item)]


n0 = TypeVar("n0")
@I.ir_module
class Module:
    @R.function
    def main(x3: R.Tensor((n0,), dtype="bool")) -> R.Tuple(R.Tensor((1,), dtype="float32"), R.Tensor((n0,), dtype="bool")):
        with R.dataflow():
            lv: R.Tensor((1,), dtype="float32") = R.add(R.const(np.array([0.0], dtype='float32'), 'float32'), R.const(np.array([0.0], dtype='float32'), 'float32'))
            lv1: R.Tensor((1,), dtype="bool") = R.logical_or(R.const(np.array([False], dtype='bool'), 'bool'), R.const(np.array([False], dtype='bool'), 'bool'))
            lv2: R.Tensor((n0,), dtype="bool") = R.logical_or(x3, lv1)
            gv: R.Tuple(R.Tensor((1,), dtype="float32"), R.Tensor((n0,), dtype="bool")) = lv, lv2
            R.output(gv)
        return gv


arguments = [np.array([False], dtype='bool')]
try:  # the optimized module first: compiling the original first can hide a bug
    mod = relax.transform.FoldConstant()(Module.clone())  # passes may update their input in place
    executable, device = compile_with(mod, 'llvm', {'schedule': 'random', 'schedule_steps': (('vectorize', (1, 12, 6, 15)),)}, {'pipeline': [scheduled_pipeline]})
    args = [tvm.runtime.tensor(a, device) for a in arguments]
    vm = relax.VirtualMachine(executable, device)
    actual = numpy_outputs(vm["main"](*args))
except Exception as error:
    print(f"BUG REPRODUCES (compile-error): {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
args = [tvm.runtime.tensor(a) for a in arguments]
vm = relax.VirtualMachine(tvm.compile(Module, 'llvm'), tvm.cpu())
expected = numpy_outputs(vm["main"](*args))
try:
    assert len(actual) == 2, f"2 output(s) expected, {len(actual)} returned"
    for got, want in zip(actual, expected):
        assert (got.dtype, got.shape) == (want.dtype, want.shape), f"{want.dtype}{want.shape} became {got.dtype}{got.shape}"
    np.testing.assert_allclose(actual[0].astype("float64"), expected[0].astype("float64"), rtol=0.0001, atol=0.0001, equal_nan=True, err_msg='output 0')
    np.testing.assert_array_equal(actual[1], expected[1], err_msg='output 1')
except AssertionError as error:
    print("BUG REPRODUCES (compile-error):", " ".join(str(error).split()))
    sys.exit(1)
print("fixed: the optimized module compiles, runs and matches the original")

"""passfuzz reproducer pass-error-0876b11b1d8c: pass-error after ComputePrimValue, LegalizeOps, SpecializePrimFuncBasedOnCallSite.

error at pass:SpecializePrimFuncBasedOnCallSite: InternalError: Check failed: (ty->IsInstance<TensorTypeNode>()) is false: Expected Tensor struct Info for call :ir.Op(span=None, ty=ir.Type(span=None), name="relax.call_tir", description="", arguments=(ir.ArgumentInfo(name="func", type_info="Expr", description="The destination-passing-style function."), ir.ArgumentInfo(name="args", type_info="Tuple", description="The input arguments.")), attrs_type_key="", num_inputs=2, support_level=10)

Needs only tvm and numpy. Exits 1 while the bug reproduces, 0 once it is fixed.
"""
import importlib
import os
import pickle
import signal
import sys

import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

KIND = 'pass-error'
TARGET = 'llvm'
TIMEOUT = 60
NUM_INPUT = None
ARGS = [
    np.array(0.0, dtype='float32'),
]
PASSES = [  # (name, constructor, check well_formed after it)
    ('ComputePrimValue', lambda: relax.transform.ComputePrimValue(), True),
    ('LegalizeOps', lambda: relax.transform.LegalizeOps(), True),
    ('SpecializePrimFuncBasedOnCallSite', lambda: relax.transform.SpecializePrimFuncBasedOnCallSite(), True),
]
ADAPTER = None  # how the passes changed main: (transform, lazy, parameters, wraps)
TOLERANCES = [(0.0001, 0.0001000001)]  # (rtol, atol) per output


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((), dtype="float32")) -> R.Tensor((), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((), dtype="float32") = R.clip(x0, T.float64(0.0), T.float64(1.0))
            gv: R.Tensor((), dtype="float32") = lv
            R.output(gv)
        return gv


def isolated(fn, timeout):
    """fn() in a forked child: ("ok", value), ("error", message), ("crash", signal) or ("hang", "")."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        signal.alarm(timeout)
        try:
            message = ("ok", fn())
        except Exception as exc:
            message = ("error", f"{type(exc).__name__}: " + (str(exc).strip().splitlines() or [""])[0])
        with os.fdopen(write_end, "wb") as pipe:
            pickle.dump(message, pipe)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if data:
        return pickle.loads(data)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM:
        return ("hang", f"no result after {timeout} s")
    return ("crash", signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else "exited")


def _custom_pass(module, attr, *args, **kwargs):
    sys.path.insert(0, os.getcwd())
    obj = getattr(importlib.import_module(module), attr)
    return obj if isinstance(obj, tvm.transform.Pass) else obj(*args, **kwargs)


def run(mod, target, adapter=None):
    """Compile mod for target and call main as the original is called. adapter = (transform,
    lazy, slots, wrap, tuple_wrap, inputs) says how a pass changed main (the same rules as passfuzz.calling.Adapter)."""
    kind = tvm.target.Target(target).kind.name
    if kind in ("llvm", "c"):
        executable, device = tvm.compile(mod, target=target), tvm.cpu()
    else:  # GPU targets compile through their default pipeline, which schedules the kernels
        pipeline = relax.get_default_pipeline(tvm.target.Target(target))
        executable, device = tvm.compile(mod, target=target, relax_pipeline=pipeline), tvm.runtime.device(kind)
    args = [tvm.runtime.tensor(a) for a in ARGS]
    transform, lazy, slots, wrap, tuple_wrap, n = adapter or (None, False, None, 0, 0, None)
    n = NUM_INPUT if n is None else n
    transformed = {}
    if lazy:  # the weight transform reads each weight with get_item and writes with set_item
        tvm.register_global_func("get_item", lambda i: args[n + int(i)], override=True)
        tvm.register_global_func("set_item", lambda i, v: transformed.__setitem__(
            int(i), tvm.runtime.tensor(v.numpy())), override=True)
    vm = relax.VirtualMachine(executable, device)
    if transform is None and slots is None:
        return flatten(vm["main"](*args))
    inputs, weights = args[:n], args[n:]
    if lazy:
        vm[transform]()
        weights = [transformed[i] for i in sorted(transformed)]
    elif transform:
        weights = list(vm[transform](nest(weights, wrap)))
    if slots is None:
        return flatten(vm["main"](*inputs, *weights))
    outputs, remaining = {}, iter(weights)
    make = {"tensor": lambda: next(remaining), "tuple": lambda: nest(weights, tuple_wrap),
            "getter": lambda: (lambda i, name: weights[int(i)]),
            "setter": lambda: (lambda i, v: outputs.__setitem__(int(i), flatten(v)))}  # copies: storage is reused
    result = vm["main"](*inputs, *[make[slot]() for slot in slots])
    return [a for i in sorted(outputs) for a in outputs[i]] if "setter" in slots else flatten(result)


def nest(weights, depth):
    for _ in range(depth):
        weights = [weights]
    return weights


def flatten(value):
    return [value.numpy().copy()] if hasattr(value, "numpy") else [a for item in value for a in flatten(item)]


def optimized(target):
    mod = Module
    for name, make_pass, check_well_formed in PASSES:
        try:
            mod = make_pass()(mod)
        except Exception as exc:
            raise RuntimeError(f"pass {name} raised {type(exc).__name__}: " + str(exc).strip().splitlines()[0])
        if check_well_formed and not relax.analysis.check_well_formed(mod):
            raise RuntimeError(f"the module is ill-formed after {name}")
    return run(mod, target, ADAPTER)


def differences(expected, got):
    if len(expected) != len(got):
        return f"{len(expected)} outputs became {len(got)}"
    for i, (a, b, (rtol, atol)) in enumerate(zip(expected, got, TOLERANCES)):
        if a.shape != b.shape or a.dtype != b.dtype:
            return f"output {i}: {a.dtype}{list(a.shape)} became {b.dtype}{list(b.shape)}"
        x, y = a.astype("float64"), b.astype("float64")
        with np.errstate(invalid="ignore"):
            close = (x == y) | (np.abs(x - y) <= atol + rtol * np.abs(x)) | (np.isnan(x) & np.isnan(y))
        if not close.all():
            where = tuple(int(k) for k in np.argwhere(~close)[0])
            return (f"output {i}: {int((~close).sum())} of {close.size} elements differ, first at {list(where)}: "
                    f"original {a[where].item()!r}, optimized {b[where].item()!r}")
    return ""


def main():
    # The optimized side runs first, in a child of a process that has compiled nothing yet: some
    # bugs hide once compiling has imported more of TVM.
    status, value = isolated(lambda: optimized(TARGET), TIMEOUT)
    expected = run(Module, TARGET, None)
    if status != "ok":
        print(f"BUG REPRODUCES ({KIND}): optimized side {status}: {value}")
        return 1
    difference = differences(expected, value)
    if difference:
        print(f"BUG REPRODUCES ({KIND}): {difference}")
        return 1
    print("fixed: the optimized module compiles, runs and matches the original")
    return 0


if __name__ == "__main__":
    sys.exit(main())

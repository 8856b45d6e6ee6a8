"""passfuzz reproducer wrong-result-33615414360c: wrong-result after Gradient('main').

llvm: main_adjoint: gradient 0: 1 of 1 elements differ from central differences, first at [0]: got 1.0, expected 0.0 (allowed error 1.2e-09)

Needs only tvm and numpy. Exits 1 while the bug reproduces, 0 once it is fixed.
"""
import importlib
import os
import pickle
import shutil
import signal
import sys
import tempfile

import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

KIND = 'wrong-result'
TARGET = 'llvm'
TIMEOUT = 60
NUM_INPUT = None
ARGS = [
    np.array([0.0], dtype='float64'),
]
PASSES = [  # (name, constructor, check well_formed after it)
    ("Gradient('main')", lambda: relax.transform.Gradient('main'), True),
]
ADAPTER = 'adjoint'  # how the passes changed main: (transform, lazy, parameters, wraps)
TOLERANCES = []  # (rtol, atol) per output
EXPECTED = None  # numpy's outputs, for a reference mismatch only
GRADIENT_NOISE = 1.2e-13  # Gradient only: rounding bound of one loss evaluation
BUILD = {}  # how the optimized side is compiled (see load)


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((1,), dtype="float64")) -> R.Tensor((), dtype="float64"):
        with R.dataflow():
            lv: R.Tensor((1,), dtype="float64") = R.cumsum(x0, axis=None, dtype=None, exclusive=True)
            lv1: R.Tensor((), dtype="float64") = R.sum(lv, axis=None, keepdims=False)
            gv: R.Tensor((), dtype="float64") = lv1
            R.output(gv)
        return gv


GPU_KINDS = ('cuda', 'rocm', 'vulkan', 'opencl', 'metal')


def kind_of(target):
    """The target kind of a target name such as "llvm" or "cuda"."""
    return target.split()[0].split("-")[0]


def load(mod, target, build=None):
    """(executable, device): ``mod`` compiled for ``target`` (a target kind such as "llvm") under
    ``build``, a dict of passfuzz.builds.Build fields (None or {} for the plain build)."""
    build = build or {}
    kind = kind_of(target)
    if build.get("codegen") == "c" and kind == "llvm":
        kind, target = "c", "c"
    llvm_options = {key: build[field] for field, key in (("opt_level", "opt-level"), ("mcpu", "mcpu"))
                    if build.get(field) is not None}
    if llvm_options and kind == "llvm":
        if llvm_options.get("mcpu") == "host":
            llvm_options["mcpu"] = tvm.target.codegen.llvm_get_system_cpu()
        target = {"kind": "llvm", **llvm_options}
    tgt = tvm.target.Target(target)
    target_pipeline = kind in GPU_KINDS or build.get("pipeline") == "target"
    pipeline = relax.get_default_pipeline(tgt) if target_pipeline else "default"
    executable = relax.build(mod, tgt, relax_pipeline=pipeline, exec_mode=build.get("exec_mode", "bytecode"))
    if build.get("export"):  # the serialization round trip: export_library, then load it back
        directory = tempfile.mkdtemp(prefix="passfuzz-")
        try:
            path = os.path.join(directory, "side.so")
            executable.export_library(path)
            executable = tvm.runtime.load_module(path)
        finally:
            shutil.rmtree(directory, ignore_errors=True)  # a loaded library stays mapped
    device = tvm.cpu(0) if kind in ("llvm", "c") else tvm.runtime.device(kind, 0)
    return executable, device





STEP = 1e-4  # absolute: arguments are drawn within [-16, 16]
RTOL = 1e-6
SCALE_RTOL = 1e-8


def central_differences(f, args, step):
    """For each argument, the array of (f(x + step) - f(x - step)) / (2 step) per element;
    ``f`` maps a list of float64 arrays to a float."""
    grads = []
    for k, arg in enumerate(args):
        grad = np.zeros(arg.shape, dtype="float64")
        for j in range(arg.size):
            values = []
            for delta in (step, -step):
                moved = [a.copy() for a in args]
                moved[k].reshape(-1)[j] += delta
                values.append(float(f(moved)))
            grad.reshape(-1)[j] = (values[0] - values[1]) / (2 * step)
        grads.append(grad)
    return grads


def gradient_mismatch(f, args, loss, grads, noise):
    """'' when ``loss`` equals f(args) and each of ``grads`` (one array per argument) equals the
    central differences of ``f`` within the tolerance above; otherwise one line saying what
    differs. ``noise`` bounds the absolute rounding error of one evaluation of ``f``."""
    args = [np.asarray(a, dtype="float64") for a in args]
    want_loss = float(f(args))
    if not abs(float(loss) - want_loss) <= noise + RTOL * abs(want_loss):
        return f"loss {float(loss)!r}, expected {want_loss!r}"
    if len(grads) != len(args):
        return f"{len(grads)} gradients for {len(args)} parameters"
    fine = central_differences(f, args, STEP)
    coarse = central_differences(f, args, 2 * STEP)
    scale = max([0.0] + [float(np.abs(g).max()) for g in fine if g.size])
    for k, (got, want, other) in enumerate(zip(grads, fine, coarse)):
        got = np.asarray(got)
        if got.shape != want.shape:
            return f"gradient {k}: shape {want.shape}, got {got.shape}"
        allowed = np.abs(want - other) + noise / STEP + RTOL * np.abs(want) + SCALE_RTOL * scale
        bad = ~(np.abs(got.astype("float64") - want) <= allowed)  # NaN counts as bad
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            return (f"gradient {k}: {int(bad.sum())} of {bad.size} elements differ from central differences, "
                    f"first at {list(where)}: got {got[where].item()!r}, expected {want[where].item()!r} "
                    f"(allowed error {allowed[where].item():.3g})")
    return ""


def check_gradient():
    """Gradient: main_adjoint's loss and gradients against central differences of the original
    main (the same module, unoptimized, run by TVM on perturbed arguments)."""
    status, value = isolated(lambda: optimized(TARGET), TIMEOUT)
    if status != "ok":
        print(f"BUG REPRODUCES ({KIND}): optimized side {status}: {value}")
        return 1
    executable, device = load(Module, TARGET)
    vm = relax.VirtualMachine(executable, device)
    loss = lambda arrays: float(vm["main"](*[tvm.runtime.tensor(a) for a in arrays]).numpy())
    problem = gradient_mismatch(loss, ARGS, value[0], value[1:], GRADIENT_NOISE)
    if problem:
        print(f"BUG REPRODUCES ({KIND}): main_adjoint: {problem}")
        return 1
    print("fixed: main_adjoint's loss and gradients match central differences of main")
    return 0

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


def run(mod, target, adapter=None, build=None):
    """Compile mod for target under build (see load) and call main as the original is called.
    adapter = (transform, lazy, slots, wrap, tuple_wrap, inputs) says how a pass changed main
    (the same rules as passfuzz.calling.Adapter)."""
    executable, device = load(mod, target, build)
    args = [tvm.runtime.tensor(a) for a in ARGS]
    transform, lazy, slots, wrap, tuple_wrap, n = adapter if isinstance(adapter, tuple) else         (None, False, None, 0, 0, None)
    n = NUM_INPUT if n is None else n
    transformed = {}
    if lazy:  # the weight transform reads each weight with get_item and writes with set_item
        tvm.register_global_func("get_item", lambda i: args[n + int(i)], override=True)
        tvm.register_global_func("set_item", lambda i, v: transformed.__setitem__(
            int(i), tvm.runtime.tensor(v.numpy())), override=True)
    vm = relax.VirtualMachine(executable, device)
    if adapter == "adjoint":  # Gradient: main_adjoint returns (loss, (gradients...))
        return flatten(vm["main_adjoint"](*args))
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
    return run(mod, target, ADAPTER, BUILD)


def differences(expected, got, names=("original", "optimized")):
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
                    f"{names[0]} {a[where].item()!r}, {names[1]} {b[where].item()!r}")
    return ""


def check_reference():
    status, value = isolated(lambda: run(Module, TARGET, None), TIMEOUT)
    if status != "ok":
        print(f"the unoptimized module itself fails now ({status}: {value}); no comparison with numpy")
        return 1
    difference = differences(EXPECTED, value, ("numpy", "tvm"))
    if difference:
        print(f"BUG REPRODUCES ({KIND}): the unoptimized module differs from numpy: {difference}")
        return 1
    print("fixed: the unoptimized module matches the numpy reference")
    return 0


def main():
    if EXPECTED is not None:
        return check_reference()
    if GRADIENT_NOISE is not None:
        return check_gradient()
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

"""passfuzz reproducer runtime-error-effa9058c34d: runtime-error after LiftTransformParams, ToNonDataflow, RemovePurityChecking, LazyTransformParams.

error at run:llvm: InternalError: Check failed: static_cast<size_t>(gfunc.num_args) == args.size() (2 vs. 1) : Invoking function main expects 2 arguments (x0, lv1), but 1 arguments were provided.

Needs only tvm and numpy. Exits 1 while the bug reproduces, 0 once it is fixed.
"""
import importlib
import os
import pickle
import shutil
import signal
import sys
import tempfile
from typing import TypeVar

import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

KIND = 'runtime-error'
TARGET = 'llvm'
TARGETS = ['llvm']
TIMEOUT = 60
NUM_INPUT = 1
ARGS = [
    np.array([1.0, 2.0, 3.0, 4.0], dtype='float32'),
    np.array([1.0, 2.0, 3.0, 4.0], dtype='float32'),
]
PASSES = [  # (name, constructor, check well_formed after it)
    ('LiftTransformParams', lambda: relax.transform.LiftTransformParams(), True),
    ('ToNonDataflow', lambda: relax.transform.ToNonDataflow(), True),
    ('RemovePurityChecking', lambda: relax.transform.RemovePurityChecking(), True),
    ('LazyTransformParams', lambda: relax.transform.LazyTransformParams(), True),
]
ADAPTER = ('main_transform_params', True, None, 0, 0, None)  # how the passes changed main: (transform, lazy, parameters, wraps)
TOLERANCES = [(0.0001, 0.0008000012000004001)]  # (rtol, atol) per output
EXPECTED = None  # numpy's outputs, for a reference mismatch only
GRADIENT_NOISE = None  # Gradient only: rounding bound of one loss evaluation
BUILD = {}  # how the optimized side is compiled (see load)


# from typing import TypeVar

n0 = TypeVar("n0")
@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((4,), dtype="float32"), w1: R.Tensor((n0,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((n0,), dtype="float32") = R.negative(w1)
            lv1: R.Tensor((4,), dtype="float32") = R.match_cast(lv, R.Tensor((4,), dtype="float32"))
            lv2: R.Tensor((4,), dtype="float32") = R.add(x0, lv1)
            gv: R.Tensor((4,), dtype="float32") = lv2
            R.output(gv)
        return gv


GPU_KINDS = ('cuda', 'rocm', 'vulkan', 'opencl', 'metal')


def kind_of(target):
    """The target kind of a target string such as "llvm" or "cuda -arch=sm_80"."""
    return target.split()[0] if target.split() else ""


def target_config(target):
    """"llvm -mcpu=skylake -opt-level=2" -> {"kind": "llvm", "mcpu": "skylake", "opt-level": 2}.
    Each option is -name=value (a bare -name is true); its type comes from the kind's options:
    int, bool (true/false/1/0), Array<str> (comma-separated) or str. ValueError, one line, for
    an option the kind does not have or a value of the wrong type."""
    words = target.split()
    kind = words[0] if words else ""
    if kind not in tvm.target.Target.list_kinds():
        raise ValueError(f"TVM knows no target kind {kind!r}")
    options = tvm.target.TargetKind.options_from_name(kind)
    config = {"kind": kind}
    for word in words[1:]:
        name, equals, value = word.lstrip("-").partition("=")
        if not word.startswith("-") or not name or name not in options or name in ("kind", "host"):
            raise ValueError(f"{kind} has no option {word!r} (options: {', '.join(sorted(options))})")
        schema = options[name]
        if schema == "bool" and value.lower() in ("", "true", "1", "false", "0"):
            config[name] = value.lower() in ("", "true", "1")
        elif schema == "int" and value.lstrip("-").isdigit():
            config[name] = int(value)
        elif schema.startswith("Array") and value:
            config[name] = value.split(",")
        elif schema == "str" and equals and value:
            config[name] = value
        else:
            raise ValueError(f"{kind} option {name} takes {schema}, not {value!r}")
    return config


def has_closures(mod):
    """Does a Relax function of ``mod`` define a local function? (They must be lifted first.)"""
    found = []
    for func in mod.functions.values():
        if isinstance(func, relax.Function):
            relax.analysis.post_order_visit(func.body, lambda e: found.append(isinstance(e, relax.Function)))
    return any(found)


def load(mod, target, build=None):
    """(executable, device): ``mod`` compiled for ``target`` (a target string such as "llvm" or
    "cuda -arch=sm_80") under ``build``, a dict of passfuzz.builds.Build fields (None or {} for the
    plain build). GPU kinds always compile with their default pipeline: it schedules every kernel
    onto threads (dlight), without which no GPU kernel passes VerifyMemory."""
    build = build or {}
    kind = kind_of(target)
    config = target_config(target)
    if build.get("codegen") == "c" and kind == "llvm":
        kind, config = "c", {"kind": "c"}
    llvm_options = {key: build[field] for field, key in (("opt_level", "opt-level"), ("mcpu", "mcpu"))
                    if build.get(field) is not None}
    if llvm_options and kind == "llvm":
        if llvm_options.get("mcpu") == "host":
            llvm_options["mcpu"] = tvm.target.codegen.llvm_get_system_cpu()
        config.update(llvm_options)
    if has_closures(mod):  # the build pipeline cannot lower local functions
        mod = relax.transform.LambdaLift()(mod)
    tgt = tvm.target.Target(config)
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
    args = [to_tvm(a, device) for a in ARGS]
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


def to_tvm(argument, device):  # a tuple of ints is an R.Shape; a tuple parameter takes a tuple of tensors
    if isinstance(argument, tuple) and all(isinstance(item, int) for item in argument):
        return tvm.runtime.ShapeTuple(argument)
    if isinstance(argument, tuple):
        return tuple(to_tvm(a, device) for a in argument)
    return tvm.runtime.tensor(argument, device)


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


def check_targets():
    results = [isolated(lambda target=target: optimized(target), TIMEOUT) for target in TARGETS]
    for target, (status, value) in zip(TARGETS, results):
        if status != "ok":
            print(f"the module fails on {target} now ({status}: {value}); the targets cannot be compared")
            return 1
    difference = differences(results[0][1], results[1][1], TARGETS)
    if difference:
        print(f"BUG REPRODUCES ({KIND}): {TARGETS[1]} disagrees with {TARGETS[0]}: {difference}")
        return 1
    print(f"fixed: the module gives the same outputs on {TARGETS[0]} and {TARGETS[1]}")
    return 0


def main():
    if EXPECTED is not None:
        return check_reference()
    if GRADIENT_NOISE is not None:
        return check_gradient()
    if KIND == "target-mismatch":
        return check_targets()
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

"""passfuzz compile-error-2a0187452c75: compile-error compiled with pipeline=target on llvm.

error at compile:llvm in VMShapeLower: InternalError: Check failed: (slot->value_computed) is false: PrimExpr T.int64(4) * v3_0 in function I.GlobalVar("main") has not been computed
Exits 1 while the bug reproduces, 0 once it is fixed.
"""
import os
import shutil
import sys
import tempfile

import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


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


def is_plain(target, build=None):
    """Is this the plain build (``tvm.compile(mod, target)``) for a CPU target without options?"""
    return not build and target in ("llvm", "c")


def load(mod, target, build=None):
    """(executable, device): ``mod`` compiled for ``target`` (a target string such as "llvm" or
    "cuda -arch=sm_80") under ``build``, a dict of passfuzz.builds.Build fields (None or {} for the
    plain build). GPU kinds always compile with their default pipeline: it schedules every kernel
    onto threads (dlight), without which no GPU kernel passes VerifyMemory."""
    if has_closures(mod):  # the build pipeline cannot lower local functions
        mod = relax.transform.LambdaLift()(mod)
    if is_plain(target, build):
        return tvm.compile(mod, target), tvm.cpu(0)
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


def to_tvm(argument, device=None):
    """One of ``Program.arguments()`` as the VM takes it, on ``device`` (the CPU if None): a
    tensor for an array, a shape for a tuple of ints (an R.Shape parameter), the int itself for
    an R.Prim parameter, and a tuple of those for a tuple parameter."""
    if isinstance(argument, int):
        return argument
    if isinstance(argument, tuple) and all(isinstance(item, int) for item in argument):
        return tvm.runtime.ShapeTuple(argument)
    if isinstance(argument, tuple):
        return tuple(to_tvm(item, device) for item in argument)
    return tvm.runtime.tensor(argument, device)


def numpy_outputs(value):
    """The VM's result (a tensor or nested tuples of tensors) as a flat list of numpy arrays."""
    if hasattr(value, "numpy"):
        return [value.numpy()]
    return [array for item in value for array in numpy_outputs(item)]


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):
        v3_0 = T.int64()
        with R.dataflow():
            lv: R.Tensor((), dtype="float32") = R.negative(x0)
            lv1: R.Shape([1]) = R.shape_of(R.const(np.array([0.0], dtype='float32'), 'float32'))
            lv2: R.Tensor((1,), dtype="int64") = R.shape_to_tensor(lv1)
            lv3: R.Shape(ndim=1) = R.tensor_to_shape(lv2)
            lv4: R.Shape([v3_0]) = R.match_cast(lv3, R.Shape([v3_0]))
            lv5: R.Tensor((v3_0,), dtype="float32") = R.reshape(lv, R.shape([v3_0]))
            gv: R.Tensor((v3_0,), dtype="float32") = lv5
            R.output(gv)
        return gv


arguments = [np.array(0.0, dtype='float32')]
try:  # the optimized module first: compiling the original first can hide a bug
    mod = Module.clone()  # passes may update their input in place
    executable, device = load(mod, 'llvm', {'pipeline': 'target'})
    args = [to_tvm(a, device) for a in arguments]
    vm = relax.VirtualMachine(executable, device)
    actual = numpy_outputs(vm["main"](*args))
except Exception as error:
    print(f"BUG REPRODUCES (compile-error): {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
args = [tvm.runtime.tensor(a) for a in arguments]
vm = relax.VirtualMachine(tvm.compile(Module, 'llvm'), tvm.cpu())
expected = numpy_outputs(vm["main"](*args))
try:
    assert len(actual) == 1, f"1 output(s) expected, {len(actual)} returned"
    assert (actual[0].dtype, actual[0].shape) == (expected[0].dtype, expected[0].shape), f"{expected[0].dtype}{expected[0].shape} became {actual[0].dtype}{actual[0].shape}"
    np.testing.assert_allclose(actual[0].astype("float64"), expected[0].astype("float64"), rtol=0.0001, atol=0.0004000004, equal_nan=True, err_msg='output 0')
except AssertionError as error:
    print("BUG REPRODUCES (compile-error):", " ".join(str(error).split()))
    sys.exit(1)
print("fixed: the optimized module compiles, runs and matches the original")

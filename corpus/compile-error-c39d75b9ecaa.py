"""passfuzz compile-error-c39d75b9ecaa: compile-error compiled with pipeline=target on llvm.

error at compile:llvm in VMShapeLower: InternalError: Check failed: (slot->value_computed) is false: PrimExpr T.int64(4) * v3_0 in function I.GlobalVar("main") has not been computed
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


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


def target_pipeline(pipeline, tgt, build):
    """pipeline=target, and every GPU kind: the target's own default Relax pipeline, which fuses;
    on a GPU it schedules every kernel onto threads (dlight), without which none passes VerifyMemory."""
    return relax.get_default_pipeline(tgt)


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
mod = Module.clone()  # passes may update their input in place
try:
    executable, device = compile_with(mod, 'llvm', {'pipeline': 'target'}, {'pipeline': [target_pipeline]})
except Exception as error:
    print(f"BUG REPRODUCES (compile-error): {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
args = [tvm.runtime.tensor(a, device) for a in arguments]
vm = relax.VirtualMachine(executable, device)
actual = numpy_outputs(vm["main"](*args))
args = [tvm.runtime.tensor(a) for a in arguments]
vm = relax.VirtualMachine(tvm.compile(Module, 'llvm'), tvm.cpu())
expected = numpy_outputs(vm["main"](*args))
try:
    assert len(actual) == 1, f"1 output(s) expected, {len(actual)} returned"
    assert (actual[0].dtype, actual[0].shape) == (expected[0].dtype, expected[0].shape), f"{expected[0].dtype}{expected[0].shape} became {actual[0].dtype}{actual[0].shape}"
    np.testing.assert_allclose(actual[0].astype("float64"), expected[0].astype("float64"), rtol=0.0001, atol=0.0004000004, equal_nan=True, err_msg='output 0')
except AssertionError as error:
    print("changed (wrong-result, not compile-error):", " ".join(str(error).split()))
    sys.exit(125)
print("fixed: the optimized module compiles, runs and matches the original")

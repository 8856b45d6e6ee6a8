"""passfuzz compile-error-f62a381dcdc0: compile-error after LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR, AttachAttrLayoutFreeBuffers on llvm.

error at compile:llvm in DispatchSampling: InternalError: Check failed: (!name_supply_->ContainsName(global_symbol_value)) is false: IRModule contains duplicate global symbol: addone
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


def numpy_outputs(value):
    """The VM's result (a tensor or nested tuples of tensors) as a flat list of numpy arrays."""
    if hasattr(value, "numpy"):
        return [value.numpy()]
    return [array for item in value for array in numpy_outputs(item)]


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def addone(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
        # with T.sblock("root"):
        for i, j in T.grid(16, 16):
            with T.sblock("addone"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] + T.float32(1.0)

    @R.function
    def main(x0: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((16, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.addone, (x0,), out_ty=R.Tensor((16, 16), dtype="float32"))
            gv: R.Tensor((16, 16), dtype="float32") = lv
            R.output(gv)
        return gv


arguments = [
    np.array([[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]], dtype='float32'),
]
mod = relax.transform.LegalizeOps()(Module.clone())  # passes may update their input in place
mod = relax.transform.AnnotateTIROpPattern()(mod)
mod = relax.transform.FuseOps()(mod)
mod = relax.transform.FuseTIR()(mod)
mod = relax.transform.AttachAttrLayoutFreeBuffers()(mod)
try:
    executable = tvm.compile(mod, 'llvm')
except Exception as error:
    print(f"BUG REPRODUCES (compile-error): {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
args = [tvm.runtime.tensor(a) for a in arguments]
vm = relax.VirtualMachine(executable, tvm.cpu())
actual = numpy_outputs(vm["main"](*args))
args = [tvm.runtime.tensor(a) for a in arguments]
vm = relax.VirtualMachine(tvm.compile(Module, 'llvm'), tvm.cpu())
expected = numpy_outputs(vm["main"](*args))
try:
    assert len(actual) == 1, f"1 output(s) expected, {len(actual)} returned"
    assert (actual[0].dtype, actual[0].shape) == (expected[0].dtype, expected[0].shape), f"{expected[0].dtype}{expected[0].shape} became {actual[0].dtype}{actual[0].shape}"
    np.testing.assert_allclose(actual[0].astype("float64"), expected[0].astype("float64"), rtol=0.0001, atol=0.0001, equal_nan=True, err_msg='output 0')
except AssertionError as error:
    print("changed (wrong-result, not compile-error):", " ".join(str(error).split()))
    sys.exit(125)
print("fixed: the optimized module compiles, runs and matches the original")

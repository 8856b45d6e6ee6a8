"""[Bug][TOPI] rms_norm on float64 computes in float32: its result errs by ~1e-8 relative

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the run). Needs: tvm, numpy.
"""
import sys

try:
    import numpy as np
    import tvm
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((1, 4), "float64"), w: R.Tensor((4,), "float64")) -> R.Tensor((1, 4), "float64"):
            return R.nn.rms_norm(x, w, axes=[-1], epsilon=1e-5)

    x = np.array([[0.1, 0.2, 0.3, 0.4]], dtype="float64")
    w = np.ones(4, dtype="float64")
    vm = relax.VirtualMachine(tvm.compile(Module, "llvm"), tvm.cpu())
    got = vm["main"](tvm.runtime.tensor(x), tvm.runtime.tensor(w)).numpy()
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

want = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-5) * w
error = float(np.max(np.abs(got - want) / np.abs(want)))
if error > 1e-12:  # float64 rounding gives ~1e-16; float32 gives ~1e-8
    print(f"REPRODUCES: float64 rms_norm of {x.tolist()} errs by {error:.1e} relative (float32 rounding)")
    sys.exit(1)
print(f"fixed: float64 rms_norm errs by {error:.1e} relative")

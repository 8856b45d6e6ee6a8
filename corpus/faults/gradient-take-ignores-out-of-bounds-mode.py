"""[Bug][Relax][Gradient] the gradient of take(mode="wrap" or "clip") ignores the mode: zero gradient, out-of-bounds writes

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the comparison). Needs: tvm, numpy.
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
        def main(x: R.Tensor((8,), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                lv = R.take(x, R.const(np.array([8], "int64")), axis=0, mode="wrap")  # x[[0]]
                gv = R.sum(lv)
                R.output(gv)
            return gv

    after = relax.transform.Gradient("main")(Module)
    vm = relax.VirtualMachine(tvm.compile(after, target="llvm"), tvm.cpu())
    _, (grad,) = vm["main_adjoint"](tvm.runtime.tensor(np.arange(8, dtype="float32")))
    got = grad.numpy()
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

want = np.eye(8, dtype="float32")[0]  # index 8 wraps to 0
if not np.array_equal(got, want):
    print(f"REPRODUCES: the gradient of take(x, [8], mode='wrap') is {got.tolist()}, not {want.tolist()}")
    sys.exit(1)
print("fixed: the gradient of take honours its mode")

"""[Bug][Relax][Gradient] where's gradient is not summed back to a broadcast branch's shape

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
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((3,), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                lv = R.where(R.const(np.array([[True, False, True], [False, False, True]])), x, y)
                gv = R.sum(lv)
                R.output(gv)
            return gv

    after = relax.transform.Gradient("main")(Module)
    vm = relax.VirtualMachine(tvm.compile(after, target="llvm"), tvm.cpu())
    x, y = np.ones((2, 3), "float32"), np.ones(3, "float32")
    _, (_, y_grad) = vm["main_adjoint"](tvm.runtime.tensor(x), tvm.runtime.tensor(y))
    got = y_grad.numpy()
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

want = np.array([2.0, 1.0, 0.0], "float32")  # how many rows of the condition pick y, per column
if got.shape != want.shape or not np.array_equal(got, want):
    print(f"REPRODUCES: the gradient of y (shape (3,)) in where(cond, x, y) is {got.tolist()}, not {want.tolist()}")
    sys.exit(1)
print("fixed: where's gradient sums a broadcast branch back to its shape")

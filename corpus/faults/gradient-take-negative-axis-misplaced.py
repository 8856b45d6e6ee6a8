"""[Bug][Relax][Gradient] the gradient of take with a negative axis lands on the wrong elements

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
        def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                lv = R.take(x, R.const(np.array([2], "int64")), axis=-1)  # x[:, 2:3]
                lv1 = R.multiply(lv, R.const(np.array([[1.0], [10.0]], "float32")))
                gv = R.sum(lv1)
                R.output(gv)
            return gv

    after = relax.transform.Gradient("main")(Module)
    vm = relax.VirtualMachine(tvm.compile(after, target="llvm"), tvm.cpu())
    _, (grad,) = vm["main_adjoint"](tvm.runtime.tensor(np.arange(6, dtype="float32").reshape(2, 3)))
    got = grad.numpy()
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

want = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 10.0]], "float32")  # what axis=1 gives
if not np.array_equal(got, want):
    print(f"REPRODUCES: the gradient of take(x, [2], axis=-1) is {got.tolist()}, not {want.tolist()}")
    sys.exit(1)
print("fixed: the gradient of take honours a negative axis")

"""[Bug][Relax][Gradient] the gradient of cumsum(exclusive=True) is that of the inclusive cumsum

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm, numpy.
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
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                lv = R.cumsum(x, axis=0, exclusive=True)
                gv = R.sum(lv)
                R.output(gv)
            return gv

    after = relax.transform.Gradient("main")(Module)
    vm = relax.VirtualMachine(tvm.compile(after, target="llvm"), tvm.cpu())
    _, (grad,) = vm["main_adjoint"](tvm.runtime.tensor(np.array([1.0, 2.0, 3.0], "float32")))
    got = grad.numpy()
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

want = np.array([2.0, 1.0, 0.0], "float32")  # x_i appears in the exclusive sums after position i
if not np.allclose(got, want):
    print(f"REPRODUCES: d sum(cumsum(x, exclusive=True)) / dx is {got.tolist()}, not {want.tolist()}")
    sys.exit(1)
print("fixed: the gradient honours exclusive")

import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_gradient_cumsum_exclusive():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                lv = R.cumsum(x, axis=0, exclusive=True)
                gv = R.sum(lv)
                R.output(gv)
            return gv

    After = relax.transform.Gradient("main")(Before)
    vm = relax.VirtualMachine(tvm.compile(After, target="llvm"), tvm.cpu())
    _, (grad,) = vm["main_adjoint"](tvm.runtime.tensor(np.array([1.0, 2.0, 3.0], "float32")))
    # exclusive cumsum: y_j = sum_{i<j} x_i, so d sum(y) / d x_i = #{j > i}
    tvm.testing.assert_allclose(grad.numpy(), np.array([2.0, 1.0, 0.0], "float32"))


if __name__ == "__main__":
    tvm.testing.main()

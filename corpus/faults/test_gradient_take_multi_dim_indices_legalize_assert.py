import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_take_grad_with_2d_indices():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                t = R.take(x, R.const(np.array([[0], [2]], "int64")), axis=0)
                s = R.sum(t)
                R.output(s)
            return s

    After = relax.transform.Gradient("main")(Before)
    vm = relax.VirtualMachine(tvm.compile(After, "llvm"), tvm.cpu())
    x = np.array([1.0, 2.0, 3.0], "float32")
    _, (x_grad,) = vm["main_adjoint"](tvm.runtime.tensor(x))
    tvm.testing.assert_allclose(x_grad.numpy(), [1.0, 0.0, 1.0])


if __name__ == "__main__":
    tvm.testing.main()

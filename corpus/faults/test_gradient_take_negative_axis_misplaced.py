import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_gradient_take_negative_axis():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                lv = R.take(x, R.const(np.array([2], "int64")), axis=-1)
                lv1 = R.multiply(lv, R.const(np.array([[1.0], [10.0]], "float32")))
                gv = R.sum(lv1)
                R.output(gv)
            return gv

    After = relax.transform.Gradient("main")(Before)
    vm = relax.VirtualMachine(tvm.compile(After, target="llvm"), tvm.cpu())
    _, (grad,) = vm["main_adjoint"](tvm.runtime.tensor(np.arange(6, dtype="float32").reshape(2, 3)))
    tvm.testing.assert_allclose(grad.numpy(), np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 10.0]], "float32"))


if __name__ == "__main__":
    tvm.testing.main()

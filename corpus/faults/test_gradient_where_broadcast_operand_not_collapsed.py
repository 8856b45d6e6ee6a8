import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_gradient_where_broadcast_branch():
    cond = np.array([[True, False, True], [False, False, True]])

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((3,), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                lv = R.where(R.const(cond), x, y)
                gv = R.sum(lv)
                R.output(gv)
            return gv

    After = relax.transform.Gradient("main")(Before)
    vm = relax.VirtualMachine(tvm.compile(After, target="llvm"), tvm.cpu())
    args = [tvm.runtime.tensor(np.ones((2, 3), "float32")), tvm.runtime.tensor(np.ones(3, "float32"))]
    _, (x_grad, y_grad) = vm["main_adjoint"](*args)
    tvm.testing.assert_allclose(x_grad.numpy(), cond.astype("float32"))
    tvm.testing.assert_allclose(y_grad.numpy(), (~cond).sum(axis=0).astype("float32"))


if __name__ == "__main__":
    tvm.testing.main()

import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_gradient_triu():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 2), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                lv = R.triu(x, 0)
                gv = R.sum(lv)
                R.output(gv)
            return gv

    After = relax.transform.Gradient("main")(Before)
    vm = relax.VirtualMachine(tvm.compile(After, target="llvm"), tvm.cpu())
    _, (grad,) = vm["main_adjoint"](tvm.runtime.tensor(np.ones((2, 2), "float32")))
    tvm.testing.assert_allclose(grad.numpy(), np.triu(np.ones((2, 2), "float32")))


if __name__ == "__main__":
    tvm.testing.main()

import numpy as np
import pytest

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


@pytest.mark.parametrize("mode, index, taken", [("wrap", 8, 0), ("clip", 9, 7)])
def test_gradient_take_out_of_bounds_mode(mode, index, taken):
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((8,), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                lv = R.take(x, R.const(np.array([index], "int64")), axis=0, mode=mode)
                gv = R.sum(lv)
                R.output(gv)
            return gv

    After = relax.transform.Gradient("main")(Before)
    vm = relax.VirtualMachine(tvm.compile(After, target="llvm"), tvm.cpu())
    _, (grad,) = vm["main_adjoint"](tvm.runtime.tensor(np.arange(8, dtype="float32")))
    tvm.testing.assert_allclose(grad.numpy(), np.eye(8, dtype="float32")[taken])


if __name__ == "__main__":
    tvm.testing.main()

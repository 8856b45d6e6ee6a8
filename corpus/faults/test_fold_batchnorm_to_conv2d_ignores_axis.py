import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_fold_batchnorm_nhwc_axis3():
    w = np.array([[[[1.0]], [[0.0]]], [[[0.0]], [[1.0]]]], "float32")  # 1x1 identity, OIHW
    gamma = np.array([1.0, 3.0], "float32")
    beta = np.array([0.0, 10.0], "float32")

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((1, 2, 2, 2), "float32")) -> R.Tensor((1, 2, 2, 2), "float32"):
            with R.dataflow():
                lv = R.nn.conv2d(x, R.const(w), data_layout="NHWC", kernel_layout="OIHW")
                bn = R.nn.batch_norm(lv, R.const(gamma), R.const(beta),
                                     R.const(np.zeros(2, "float32")), R.const(np.ones(2, "float32")),
                                     axis=3, epsilon=0.0, training=False)
                gv = bn[0]
                R.output(gv)
            return gv

    x = np.arange(8, dtype="float32").reshape(1, 2, 2, 2)
    After = relax.transform.FoldBatchnormToConv2D()(Before)
    vm = relax.VirtualMachine(tvm.compile(After, target="llvm"), tvm.cpu())
    out = vm["main"](tvm.runtime.tensor(x)).numpy()
    tvm.testing.assert_allclose(out, x * gamma + beta, rtol=1e-5, atol=1e-5)


if __name__ == "__main__":
    tvm.testing.main()

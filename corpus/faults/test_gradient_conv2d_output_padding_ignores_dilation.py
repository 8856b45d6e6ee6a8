import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_conv2d_grad_with_dilation():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((1, 1, 5, 5), "float32"), w: R.Tensor((1, 1, 2, 2), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                y = R.nn.conv2d(x, w, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[2, 2])
                s = R.sum(y)
                R.output(s)
            return s

    After = relax.transform.Gradient("main")(Before)
    vm = relax.VirtualMachine(tvm.compile(After, "llvm"), tvm.cpu())
    x = np.random.uniform(0, 1, (1, 1, 5, 5)).astype("float32")
    w = np.random.uniform(0, 1, (1, 1, 2, 2)).astype("float32")
    _, (x_grad, w_grad) = vm["main_adjoint"](tvm.runtime.tensor(x), tvm.runtime.tensor(w))
    # d sum(conv2d(x, w)) / dx[i, j] = sum of the weights that reach x[i, j] (dilation 2)
    expected = np.zeros((5, 5), "float32")
    for i in range(3):
        for j in range(3):
            for p in range(2):
                for q in range(2):
                    expected[i + 2 * p, j + 2 * q] += w[0, 0, p, q]
    tvm.testing.assert_allclose(x_grad.numpy()[0, 0], expected, rtol=1e-5)


if __name__ == "__main__":
    tvm.testing.main()

import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_decompose_layer_norm_non_trailing_axes():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 2), "float32"), gamma: R.Tensor((2,), "float32"),
                 beta: R.Tensor((2,), "float32")) -> R.Tensor((2, 2), "float32"):
            with R.dataflow():
                gv = R.nn.layer_norm(x, gamma, beta, axes=[0], epsilon=1e-5)
                R.output(gv)
            return gv

    x = np.array([[0.0, 1.0], [2.0, 5.0]], "float32")
    gamma = np.array([1.0, 3.0], "float32")
    beta = np.array([0.0, 10.0], "float32")
    mean, var = x.mean(0, keepdims=True), x.var(0, keepdims=True)
    expected = (x - mean) / np.sqrt(var + 1e-5) * gamma[:, None] + beta[:, None]

    After = relax.transform.DecomposeOpsForTraining()(Before)
    vm = relax.VirtualMachine(tvm.compile(After, target="llvm"), tvm.cpu())
    out = vm["main"](*[tvm.runtime.tensor(a) for a in (x, gamma, beta)]).numpy()
    tvm.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


if __name__ == "__main__":
    tvm.testing.main()

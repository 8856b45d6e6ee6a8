import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_scatter_elements_indices_smaller_than_data():
    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((2, 2, 3), "float32"), idx: R.Tensor((2, 2, 1), "int64"),
                 upd: R.Tensor((2, 2, 1), "float32")) -> R.Tensor((2, 2, 3), "float32"):
            return R.scatter_elements(x, idx, upd, axis=0)

    x = np.arange(12, dtype="float32").reshape(2, 2, 3)
    idx = np.array([[[1], [0]], [[0], [1]]], "int64")
    upd = np.array([[[10], [20]], [[30], [40]]], "float32")
    expected = x.copy()
    for i, j, k in np.ndindex(*idx.shape):  # ONNX ScatterElements, axis 0
        expected[idx[i, j, k], j, k] = upd[i, j, k]

    vm = relax.VirtualMachine(tvm.compile(Module, "llvm"), tvm.cpu())
    out = vm["main"](tvm.runtime.tensor(x), tvm.runtime.tensor(idx), tvm.runtime.tensor(upd))
    tvm.testing.assert_allclose(out.numpy(), expected)


if __name__ == "__main__":
    tvm.testing.main()

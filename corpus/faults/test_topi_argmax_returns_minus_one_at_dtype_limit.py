import numpy as np
import pytest

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


@pytest.mark.parametrize("op, fill", [("argmax", 0), ("argmin", 255)])
def test_arg_reduce_row_at_dtype_limit(op, fill):
    func = R.argmax if op == "argmax" else R.argmin

    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((2, 3), "uint8")) -> R.Tensor((2,), "int64"):
            return func(x, axis=1)

    x = np.array([[fill] * 3, [1, 3, 3]], dtype="uint8")
    vm = relax.VirtualMachine(tvm.compile(Module, "llvm"), tvm.cpu())
    out = vm["main"](tvm.runtime.tensor(x)).numpy()
    expected = getattr(np, op)(x, axis=1)
    tvm.testing.assert_allclose(out, expected)


if __name__ == "__main__":
    tvm.testing.main()

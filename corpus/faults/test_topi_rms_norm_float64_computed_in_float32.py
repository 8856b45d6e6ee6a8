import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_rms_norm_float64_keeps_float64_precision():
    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((2, 8), "float64"), w: R.Tensor((8,), "float64")) -> R.Tensor((2, 8), "float64"):
            return R.nn.rms_norm(x, w, axes=[-1], epsilon=1e-5)

    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (2, 8))
    w = rng.uniform(0.5, 2, (8,))
    vm = relax.VirtualMachine(tvm.compile(Module, "llvm"), tvm.cpu())
    out = vm["main"](tvm.runtime.tensor(x), tvm.runtime.tensor(w)).numpy()
    expected = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-5) * w
    # float32 intermediates give ~1e-8; float64 ones ~1e-16
    tvm.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)


if __name__ == "__main__":
    tvm.testing.main()

import math

import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_fast_erf_float16_accuracy():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((6,), "float16")) -> R.Tensor((6,), "float16"):
            with R.dataflow():
                gv = R.erf(x)
                R.output(gv)
            return gv

    x = np.array([-4.0, -3.5, -2.5, 0.5, 2.5, 3.9], "float16")
    expected = np.array([math.erf(v) for v in x.astype("float64")])
    After = relax.transform.FastMathTransform()(Before)
    vm = relax.VirtualMachine(tvm.compile(After, target="llvm"), tvm.cpu())
    out = vm["main"](tvm.runtime.tensor(x)).numpy().astype("float64")
    assert np.abs(out).max() <= 1.0
    tvm.testing.assert_allclose(out, expected, atol=5e-3)


if __name__ == "__main__":
    tvm.testing.main()

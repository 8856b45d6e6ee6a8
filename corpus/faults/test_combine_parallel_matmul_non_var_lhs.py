import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_constant_lhs_is_left_unchanged():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 2), "float32")) -> R.Tensor((2, 2), "float32"):
            with R.dataflow():
                gv = R.matmul(R.const(np.ones((2, 2), "float32")), x)
                R.output(gv)
            return gv

    After = relax.transform.CombineParallelMatmul()(Before)
    tvm.ir.assert_structural_equal(After, Before)


if __name__ == "__main__":
    tvm.testing.main()

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_rebound_result_of_equal_cost_chain():
    """All orders cost the same, so the module is unchanged (0.27 segfaults here)"""

    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor((2, 2), "float32"), b: R.Tensor((2, 2), "float32"),
                 c: R.Tensor((2, 2), "float32")) -> R.Tensor((2, 2), "float32"):
            with R.dataflow():
                lv = R.matmul(a, b)
                lv1 = R.matmul(lv, c)
                gv = lv1
                R.output(gv)
            return gv

    After = relax.transform.AdjustMatmulOrder()(Before)
    tvm.ir.assert_structural_equal(After, Before)


if __name__ == "__main__":
    tvm.testing.main()

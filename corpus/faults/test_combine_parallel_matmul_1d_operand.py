import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_vector_lhs_is_left_unchanged():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32"), w1: R.Tensor((2, 3), "float32"), w2: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                lv = R.matmul(x, w1)
                lv1 = R.matmul(x, w2)
                gv = (lv, lv1)
                R.output(gv)
            return gv

    After = relax.transform.CombineParallelMatmul()(Before)
    tvm.ir.assert_structural_equal(After, Before)


def test_vector_rhs_is_left_unchanged():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 2), "float32"), w1: R.Tensor((2,), "float32"), w2: R.Tensor((2,), "float32")):
            with R.dataflow():
                lv = R.matmul(x, w1)
                lv1 = R.matmul(x, w2)
                gv = (lv, lv1)
                R.output(gv)
            return gv

    After = relax.transform.CombineParallelMatmul()(Before)
    tvm.ir.assert_structural_equal(After, Before)


if __name__ == "__main__":
    tvm.testing.main()

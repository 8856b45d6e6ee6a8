import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_1d_transpose_is_not_fused():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                lv = R.permute_dims(x)
                gv = R.matmul(y, lv)
                R.output(gv)
            return gv

    After = relax.transform.FuseTransposeMatmul()(Before)
    tvm.ir.assert_structural_equal(After, Before)


def test_3d_transpose_with_default_axes_is_not_fused():
    """permute_dims(x) without axes reverses all three dims, which is not the last-two swap."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3, 4), "float32"), y: R.Tensor((4, 2, 3), "float32")) -> R.Tensor((4, 2, 2), "float32"):
            with R.dataflow():
                lv = R.permute_dims(x)
                gv = R.matmul(y, lv)
                R.output(gv)
            return gv

    After = relax.transform.FuseTransposeMatmul()(Before)
    tvm.ir.assert_structural_equal(After, Before)


if __name__ == "__main__":
    tvm.testing.main()

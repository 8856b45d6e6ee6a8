import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_reorder_take_after_matmul_keeps_out_dtype():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((1, 2), "uint8"), w: R.Tensor((2, 3), "uint8"),
                 idx: R.Tensor((2,), "int64")) -> R.Tensor((1, 2), "int32"):
            with R.dataflow():
                lv = R.take(w, idx, axis=1)
                gv = R.matmul(x, lv, out_dtype="int32")
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((1, 2), "uint8"), w: R.Tensor((2, 3), "uint8"),
                 idx: R.Tensor((2,), "int64")) -> R.Tensor((1, 2), "int32"):
            with R.dataflow():
                lv = R.matmul(x, w, out_dtype="int32")
                gv = R.take(lv, idx, axis=1)
                R.output(gv)
            return gv

    After = relax.transform.ReorderTakeAfterMatmul()(Before)
    tvm.ir.assert_structural_equal(After, Expected)


if __name__ == "__main__":
    tvm.testing.main()

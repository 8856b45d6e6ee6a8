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


def test_reorder_take_after_matmul_keeps_distinct_out_dtypes_of_shared_operands():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 1), "float16"), w: R.Tensor((1, 3), "float16"),
                 idx: R.Tensor((2,), "int64")):
            with R.dataflow():
                lv = R.take(w, idx, axis=1)
                lv1 = R.matmul(x, lv, out_dtype="float32")
                lv2 = R.matmul(x, lv)
                gv = (lv1, lv2)
                R.output(gv)
            return gv

    After = relax.transform.ReorderTakeAfterMatmul()(Before)
    assert relax.analysis.well_formed(After) is not False  # 0.27 returns None or raises
    # the float32 and the float16 product stay two values
    outputs = After["main"].body.blocks[-1].bindings[-1].value
    assert not outputs.fields[0].same_as(outputs.fields[1])


if __name__ == "__main__":
    tvm.testing.main()

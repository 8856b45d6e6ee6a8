import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_take_from_1d_table_is_not_reordered():
    """A take from a 1-D table selects along the matmul's reduction axis: it cannot move after it"""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 3), "float32"), w: R.Tensor((3,), "float32"),
                 i: R.Tensor((3,), "int64")) -> R.Tensor((3,), "float32"):
            with R.dataflow():
                lv = R.take(w, i, axis=0)
                gv = R.matmul(x, lv)
                R.output(gv)
            return gv

    After = relax.transform.ReorderTakeAfterMatmul()(Before)
    tvm.ir.assert_structural_equal(After, Before)


if __name__ == "__main__":
    tvm.testing.main()

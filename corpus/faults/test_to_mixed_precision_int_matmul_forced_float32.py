import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_int64_matmul_is_left_alone():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((1, 1), "int64"), w: R.Tensor((1, 1), "int64")) -> R.Tensor((1, 1), "int64"):
            with R.dataflow():
                gv = R.matmul(x, w)
                R.output(gv)
            return gv

    # No float32 tensor to convert: an integer matmul must keep its dtype.
    After = relax.transform.ToMixedPrecision()(Before)
    tvm.ir.assert_structural_equal(After, Before)


if __name__ == "__main__":
    tvm.testing.main()

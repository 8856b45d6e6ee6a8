import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def test_match_cast_of_computed_shape():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Shape(ndim=1):
            n = T.int64()
            with R.dataflow():
                s = R.shape_of(x)
                gv = R.match_cast(s, R.Shape([n]))
                R.output(gv)
            return gv

    # No tensor changes dtype, so the pass leaves the module as it is.
    After = relax.transform.ToMixedPrecision()(Before)
    tvm.ir.assert_structural_equal(After, Before)


if __name__ == "__main__":
    tvm.testing.main()

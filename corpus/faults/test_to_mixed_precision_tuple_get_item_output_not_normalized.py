import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_tuple_get_item_bound_to_dataflow_output():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((1, 2), "float32")) -> R.Tensor((1, 1), "float32"):
            with R.dataflow():
                t = R.split(x, indices_or_sections=2, axis=1)
                gv = t[0]
                R.output(gv)
            return gv

    # No op here runs in float16, so the pass leaves the module as it is.
    After = relax.transform.ToMixedPrecision()(Before)
    tvm.ir.assert_structural_equal(After, Before)


if __name__ == "__main__":
    tvm.testing.main()

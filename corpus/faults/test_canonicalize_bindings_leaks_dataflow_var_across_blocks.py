import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_tuple_getitem_not_unwrapped_to_dataflow_var_of_another_block():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            with R.dataflow():
                lv = R.exp(x)
                gv = (lv, lv)
                R.output(gv)
            y = R.add(x, x)
            with R.dataflow():
                lv1 = gv[0]
                gv1 = R.add(lv1, y)
                R.output(gv1)
            return gv1

    After = relax.transform.CanonicalizeBindings()(Before)
    # `lv` is a DataflowVar of the first block: the second block may not refer to it.
    relax.analysis.well_formed(After)  # raises on the first violation in 0.27


if __name__ == "__main__":
    tvm.testing.main()

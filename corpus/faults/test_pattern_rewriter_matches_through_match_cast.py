import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_rewrite_keeps_match_cast_value():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(("n", "n"), "float32"), a: R.Tensor((2, 2), "float32"),
                 b: R.Tensor((2, 2), "float32")) -> R.Tensor((2, 2), "float32"):
            with R.dataflow():
                y = R.match_cast(x, R.Tensor((2, 2), "float32"))
                lv = R.add(a, b)
                gv = R.matmul(y, lv)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor(("n", "n"), "float32"), a: R.Tensor((2, 2), "float32"),
                 b: R.Tensor((2, 2), "float32")) -> R.Tensor((2, 2), "float32"):
            with R.dataflow():
                y = R.match_cast(x, R.Tensor((2, 2), "float32"))
                lv1 = R.matmul(y, a)
                lv2 = R.matmul(y, b)
                gv = R.add(lv1, lv2)
                R.output(gv)
            return gv

    After = relax.transform.ExpandMatmulOfSum()(Before)
    tvm.ir.assert_structural_equal(After, Expected)


def test_reorder_permute_dims_after_concat_keeps_match_cast_value():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), p: R.Tensor(("n", "m"), "float32")) -> R.Tensor((3, 4), "float32"):
            with R.dataflow():
                y = R.match_cast(p, R.Tensor((2, 3), "float32"))
                lv = R.permute_dims(x)
                lv1 = R.permute_dims(y)
                gv = R.concat((lv, lv1), axis=1)
                R.output(gv)
            return gv

    After = relax.transform.ReorderPermuteDimsAfterConcat()(Before)
    assert relax.analysis.well_formed(After)
    concat = [b.value for b in After["main"].body.blocks[0].bindings if b.value.op.name == "relax.concat"]
    assert len(concat) == 1 and concat[0].ty.shape is not None, concat


def test_remove_redundant_reshape_of_match_cast_object():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Object) -> R.Tensor((2, 4), "float32"):
            with R.dataflow():
                y = R.match_cast(x, R.Tensor((4, 2), "float32"))
                gv = R.reshape(y, R.shape([2, 4]))
                R.output(gv)
            return gv

    After = relax.transform.RemoveRedundantReshape()(Before)
    tvm.ir.assert_structural_equal(After, Before)


if __name__ == "__main__":
    tvm.testing.main()

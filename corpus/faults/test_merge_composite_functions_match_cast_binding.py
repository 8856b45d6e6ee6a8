import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_merge_composite_functions_with_match_cast():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor((3,), "float32"):
            cls = Before
            with R.dataflow():
                lv = R.match_cast(x, R.Tensor((3,), "float32"))
                gv = cls.fused_relax_nn_relu(lv)
                R.output(gv)
            return gv

        @R.function(private=True)
        def fused_relax_nn_relu(p: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            R.func_attr({"Primitive": True, "Composite": "tensorrt.relu"})
            with R.dataflow():
                gv = R.nn.relu(p)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor((3,), "float32"):
            cls = Expected
            with R.dataflow():
                lv = R.match_cast(x, R.Tensor((3,), "float32"))
                gv = cls.fused_relax_nn_relu1_tensorrt(lv)
                R.output(gv)
            return gv

        @R.function
        def fused_relax_nn_relu1_tensorrt(
            x: R.Tensor((3,), "float32")
        ) -> R.Tensor((3,), "float32"):
            R.func_attr({"Codegen": "tensorrt"})

            @R.function
            def gv(p: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
                R.func_attr({"Composite": "tensorrt.relu"})
                with R.dataflow():
                    gv_1 = R.nn.relu(p)
                    R.output(gv_1)
                return gv_1

            gv_1 = gv(x)
            return gv_1

    After = relax.transform.MergeCompositeFunctions()(Before)
    tvm.ir.assert_structural_equal(After, Expected)


if __name__ == "__main__":
    tvm.testing.main()

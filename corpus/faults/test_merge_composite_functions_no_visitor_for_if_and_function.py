import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_merge_composite_functions_with_if():
    @I.ir_module
    class Before:
        @R.function
        def main(c: R.Tensor((), "bool"), x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Before
            with R.dataflow():
                lv = cls.fused_relax_nn_relu(x)
                R.output(lv)
            if c:
                y = lv
            else:
                y = x
            return y

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
        def main(c: R.Tensor((), "bool"), x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Expected
            with R.dataflow():
                lv = cls.fused_relax_nn_relu1_tensorrt(x)
                R.output(lv)
            if c:
                y = lv
            else:
                y = x
            return y

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


def test_merge_composite_functions_with_local_function():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Before

            @R.function
            def f(p: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
                return p

            with R.dataflow():
                lv = cls.fused_relax_nn_relu(x)
                R.output(lv)
            y = f(lv)
            return y

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
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Expected

            @R.function
            def f(p: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
                return p

            with R.dataflow():
                lv = cls.fused_relax_nn_relu1_tensorrt(x)
                R.output(lv)
            y = f(lv)
            return y

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

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_gradient_matmul_with_out_dtype():
    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor((2, 3), "float16"), b: R.Tensor((3, 4), "float16")) -> R.Tensor((), "float32"):
            with R.dataflow():
                lv = R.matmul(a, b, out_dtype="float32")
                gv = R.sum(lv)
                R.output(gv)
            return gv

    After = relax.transform.Gradient("main")(Before)
    adjoint = After["main_adjoint"]
    assert [str(t.dtype) for t in adjoint.ret_ty.fields[1].fields] == ["float16", "float16"]
    assert relax.analysis.well_formed(After)


if __name__ == "__main__":
    tvm.testing.main()

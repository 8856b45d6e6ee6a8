import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_specialize_keeps_buffer_alignment():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                lv = R.median(x, axis=[0], keepdims=False)
                gv = lv[0]
                R.output(gv)
            return gv

    # median legalizes through topi's argsort, whose buffers declare data_alignment=8.
    mod = relax.transform.LegalizeOps()(Before)
    After = relax.transform.SpecializePrimFuncBasedOnCallSite()(mod)
    relax.analysis.well_formed(After)  # raises on the first violation in 0.27


if __name__ == "__main__":
    tvm.testing.main()

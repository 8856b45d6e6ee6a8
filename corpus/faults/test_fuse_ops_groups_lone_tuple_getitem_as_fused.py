import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_fuse_nested_tuple_getitem_without_ops():
    @I.ir_module
    class Before:
        @R.function
        def main(t: R.Tuple(R.Tuple(R.Tensor((2,), "float32")))) -> R.Tensor((2,), "float32"):
            with R.dataflow():
                lv = t[0]
                gv = lv[0]
                R.output(gv)
            return gv

    seq = tvm.transform.Sequential(
        [
            relax.transform.LegalizeOps(),
            relax.transform.AnnotateTIROpPattern(),
            relax.transform.FuseOps(),
            relax.transform.FuseTIR(),
        ]
    )
    After = seq(Before)
    relax.analysis.well_formed(After)  # raises on the first violation in 0.27
    # No operator to fuse: no primitive function may remain.
    assert not any(
        isinstance(func, relax.Function) and func.attrs is not None and "Primitive" in func.attrs
        for _, func in After.functions_items()
    )


if __name__ == "__main__":
    tvm.testing.main()

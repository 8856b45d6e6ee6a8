import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def test_fused_group_after_match_cast_defining_symbolic_var():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((), "float32"), t: R.Tensor((1,), "int64")) -> R.Tensor(dtype="float32", ndim=1):
            n = T.int64()
            with R.dataflow():
                lv = R.negative(x)
                s = R.match_cast(R.tensor_to_shape(t), R.Shape([n]))
                gv = R.reshape(lv, R.shape([n]))
                R.output(gv)
            return gv

    mod = relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(Before))
    After = relax.transform.FuseOps()(mod)
    # negative and reshape are fused; the group uses `n`, so it must follow the match_cast.
    relax.analysis.well_formed(After)  # raises on the first violation in 0.27


if __name__ == "__main__":
    tvm.testing.main()

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def test_fuse_tir_shape_arg_with_known_constant_value():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((), "float32")) -> R.Tensor(dtype="float32", ndim=1):
            n = T.int64()
            with R.dataflow():
                s = R.match_cast(R.shape([1]), R.Shape([n]))
                lv = R.reshape(x, R.shape([n]))
                gv = R.exp(lv)
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
    # n is known to be 1 after the match_cast: the fused call may pass the constant.
    After = seq(Before)
    relax.analysis.well_formed(After)  # raises on the first violation in 0.27


if __name__ == "__main__":
    tvm.testing.main()

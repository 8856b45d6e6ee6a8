import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_storage_allocated_in_if_branch_not_reused_after_if():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((2, 3), "float32"):
            if c:
                y: R.Tensor((2, 3), "float32") = x
            else:
                t = R.negative(x)
                y: R.Tensor((2, 3), "float32") = R.exp(t)
            z = R.add(y, x)
            w = R.multiply(z, z)
            return w

    mod = tvm.transform.Sequential(
        [
            relax.transform.LegalizeOps(),
            relax.transform.ToNonDataflow(),
            relax.transform.RemovePurityChecking(),
            relax.transform.CallTIRRewrite(),
        ]
    )(Before)
    After = relax.transform.StaticPlanBlockMemory()(mod)
    # The storage of `t` is allocated inside the else branch: `z` must not reuse it after the If.
    relax.analysis.well_formed(After)  # raises on the first violation in 0.27


if __name__ == "__main__":
    tvm.testing.main()

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def test_specialized_prim_func_has_its_own_symbolic_vars():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            with R.dataflow():
                gv = R.exp(x)
                R.output(gv)
            return gv

    mod = relax.transform.LegalizeOps()(Before)
    After = relax.transform.SpecializePrimFuncBasedOnCallSite()(mod)
    n_main = After["main"].params[0].ty.shape.values[0]
    n_kernel = After["tir_exp"].params[0].ty.shape[0]
    # The kernel defines its own n (as RenewDefs gives FuseTIR's and ComputePrimValue's kernels).
    assert not n_kernel.same_as(n_main)
    tvm.ir.assert_structural_equal(After, tvm.script.from_source(After.script()))


if __name__ == "__main__":
    tvm.testing.main()

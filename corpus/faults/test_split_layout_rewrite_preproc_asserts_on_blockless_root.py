import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_split_layout_rewrite_preproc_without_compute_block():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32"), u: R.Tensor((1,), "float32")) -> R.Tensor((2,), "float32"):
            with R.dataflow():
                gv = R.scatter_elements(x, R.const(np.array([0], "int64")), u, axis=0)
                R.output(gv)
            return gv

    # The legalized scatter_elements kernel has a root block holding loops and no block:
    # nothing to split, so the pass leaves the module unchanged.
    mod = relax.transform.LegalizeOps()(Before)
    After = relax.transform.SplitLayoutRewritePreproc()(mod)
    tvm.ir.assert_structural_equal(After, mod)


if __name__ == "__main__":
    tvm.testing.main()

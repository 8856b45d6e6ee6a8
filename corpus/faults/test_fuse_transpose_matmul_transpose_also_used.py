import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_transpose_also_returned():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), w: R.Tensor((4, 3), "float32")):
            with R.dataflow():
                wt = R.permute_dims(w)
                lv = R.matmul(x, wt)
                gv = (lv, wt)
                R.output(gv)
            return gv

    After = relax.transform.FuseTransposeMatmul()(Before)
    assert relax.analysis.well_formed(After)
    x = np.random.rand(2, 3).astype("float32")
    w = np.random.rand(4, 3).astype("float32")
    vm = relax.VirtualMachine(tvm.compile(After, "llvm"), tvm.cpu())
    out = vm["main"](tvm.runtime.tensor(x), tvm.runtime.tensor(w))
    tvm.testing.assert_allclose(out[0].numpy(), x @ w.T, rtol=1e-5)
    tvm.testing.assert_allclose(out[1].numpy(), w.T)


if __name__ == "__main__":
    tvm.testing.main()

import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_inner_out_dtype_is_kept():
    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor((4, 1), "float32"), b: R.Tensor((1, 4), "float32"),
                 c: R.Tensor((4, 1), "float16")) -> R.Tensor((4, 1), "float16"):
            with R.dataflow():
                lv = R.matmul(a, b, out_dtype="float16")
                gv = R.matmul(lv, c)
                R.output(gv)
            return gv

    After = relax.transform.AdjustMatmulOrder()(Before)
    assert relax.analysis.well_formed(After)
    a = np.random.rand(4, 1).astype("float32")
    b = np.random.rand(1, 4).astype("float32")
    c = np.random.rand(4, 1).astype("float16")
    vm = relax.VirtualMachine(tvm.compile(After, "llvm"), tvm.cpu())
    out = vm["main"](*[tvm.runtime.tensor(v) for v in (a, b, c)]).numpy()
    assert out.dtype == "float16"
    tvm.testing.assert_allclose(out, (a @ b).astype("float16") @ c, rtol=1e-2, atol=1e-2)


if __name__ == "__main__":
    tvm.testing.main()

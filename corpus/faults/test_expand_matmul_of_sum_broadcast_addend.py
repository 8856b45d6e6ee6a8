import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_addend_broadcast_on_reduction_axis():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 2), "float32"), a: R.Tensor((2, 2), "float32"),
                 b: R.Tensor((1, 2), "float32")) -> R.Tensor((2, 2), "float32"):
            with R.dataflow():
                lv = R.add(a, b)
                gv = R.matmul(x, lv)
                R.output(gv)
            return gv

    After = relax.transform.ExpandMatmulOfSum()(Before)
    assert relax.analysis.well_formed(After)
    x, a, b = (np.random.rand(*s).astype("float32") for s in [(2, 2), (2, 2), (1, 2)])
    vm = relax.VirtualMachine(tvm.compile(After, "llvm"), tvm.cpu())
    out = vm["main"](*[tvm.runtime.tensor(v) for v in (x, a, b)]).numpy()
    tvm.testing.assert_allclose(out, x @ (a + b), rtol=1e-5)


if __name__ == "__main__":
    tvm.testing.main()

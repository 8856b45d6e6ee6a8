import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_same_value_on_both_sides():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 2), "float32"):
            with R.dataflow():
                lv = R.permute_dims(x)
                gv = R.matmul(x, lv)
                R.output(gv)
            return gv

    After = relax.transform.FuseTransposeMatmul()(Before)
    assert relax.analysis.well_formed(After)
    x = np.random.rand(2, 3).astype("float32")
    vm = relax.VirtualMachine(tvm.compile(After, "llvm"), tvm.cpu())
    tvm.testing.assert_allclose(vm["main"](tvm.runtime.tensor(x)).numpy(), x @ x.T, rtol=1e-5)


if __name__ == "__main__":
    tvm.testing.main()

import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_outer_to_mixed_precision():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tensor((3, 4), "float32"):
            with R.dataflow():
                gv = R.outer(x, y)
                R.output(gv)
            return gv

    After = relax.transform.ToMixedPrecision()(Before)
    assert relax.analysis.well_formed(After)
    x = np.array([0.5, 1.0, 2.0], "float32")
    y = np.array([1.0, 2.0, 3.0, 4.0], "float32")
    vm = relax.VirtualMachine(tvm.compile(After, target="llvm"), tvm.cpu())
    out = vm["main"](tvm.runtime.tensor(x), tvm.runtime.tensor(y)).numpy()
    tvm.testing.assert_allclose(out.astype("float32"), np.outer(x, y), rtol=1e-3)


if __name__ == "__main__":
    tvm.testing.main()

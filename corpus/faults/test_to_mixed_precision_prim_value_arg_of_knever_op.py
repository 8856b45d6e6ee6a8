import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def test_clip_prim_value_bounds_after_float16_op():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((1, 4), "float32"), w: R.Tensor((4, 4), "float32")) -> R.Tensor((1, 4), "float32"):
            with R.dataflow():
                lv = R.matmul(x, w)
                gv = R.clip(lv, R.prim_value(T.float32(0)), R.prim_value(T.float32(1)))
                R.output(gv)
            return gv

    After = relax.transform.ToMixedPrecision()(Before)
    assert relax.analysis.well_formed(After)
    x = np.array([[0.5, -1.0, 0.25, 2.0]], "float32")
    w = np.eye(4, dtype="float32")
    vm = relax.VirtualMachine(tvm.compile(After, target="llvm"), tvm.cpu())
    out = vm["main"](tvm.runtime.tensor(x), tvm.runtime.tensor(w)).numpy()
    tvm.testing.assert_allclose(out, np.clip(x @ w, 0, 1), rtol=1e-3)


if __name__ == "__main__":
    tvm.testing.main()

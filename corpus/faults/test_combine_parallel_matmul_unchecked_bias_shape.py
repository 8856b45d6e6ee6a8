import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_bias_wider_than_its_branch_keeps_results():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), w1: R.Tensor((3, 1), "float32"), w2: R.Tensor((3, 1), "float32"),
                 b1: R.Tensor((1,), "float32"), b2: R.Tensor((3,), "float32")):
            with R.dataflow():
                lv = R.matmul(x, w1)
                lv1 = R.add(lv, b1)
                lv2 = R.matmul(x, w2)
                lv3 = R.add(lv2, b2)
                gv = (lv1, lv3)
                R.output(gv)
            return gv

    After = relax.transform.CombineParallelMatmul()(Before)
    assert relax.analysis.well_formed(After)
    args = [np.random.rand(*[int(d) for d in p.ty.shape]).astype("float32") for p in Before["main"].params]
    x, w1, w2, b1, b2 = args
    vm = relax.VirtualMachine(tvm.compile(After, "llvm"), tvm.cpu())
    out = vm["main"](*[tvm.runtime.tensor(a) for a in args])
    tvm.testing.assert_allclose(out[0].numpy(), x @ w1 + b1, rtol=1e-5)
    tvm.testing.assert_allclose(out[1].numpy(), x @ w2 + b2, rtol=1e-5)


if __name__ == "__main__":
    tvm.testing.main()

import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_fold_constant_into_start_checkpoint():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            with R.dataflow():
                c = R.const(np.ones(2, "float32"))
                s = R.grad.start_checkpoint(c)
                y = R.add(s, x)
                R.output(y)
            return y

    relax.transform.FoldConstant()(Before)


def test_bind_params_into_start_checkpoint():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32"), w: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            with R.dataflow():
                s = R.grad.start_checkpoint(w)
                y = R.add(s, x)
                e = R.grad.end_checkpoint(y)
                R.output(e)
            return e

    relax.transform.BindParams("main", {"w": np.ones(2, "float32")})(Before)


if __name__ == "__main__":
    tvm.testing.main()

"""passfuzz pass-error-c6d2a0f2e0eb: pass-error after ExpandMatmulOfSum on llvm.

error at pass:ExpandMatmulOfSum: ValueError: PermuteDims expects the number of input axes to equal the ndim of the input tensor. However, the tensor ndim is 1 while the given number of axes is 2
Needs tvm and numpy, and ml_dtypes.
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import ml_dtypes
import numpy as np
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((4, 2, 4), dtype="bfloat16"), x1: R.Tensor((2, 4), dtype="bfloat16")) -> R.Tensor((4, 2, 2), dtype="bfloat16"):
        with R.dataflow():
            lv: R.Tensor((2, 4), dtype="bfloat16") = R.add(R.const(np.array([0.0, 0.0, 0.0, 0.0], dtype=ml_dtypes.bfloat16), 'bfloat16'), x1)
            lv1: R.Tensor((4, 2), dtype="bfloat16") = R.permute_dims(lv, axes=[1, 0])
            lv2: R.Tensor((4, 2, 2), dtype="bfloat16") = R.matmul(x0, lv1, out_dtype=None)
            gv: R.Tensor((4, 2, 2), dtype="bfloat16") = lv2
            R.output(gv)
        return gv


try:
    mod = relax.transform.ExpandMatmulOfSum()(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): ExpandMatmulOfSum raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: ExpandMatmulOfSum no longer raises")

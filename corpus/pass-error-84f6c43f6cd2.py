"""passfuzz pass-error-84f6c43f6cd2: pass-error after ReorderTakeAfterMatmul on llvm.

error at pass:ReorderTakeAfterMatmul: ValueError: Matmul requires the reduction length of the operands to be equal.  However, the LHS lv1 has shape R.shape([4]), while the RHS lv2 has shape R.shape([2]).  The reduction dimensions of T.int64(4) and T.int64(2) are not equal.
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import numpy as np
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(w0: R.Tensor((3,), dtype="float32"), w1: R.Tensor((3, 2), dtype="float32")) -> R.Tensor((), dtype="float32"):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            lv: R.Tensor((3, 4), dtype="float32") = R.take(w1, R.const(np.array([0, 0, 0, 0], dtype='int64'), 'int64'), axis=1, mode="fast")
            lv1: R.Tensor((4,), dtype="float32") = R.matmul(w0, lv, out_dtype=None)
            lv2: R.Tensor((), dtype="float32") = R.matmul(lv1, lv1, out_dtype=None)
            gv: R.Tensor((), dtype="float32") = lv2
            R.output(gv)
        return gv


try:
    mod = relax.transform.ReorderTakeAfterMatmul()(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): ReorderTakeAfterMatmul raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: ReorderTakeAfterMatmul no longer raises")

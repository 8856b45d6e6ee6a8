"""passfuzz ill-formed-b1c17adc241b: ill-formed after ReorderTakeAfterMatmul on llvm.

error at well-formed:ReorderTakeAfterMatmul: IllFormed: Expression of type R.Tensor((4, 3, 2), dtype="uint8") cannot be assigned to a variable of type R.Tensor((4, 3, 2), dtype="int32")
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
    def main(x0: R.Tensor((4, 3, 2), dtype="uint8"), w1: R.Tensor((2, 1), dtype="uint8")) -> R.Tuple(R.Tensor((4, 3, 2), dtype="int32"), R.Tensor((4, 3, 1), dtype="uint8")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((2, 2), dtype="uint8") = R.take(w1, R.const(np.array([0, 0], dtype='int64'), 'int64'), axis=1, mode="fast")
            lv1: R.Tensor((4, 3, 2), dtype="int32") = R.matmul(x0, lv, out_dtype="int32")
            lv2: R.Tensor((4, 3, 1), dtype="uint8") = R.ones(R.shape([4, 3, 1]), dtype="uint8")
            gv: R.Tuple(R.Tensor((4, 3, 2), dtype="int32"), R.Tensor((4, 3, 1), dtype="uint8")) = lv1, lv2
            R.output(gv)
        return gv


mod = relax.transform.ReorderTakeAfterMatmul()(Module)
try:
    relax.analysis.well_formed(mod)  # raises on the first violation
except Exception as error:
    print("BUG REPRODUCES (ill-formed): the module is ill-formed after ReorderTakeAfterMatmul:", *str(error).strip().splitlines()[-1:])
    sys.exit(1)
print("fixed: the module is well formed after ReorderTakeAfterMatmul")

"""passfuzz ill-formed-e68fe575978b: ill-formed after AdjustMatmulOrder on llvm.

error at well-formed:AdjustMatmulOrder: IllFormed: Expression of type R.Tensor((n0, 4), dtype="float32") cannot be assigned to a variable of type R.Tensor((1, 4), dtype="float32")
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
    def main(x3: R.Tensor((1, 4), dtype="float32"), w1: R.Tensor(("n0", 4), dtype="float32"), w2: R.Tensor((4, 1), dtype="float32")) -> R.Tuple(R.Tensor((2, 2, 1), dtype="float32"), R.Tensor((1, 4), dtype="float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((4, 4), dtype="float32") = R.matmul(w2, x3, out_dtype=None)
            lv1: R.Tensor((1, 4), dtype="float32") = R.match_cast(w1, R.Tensor((1, 4), dtype="float32"))
            lv2: R.Tensor((1, 4), dtype="float32") = R.matmul(lv1, lv, out_dtype=None)
            gv: R.Tuple(R.Tensor((2, 2, 1), dtype="float32"), R.Tensor((1, 4), dtype="float32")) = R.const(np.array([[[0.0], [0.0]], [[0.0], [0.0]]], dtype='float32'), 'float32'), lv2
            R.output(gv)
        return gv


mod = relax.transform.AdjustMatmulOrder()(Module)
try:
    relax.analysis.well_formed(mod)  # raises on the first violation
except Exception as error:
    print("BUG REPRODUCES (ill-formed): the module is ill-formed after AdjustMatmulOrder:", *str(error).strip().splitlines()[-1:])
    sys.exit(1)
print("fixed: the module is well formed after AdjustMatmulOrder")

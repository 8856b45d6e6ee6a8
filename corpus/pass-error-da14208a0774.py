"""passfuzz pass-error-da14208a0774: pass-error after CombineParallelMatmul on llvm.

error at pass:CombineParallelMatmul: TypeError: Cannot treat type `ir.GenericConst` as type `ir.Var`
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
    def main(x0: R.Tensor((1, 1), dtype="float32")) -> R.Tensor((1, 1), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((1, 1), dtype="float32") = R.matmul(R.const(np.array([[0.0]], dtype='float32'), 'float32'), x0, out_dtype=None)
            gv: R.Tensor((1, 1), dtype="float32") = lv
            R.output(gv)
        return gv


try:
    mod = relax.transform.CombineParallelMatmul()(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): CombineParallelMatmul raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: CombineParallelMatmul no longer raises")

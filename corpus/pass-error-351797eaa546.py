"""passfuzz pass-error-351797eaa546: pass-error after FoldConstant on llvm.

error at pass:FoldConstant: TypeError: The argument of relax.op.grad.start_checkpoint should be a Var.
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
    def main() -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 3), dtype="float32") = R.const(np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], dtype='float32'), 'float32')
            lv1: R.Tensor((2, 3), dtype="float32") = R.grad.start_checkpoint(lv)
            gv: R.Tensor((2, 3), dtype="float32") = lv1
            R.output(gv)
        return gv


try:
    mod = relax.transform.FoldConstant()(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): FoldConstant raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: FoldConstant no longer raises")

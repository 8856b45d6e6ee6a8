"""passfuzz pass-error-142bc3ad05c5: pass-error after LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR, SplitLayoutRewritePreproc on llvm.

error at pass:SplitLayoutRewritePreproc: InternalError: Check failed: (current_subtree_ == -1) is false: There should be a compute block if there is only one subtree under the root.
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
    def main(x0: R.Tensor((2,), dtype="float32"), x1: R.Tensor((1,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2,), dtype="float32") = R.scatter_elements(x0, R.const(np.array([0], dtype='int64'), 'int64'), x1, axis=0, reduction="update")
            gv: R.Tensor((2,), dtype="float32") = lv
            R.output(gv)
        return gv


mod = relax.transform.LegalizeOps()(Module)
mod = relax.transform.AnnotateTIROpPattern()(mod)
mod = relax.transform.FuseOps()(mod)
mod = relax.transform.FuseTIR()(mod)
try:
    mod = relax.transform.SplitLayoutRewritePreproc()(mod)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): SplitLayoutRewritePreproc raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: SplitLayoutRewritePreproc no longer raises")

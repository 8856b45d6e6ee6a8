"""passfuzz pass-error-ed8cfa35024a: pass-error after Gradient('main') on llvm.

error at pass:Gradient('main'): InternalError: Check failed: (partials.size() == call->args.size()) is false: partials number != inputs number
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((1, 1), dtype="float64")) -> R.Tensor((), dtype="float64"):
        with R.dataflow():
            lv: R.Tensor((1, 1), dtype="float64") = R.triu(x0, 0)
            lv1: R.Tensor((), dtype="float64") = R.sum(lv, axis=None, keepdims=False)
            gv: R.Tensor((), dtype="float64") = lv1
            R.output(gv)
        return gv


try:
    mod = relax.transform.Gradient('main')(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): Gradient('main') raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: Gradient('main') no longer raises")

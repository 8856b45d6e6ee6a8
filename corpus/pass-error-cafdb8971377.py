"""passfuzz pass-error-cafdb8971377: pass-error after DataflowUseInplaceCalls on llvm.

error at pass:DataflowUseInplaceCalls: ValueError: In-place index 0 is out of range (must be between -1 and 0, inclusive, but is 1)
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # again: import tvm wrapped it


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tensor((2, 3, 4), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 3, 4), dtype="float32") = R.subtract(R.const(0.0, "float32"), x0)
            lv1: R.Tensor((2, 3, 4), dtype="float32") = R.multiply(R.const(0.0, "float32"), lv)
            gv: R.Tensor((2, 3, 4), dtype="float32") = lv1
            R.output(gv)
        return gv


try:
    mod = relax.transform.DataflowUseInplaceCalls()(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): DataflowUseInplaceCalls raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: DataflowUseInplaceCalls no longer raises")

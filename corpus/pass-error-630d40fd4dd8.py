"""passfuzz pass-error-630d40fd4dd8: pass-error after LazyGetInput, RemoveRedundantReshape on llvm.

error at pass:RemoveRedundantReshape: AttributeError: 'AnyType' object has no attribute 'shape'
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
    def main(x0: R.Tensor((4, 2), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 4), dtype="float32") = R.reshape(x0, R.shape([2, 4]))
            gv: R.Tensor((2, 4), dtype="float32") = lv
            R.output(gv)
        return gv


mod = relax.transform.LazyGetInput()(Module)
try:
    mod = relax.transform.RemoveRedundantReshape()(mod)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): RemoveRedundantReshape raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: RemoveRedundantReshape no longer raises")

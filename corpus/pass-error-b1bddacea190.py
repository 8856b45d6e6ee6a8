"""passfuzz pass-error-b1bddacea190: pass-error after LiftTransformParams(shared_transform=True) on llvm.

error at pass:LiftTransformParams(shared_transform=True): InternalError: Check failed: (functions.size()) is false:
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
    def main(x0: R.Tensor((), dtype="float32")) -> R.Tensor((), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((), dtype="float32") = x0
            R.output(gv)
        return gv


try:
    mod = relax.transform.LiftTransformParams(shared_transform=True)(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): LiftTransformParams(shared_transform=True) raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: LiftTransformParams(shared_transform=True) no longer raises")

"""passfuzz pass-error-b1bddacea190: pass-error after LiftTransformParams(shared_transform=True) on llvm.

error at pass:LiftTransformParams(shared_transform=True): InternalError: Check failed: (functions.size()) is false:
Exits 1 while the bug reproduces, 0 once it is fixed.
"""
import sys

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

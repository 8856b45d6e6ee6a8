"""passfuzz ill-formed-4f8b22a7f2bd: ill-formed after LiftTransformParams(shared_transform=True) on llvm.

error at well-formed:LiftTransformParams(shared_transform=True): IllFormed: Var gv is not defined.
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
    def main(w0: R.Tensor((2, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            gv: R.Tensor((2, 4), dtype="float32") = w0
            R.output(gv)
        return gv


mod = relax.transform.LiftTransformParams(shared_transform=True)(Module)
try:
    relax.analysis.well_formed(mod)  # raises on the first violation
except Exception as error:
    print("BUG REPRODUCES (ill-formed): the module is ill-formed after LiftTransformParams(shared_transform=True):", *str(error).strip().splitlines()[-1:])
    sys.exit(1)
print("fixed: the module is well formed after LiftTransformParams(shared_transform=True)")

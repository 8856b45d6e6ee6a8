"""passfuzz ill-formed-f15b217a4d6d: ill-formed after LiftTransformParams, ToNonDataflow, RemovePurityChecking, LazyTransformParams on llvm.

error at well-formed:LazyTransformParams: IllFormed: Var model_params is not defined.
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
    def main(x0: R.Tensor((1,), dtype="float32"), w1: R.Tensor((1,), dtype="float32")) -> R.Tensor((1,), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((1,), dtype="float32") = R.add(x0, w1)
            gv: R.Tensor((1,), dtype="float32") = lv
            R.output(gv)
        return gv


mod = relax.transform.LiftTransformParams()(Module)
mod = relax.transform.ToNonDataflow()(mod)
mod = relax.transform.RemovePurityChecking()(mod)
mod = relax.transform.LazyTransformParams()(mod)
try:
    relax.analysis.well_formed(mod)  # raises on the first violation
except Exception as error:
    print("BUG REPRODUCES (ill-formed): the module is ill-formed after LazyTransformParams:", *str(error).strip().splitlines()[-1:])
    sys.exit(1)
print("fixed: the module is well formed after LazyTransformParams")

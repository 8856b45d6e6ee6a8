"""passfuzz pass-error-afd5f289b05e: pass-error after LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR on llvm.

error at pass:FuseTIR: InternalError: Check failed: (func_info_.global_name != "fused") is false:
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
    def main(t0: R.Tuple(R.Tuple(R.Tensor((1, 1, 1), dtype="float32")))) -> R.Tensor((1, 1, 1), dtype="float32"):
        with R.dataflow():
            lv: R.Tuple(R.Tensor((1, 1, 1), dtype="float32")) = t0[0]
            gv: R.Tensor((1, 1, 1), dtype="float32") = lv[0]
            R.output(gv)
        return gv


mod = relax.transform.LegalizeOps()(Module)
mod = relax.transform.AnnotateTIROpPattern()(mod)
mod = relax.transform.FuseOps()(mod)
try:
    mod = relax.transform.FuseTIR()(mod)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): FuseTIR raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: FuseTIR no longer raises")

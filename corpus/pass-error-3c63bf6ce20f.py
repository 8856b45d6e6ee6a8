"""passfuzz pass-error-3c63bf6ce20f: pass-error after LegalizeOps, SpecializePrimFuncBasedOnCallSite on llvm.

error at pass:SpecializePrimFuncBasedOnCallSite: ValueError: Check failed: specific_buf->data_alignment == buf_to_specialize->data_alignment (64 vs. 8) : The buffer data_alignment mismatched8 vs. 64.
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
    def main(x0: R.Tensor((1,), dtype="float32")) -> R.Tensor((), dtype="float32"):
        with R.dataflow():
            lv: R.Tuple(R.Tensor((), dtype="float32"), R.Tensor((), dtype="int64")) = R.median(x0, axis=[0], keepdims=False)
            lv1: R.Tensor((), dtype="float32") = lv[0]
            gv: R.Tensor((), dtype="float32") = lv1
            R.output(gv)
        return gv


mod = relax.transform.LegalizeOps()(Module)
try:
    mod = relax.transform.SpecializePrimFuncBasedOnCallSite()(mod)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): SpecializePrimFuncBasedOnCallSite raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: SpecializePrimFuncBasedOnCallSite no longer raises")

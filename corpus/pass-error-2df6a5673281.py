"""passfuzz pass-error-2df6a5673281: pass-error after AdjustMatmulOrder on llvm.

error at pass:AdjustMatmulOrder: TypeError: Binary operators must have the same datatype for both operands.  However, R.matmul(x1, x3, out_dtype=None) uses datatype T.float32 on the LHS (Type of R.Tensor((4, 2, 3), dtype="float32")), and datatype T.float16 on the RHS (Type of R.Tensor((3, 4), dtype="float16")).
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
    def main(x0: R.Tensor((4, 3, 2), dtype="float32"), x1: R.Tensor((4, 2, 3), dtype="float32"), x3: R.Tensor((3, 4), dtype="float16")) -> R.Tensor((4, 3, 4), dtype="float16"):
        with R.dataflow():
            lv: R.Tensor((4, 3, 3), dtype="float16") = R.matmul(x0, x1, out_dtype="float16")
            lv1: R.Tensor((4, 3, 4), dtype="float16") = R.matmul(lv, x3, out_dtype=None)
            gv: R.Tensor((4, 3, 4), dtype="float16") = lv1
            R.output(gv)
        return gv


try:
    mod = relax.transform.AdjustMatmulOrder()(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): AdjustMatmulOrder raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: AdjustMatmulOrder no longer raises")

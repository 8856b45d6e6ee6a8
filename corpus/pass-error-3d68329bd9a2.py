"""passfuzz pass-error-3d68329bd9a2: pass-error after FuseTransposeMatmul on llvm.

error at pass:FuseTransposeMatmul: IndexError: list index out of range
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
    def main(x0: R.Tensor((2,), dtype="float32")) -> R.Tensor((), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2,), dtype="float32") = R.permute_dims(x0, axes=None)
            lv1: R.Tensor((), dtype="float32") = R.matmul(lv, lv, out_dtype=None)
            gv: R.Tensor((), dtype="float32") = lv1
            R.output(gv)
        return gv


try:
    mod = relax.transform.FuseTransposeMatmul()(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): FuseTransposeMatmul raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: FuseTransposeMatmul no longer raises")

"""passfuzz pass-error-25e5716d1b90: pass-error after FuseTransposeMatmul on llvm.

error at pass:FuseTransposeMatmul: AttributeError: 'TupleType' object has no attribute 'dtype'
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
    def main(x0: R.Tensor((1, 1, 1), dtype="float32")) -> R.Tuple(R.Tensor((1, 1, 1), dtype="float32"), R.Tensor((1, 1, 1), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((1, 1, 1), dtype="float32") = R.permute_dims(x0, axes=[0, 2, 1])
            lv1: R.Tensor((1, 1, 1), dtype="float32") = R.matmul(x0, lv, out_dtype=None)
            gv: R.Tuple(R.Tensor((1, 1, 1), dtype="float32"), R.Tensor((1, 1, 1), dtype="float32")) = lv1, lv
            R.output(gv)
        return gv


try:
    mod = relax.transform.FuseTransposeMatmul()(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): FuseTransposeMatmul raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: FuseTransposeMatmul no longer raises")

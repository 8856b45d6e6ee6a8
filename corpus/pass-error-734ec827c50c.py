"""passfuzz pass-error-734ec827c50c: pass-error after CombineParallelMatmul on llvm.

error at pass:CombineParallelMatmul: IndexError: Index 1 out of bounds 1
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
    def main(x0: R.Tensor((1, 1), dtype="float32"), x1: R.Tensor((1,), dtype="float32"), w3: R.Tensor((1,), dtype="float32")) -> R.Tuple(R.Tensor((1,), dtype="float32"), R.Tensor((1,), dtype="float32")):
        R.func_attr({"num_input": 2})
        with R.dataflow():
            lv: R.Tensor((1,), dtype="float32") = R.matmul(x0, x1, out_dtype=None)
            lv1: R.Tensor((1,), dtype="float32") = R.matmul(x0, w3, out_dtype=None)
            gv: R.Tuple(R.Tensor((1,), dtype="float32"), R.Tensor((1,), dtype="float32")) = lv, lv1
            R.output(gv)
        return gv


try:
    mod = relax.transform.CombineParallelMatmul()(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): CombineParallelMatmul raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: CombineParallelMatmul no longer raises")

"""passfuzz pass-error-ad0d8c7bd642: pass-error after ReorderTakeAfterMatmul on llvm.

error at pass:ReorderTakeAfterMatmul: ValueError: In ir.Op(span=None, ty=ir.Type(span=None), name="relax.take", description="", arguments=(ir.ArgumentInfo(name="x", type_info="Tensor", description="The source tensor."), ir.ArgumentInfo(name="indices", type_info="Tensor", description="The indices of the values to extract.")), attrs_type_key="relax.attrs.TakeAttrs", num_inputs=2, support_level=10), the input axis -1 is out of range. The input tensor has 0 dimensions, so axis should be in range [0, 0).
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
    def main(x0: R.Tensor((3,), dtype="float32"), x1: R.Tensor((3,), dtype="int64")) -> R.Tensor((), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((3,), dtype="float32") = R.take(x0, x1, axis=0, mode="clip")
            lv1: R.Tensor((), dtype="float32") = R.matmul(lv, lv, out_dtype=None)
            gv: R.Tensor((), dtype="float32") = lv1
            R.output(gv)
        return gv


try:
    mod = relax.transform.ReorderTakeAfterMatmul()(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): ReorderTakeAfterMatmul raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: ReorderTakeAfterMatmul no longer raises")

"""passfuzz pass-error-332dd46b143e: pass-error after CombineParallelMatmul on llvm.

error at pass:CombineParallelMatmul: ValueError: In ir.Op(span=None, ty=ir.Type(span=None), name="relax.split", description="", arguments=(ir.ArgumentInfo(name="x", type_info="Tensor", description="The input tensor."),), attrs_type_key="relax.attrs.SplitAttrs", num_inputs=1, support_level=10), the input axis 1 is out of range. The input tensor has 1 dimensions, so axis should be in range [-1, 1).
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
    def main(x0: R.Tensor((1,), dtype="float32"), w1: R.Tensor((1, 1), dtype="float32"), w3: R.Tensor((1, 1), dtype="float32")) -> R.Tuple(R.Tensor((1,), dtype="float32"), R.Tensor((1,), dtype="float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((1,), dtype="float32") = R.matmul(x0, w1, out_dtype=None)
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

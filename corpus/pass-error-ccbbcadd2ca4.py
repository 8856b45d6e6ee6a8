"""passfuzz pass-error-ccbbcadd2ca4: pass-error after DecomposeOpsForTraining on llvm.

error at pass:DecomposeOpsForTraining: ValueError: In ir.Op(span=None, ty=ir.Type(span=None), name="relax.multiply", description="", arguments=(ir.ArgumentInfo(name="x1", type_info="Tensor", description="The first input tensor."), ir.ArgumentInfo(name="x2", type_info="Tensor", description="The second input tensor.")), attrs_type_key="", num_inputs=2, support_level=10), the first input shape at dim 2 is T.int64(4) and the second input shape at dim 0 is T.int64(2), which are not broadcastable.
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
    def main(x0: R.Tensor((2,), dtype="float32"), x1: R.Tensor((3, 2, 4), dtype="float32"), w2: R.Tensor((2,), dtype="float32")) -> R.Tensor((3, 2, 4), dtype="float32"):
        R.func_attr({"num_input": 2})
        with R.dataflow():
            lv: R.Tensor((3, 2, 4), dtype="float32") = R.nn.layer_norm(x1, x0, w2, axes=[-2], epsilon=10.0, center=True, scale=True)
            gv: R.Tensor((3, 2, 4), dtype="float32") = lv
            R.output(gv)
        return gv


try:
    mod = relax.transform.DecomposeOpsForTraining()(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): DecomposeOpsForTraining raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: DecomposeOpsForTraining no longer raises")

"""passfuzz pass-error-b30cd4687e98: pass-error after DecomposeOpsForTraining on llvm.

error at pass:DecomposeOpsForTraining: ValueError: ir.Op(span=None, ty=ir.Type(span=None), name="relax.nn.layer_norm", description="", arguments=(ir.ArgumentInfo(name="data", type_info="Tensor", description="Input to which layer_norm will be applied."), ir.ArgumentInfo(name="gamma", type_info="Tensor", description="The gamma scale factor."), ir.ArgumentInfo(name="beta", type_info="Tensor", description="The beta offset factor.")), attrs_type_key="relax.attrs.LayerNormAttrs", num_inputs=3, support_level=10) requires the input gamma, beta, etc., to have size same as the lengths of the data on the given axes. However, there exists (T.int64(3),) and (T.int64(1),) that are unequal.
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import numpy as np
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((3, 1), dtype="float32"), w5: R.Tensor((1,), dtype="float32")) -> R.Tensor((3, 1), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((3, 1), dtype="float32") = R.nn.layer_norm(x0, R.const(np.array([0.0, 0.0, 0.0], dtype='float32'), 'float32'), R.const(np.array([0.0, 0.0, 0.0], dtype='float32'), 'float32'), axes=[-2], epsilon=10.0, center=True, scale=True)
            lv1: R.Tensor((3, 1), dtype="float32") = R.nn.layer_norm(lv, R.const(np.array([0.0], dtype='float32'), 'float32'), w5, axes=[-1], epsilon=10.0, center=True, scale=True)
            gv: R.Tensor((3, 1), dtype="float32") = lv1
            R.output(gv)
        return gv


try:
    mod = relax.transform.DecomposeOpsForTraining()(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): DecomposeOpsForTraining raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: DecomposeOpsForTraining no longer raises")

"""passfuzz pass-error-d6efb6d3d6f9: pass-error after Gradient('main') on llvm.

error at pass:Gradient('main'): ValueError: Conv2dTranspose expects the output padding less than the strides, but the output padding is(3, 0) while the strides are(2, 1)
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
    def main(x0: R.Tensor((1, 1, 3, 2), dtype="float64"), w1: R.Tensor((1, 1, 3, 2), dtype="float64")) -> R.Tensor((), dtype="float64"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((1, 1, 1, 4), dtype="float64") = R.nn.conv2d(x0, w1, strides=[2, 1], padding=[2, 2, 1, 1], dilation=[2, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv1: R.Tensor((), dtype="float64") = R.sum(lv, axis=None, keepdims=False)
            gv: R.Tensor((), dtype="float64") = lv1
            R.output(gv)
        return gv


try:
    mod = relax.transform.Gradient('main')(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): Gradient('main') raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: Gradient('main') no longer raises")

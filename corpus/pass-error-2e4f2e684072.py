"""passfuzz pass-error-2e4f2e684072: pass-error after ToMixedPrecision on llvm.

error at pass:ToMixedPrecision: InternalError: Check failed: (tensor) is false: Expected TensorType, but got T.float64
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import numpy as np
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((1, 1, 2, 3), dtype="float32")) -> R.Tensor((1, 1, 1, 1), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((1, 1, 1, 1), dtype="float32") = R.nn.conv2d(x0, R.const(np.array([[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]], dtype='float32'), 'float32'), strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv1: R.Tensor((1, 1, 1, 1), dtype="float32") = R.clip(lv, T.float64(-0.5), T.float64(2.5))
            gv: R.Tensor((1, 1, 1, 1), dtype="float32") = lv1
            R.output(gv)
        return gv


try:
    mod = relax.transform.ToMixedPrecision()(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): ToMixedPrecision raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: ToMixedPrecision no longer raises")

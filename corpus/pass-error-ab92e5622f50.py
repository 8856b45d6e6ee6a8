"""passfuzz pass-error-ab92e5622f50: pass-error after ToMixedPrecision on llvm.

error at pass:ToMixedPrecision: InternalError: Check failed: (tensor) is false: Expected TensorType, but got R.Shape(ndim=1)
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
    def main(x0: R.Tensor((), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):
        v2_0 = T.int64()
        with R.dataflow():
            lv: R.Shape([1]) = R.shape_of(R.const(np.array([0.0], dtype='float32'), 'float32'))
            lv1: R.Tensor((1,), dtype="int64") = R.shape_to_tensor(lv)
            lv2: R.Shape(ndim=1) = R.tensor_to_shape(lv1)
            lv3: R.Shape([v2_0]) = R.match_cast(lv2, R.Shape([v2_0]))
            lv4: R.Tensor((v2_0,), dtype="float32") = R.reshape(x0, R.shape([v2_0]))
            gv: R.Tensor((v2_0,), dtype="float32") = lv4
            R.output(gv)
        return gv


try:
    mod = relax.transform.ToMixedPrecision()(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): ToMixedPrecision raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: ToMixedPrecision no longer raises")

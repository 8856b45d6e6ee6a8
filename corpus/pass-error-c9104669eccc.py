"""passfuzz pass-error-c9104669eccc: pass-error after ToMixedPrecision on llvm.

error at pass:ToMixedPrecision: InternalError: Check failed: (attr_map.count(op)) is false:
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
    def main(x0: R.Tensor((1,), dtype="float32")) -> R.Tensor((1, 3), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((1, 3), dtype="float32") = R.outer(x0, R.const(np.array([0.0, 0.0, 0.0], dtype='float32'), 'float32'))
            gv: R.Tensor((1, 3), dtype="float32") = lv
            R.output(gv)
        return gv


try:
    mod = relax.transform.ToMixedPrecision()(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): ToMixedPrecision raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: ToMixedPrecision no longer raises")

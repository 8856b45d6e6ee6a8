"""passfuzz pass-error-11105363b71f: pass-error after FuseOpsByPattern(tensorrt, bind_constants=True, annotate_codegen=False), MergeCompositeFunctions on llvm.

error at pass:MergeCompositeFunctions: TypeError: Invalid type: relax.expr.MatchCast
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import numpy as np
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.relax.backend.pattern_registry import get_patterns_with_prefix
import tvm.relax.backend.contrib.tensorrt  # registers the tensorrt patterns


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor(("n0", 2, "n0"), dtype="float32")) -> R.Tensor((3, 2, 3), dtype="bool"):
        with R.dataflow():
            lv: R.Tensor((3, 2, 3), dtype="float32") = R.match_cast(x0, R.Tensor((3, 2, 3), dtype="float32"))
            lv1: R.Tensor((3, 2, 3), dtype="bool") = R.greater_equal(lv, R.const(np.array([[[0.0], [0.0]], [[0.0], [0.0]], [[0.0], [0.0]]], dtype='float32'), 'float32'))
            gv: R.Tensor((3, 2, 3), dtype="bool") = lv1
            R.output(gv)
        return gv


mod = relax.transform.FuseOpsByPattern(get_patterns_with_prefix("tensorrt"), bind_constants=True, annotate_codegen=False)(Module)
try:
    mod = relax.transform.MergeCompositeFunctions()(mod)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): MergeCompositeFunctions raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: MergeCompositeFunctions no longer raises")

"""passfuzz pass-error-1dcae0689252: pass-error after FuseOpsByPattern(tensorrt, bind_constants=True, annotate_codegen=False), MergeCompositeFunctions on llvm.

error at pass:MergeCompositeFunctions: InternalError: Do not have a default for relax.expr.Function
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.relax.backend.pattern_registry import get_patterns_with_prefix
import tvm.relax.backend.contrib.tensorrt  # registers the tensorrt patterns


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        # from tvm.script import relax as R
        
        @R.function
        def gv(p0: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
            return p0

        gv1: R.Tensor((3,), dtype="float32") = gv(x0)
        with R.dataflow():
            gv2: R.Tensor((3,), dtype="float32") = gv1
            R.output(gv2)
        return gv2


mod = relax.transform.FuseOpsByPattern(get_patterns_with_prefix("tensorrt"), bind_constants=True, annotate_codegen=False)(Module)
try:
    mod = relax.transform.MergeCompositeFunctions()(mod)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): MergeCompositeFunctions raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: MergeCompositeFunctions no longer raises")

"""passfuzz pass-error-143505ef8d73: pass-error after FuseOpsByPattern(tensorrt, bind_constants=True, annotate_codegen=False), MergeCompositeFunctions on llvm.

error at pass:MergeCompositeFunctions: InternalError: Do not have a default for relax.expr.If
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.relax.backend.pattern_registry import get_patterns_with_prefix
import tvm.relax.backend.contrib.tensorrt  # registers the tensorrt patterns


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((), dtype="float32"), x1: R.Tensor((3, 3), dtype="float32"), x2: R.Tensor((), dtype="bool")) -> R.Tensor((3, 3), dtype="float32"):
        if x2:
            gv: R.Tensor((3, 3), dtype="float32") = x1
        else:
            gv: R.Tensor((3, 3), dtype="float32") = x1
        with R.dataflow():
            gv1: R.Tensor((3, 3), dtype="float32") = gv
            R.output(gv1)
        return gv1


mod = relax.transform.FuseOpsByPattern(get_patterns_with_prefix("tensorrt"), bind_constants=True, annotate_codegen=False)(Module)
try:
    mod = relax.transform.MergeCompositeFunctions()(mod)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): MergeCompositeFunctions raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: MergeCompositeFunctions no longer raises")

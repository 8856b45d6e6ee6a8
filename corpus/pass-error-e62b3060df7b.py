"""passfuzz pass-error-e62b3060df7b: pass-error after FuseOpsByPattern(tensorrt, bind_constants=True, annotate_codegen=False), MergeCompositeFunctions on llvm.

error at pass:MergeCompositeFunctions: InternalError: Check failed: (it_group != obj2group_.end()) is false: Variable gv could not be found in any group
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
    @R.function(private=True)
    def f1(p0: R.Tensor((), dtype="float32")) -> R.Tensor((), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((), dtype="float32") = p0
            R.output(gv)
        return gv

    @R.function
    def main(x0: R.Tensor((), dtype="float32")) -> R.Tensor((), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv: R.Tensor((), dtype="float32") = cls.f1(x0)
            gv1: R.Tensor((), dtype="float32") = lv
            R.output(gv1)
        return gv1


mod = relax.transform.FuseOpsByPattern(get_patterns_with_prefix("tensorrt"), bind_constants=True, annotate_codegen=False)(Module)
try:
    mod = relax.transform.MergeCompositeFunctions()(mod)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): MergeCompositeFunctions raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: MergeCompositeFunctions no longer raises")

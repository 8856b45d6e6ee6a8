"""passfuzz pass-error-a8b3b6a97a25: pass-error after InlinePrivateFunctions, ToMixedPrecision on llvm.

error at pass:ToMixedPrecision: InternalError: Check failed: (!expr->ty.IsMissing()) is false: The type is not populated, check if you have normalized the expr
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function(private=True)
    def f1(p0: R.Tensor((1, 2), dtype="float32")) -> R.Tensor((1, 1), dtype="float32"):
        with R.dataflow():
            lv: R.Tuple(R.Tensor((1, 1), dtype="float32"), R.Tensor((1, 1), dtype="float32")) = R.split(p0, indices_or_sections=2, axis=1)
            lv1: R.Tensor((1, 1), dtype="float32") = lv[0]
            gv: R.Tensor((1, 1), dtype="float32") = lv1
            R.output(gv)
        return gv

    @R.function
    def main(x0: R.Tensor((1, 2), dtype="float32")) -> R.Tensor((1, 1), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv2: R.Tensor((1, 1), dtype="float32") = cls.f1(x0)
            gv1: R.Tensor((1, 1), dtype="float32") = lv2
            R.output(gv1)
        return gv1


mod = relax.transform.InlinePrivateFunctions()(Module)
try:
    mod = relax.transform.ToMixedPrecision()(mod)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): ToMixedPrecision raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: ToMixedPrecision no longer raises")

"""passfuzz pass-error-89e2d134bf84: pass-error after FastMathTransform on llvm.

error at pass:FastMathTransform: AttributeError: 'GlobalVar' object has no attribute 'name'
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


try:
    mod = relax.transform.FastMathTransform()(Module)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): FastMathTransform raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: FastMathTransform no longer raises")

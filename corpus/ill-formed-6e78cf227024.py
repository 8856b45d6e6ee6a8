"""passfuzz ill-formed-6e78cf227024: ill-formed after CanonicalizeBindings on llvm.

error at well-formed:CanonicalizeBindings: IllFormed: DataflowVar lv is not defined.
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(t0: R.Tuple(R.Tensor((), dtype="float32"))) -> R.Tuple(R.Tuple(R.Tensor((), dtype="float32")), R.Tensor((), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((), dtype="float32") = t0[0]
            gv: R.Tuple(R.Tensor((), dtype="float32"), R.Tensor((), dtype="float32")) = lv, lv
            R.output(gv)
        # from tvm.script import relax as R
        
        @R.function
        def gv2(p0: R.Tensor((), dtype="float32")) -> R.Tuple(R.Tensor((), dtype="float32")):
            gv1: R.Tuple(R.Tensor((), dtype="float32")) = (p0,)
            return gv1

        gv3: R.Tensor((), dtype="float32") = t0[0]
        gv4: R.Tuple(R.Tensor((), dtype="float32")) = gv2(gv3)
        with R.dataflow():
            lv1: R.Tensor((), dtype="float32") = gv[0]
            gv5: R.Tuple(R.Tuple(R.Tensor((), dtype="float32")), R.Tensor((), dtype="float32")) = gv4, lv1
            R.output(gv5)
        return gv5


mod = relax.transform.CanonicalizeBindings()(Module)
try:
    relax.analysis.well_formed(mod)  # raises on the first violation
except Exception as error:
    print("BUG REPRODUCES (ill-formed): the module is ill-formed after CanonicalizeBindings:", *str(error).strip().splitlines()[-1:])
    sys.exit(1)
print("fixed: the module is well formed after CanonicalizeBindings")

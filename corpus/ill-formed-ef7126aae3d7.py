"""passfuzz ill-formed-ef7126aae3d7: ill-formed after ReorderPermuteDimsAfterConcat on llvm.

error at well-formed:ReorderPermuteDimsAfterConcat: IllFormed: Expression of type R.Tensor(dtype="float32", ndim=3) cannot be assigned to a variable of type R.Tensor((4, 4, 3), dtype="float32")
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((1, 4, 4), dtype="float32"), x1: R.Tensor((1, "n0", "n0"), dtype="float32"), x2: R.Tensor((1, 4, 4), dtype="float32"), x7: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4, 3), dtype="float32"), R.Tensor((4, 4), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((4, 4, 1), dtype="float32") = R.permute_dims(x0, axes=None)
            lv1: R.Tensor((1, 4, 4), dtype="float32") = R.match_cast(x1, R.Tensor((1, 4, 4), dtype="float32"))
            lv2: R.Tensor((4, 4, 1), dtype="float32") = R.permute_dims(lv1, axes=None)
            lv3: R.Tensor((4, 4, 1), dtype="float32") = R.permute_dims(x2, axes=None)
            lv4: R.Tensor((4, 4, 3), dtype="float32") = R.concat((lv, lv2, lv3), axis=-1)
            gv: R.Tuple(R.Tensor((4, 4, 3), dtype="float32"), R.Tensor((4, 4), dtype="float32")) = lv4, x7
            R.output(gv)
        return gv


mod = relax.transform.ReorderPermuteDimsAfterConcat()(Module)
try:
    relax.analysis.well_formed(mod)  # raises on the first violation
except Exception as error:
    print("BUG REPRODUCES (ill-formed): the module is ill-formed after ReorderPermuteDimsAfterConcat:", *str(error).strip().splitlines()[-1:])
    sys.exit(1)
print("fixed: the module is well formed after ReorderPermuteDimsAfterConcat")

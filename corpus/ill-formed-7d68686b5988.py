"""passfuzz ill-formed-7d68686b5988: ill-formed after ExpandMatmulOfSum on llvm.

error at well-formed:ExpandMatmulOfSum: IllFormed: Expression of type R.Tensor(dtype="float32") cannot be assigned to a variable of type R.Tensor((3, 1), dtype="float32")
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
    def main(x0: R.Tensor((2, 1, 1), dtype="float32"), x1: R.Tensor(dtype="float32"), x2: R.Tensor((1, 3), dtype="float32"), x3: R.Tensor((1, 3), dtype="float32")) -> R.Tuple(R.Tensor((2, 1, 1), dtype="float32"), R.Tensor((3, 1), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((1, 3), dtype="float32") = R.add(x3, x2)
            lv1: R.Tensor((3, 1), dtype="float32") = R.permute_dims(lv, axes=[1, 0])
            lv2: R.Tensor((3, 3), dtype="float32") = R.match_cast(x1, R.Tensor((3, 3), dtype="float32"))
            lv3: R.Tensor((3, 1), dtype="float32") = R.matmul(lv2, lv1, out_dtype=None)
            gv: R.Tuple(R.Tensor((2, 1, 1), dtype="float32"), R.Tensor((3, 1), dtype="float32")) = x0, lv3
            R.output(gv)
        return gv


mod = relax.transform.ExpandMatmulOfSum()(Module)
try:
    relax.analysis.well_formed(mod)  # raises on the first violation
except Exception as error:
    print("BUG REPRODUCES (ill-formed): the module is ill-formed after ExpandMatmulOfSum:", *str(error).strip().splitlines()[-1:])
    sys.exit(1)
print("fixed: the module is well formed after ExpandMatmulOfSum")

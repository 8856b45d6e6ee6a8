"""passfuzz ill-formed-7670e27a85a6: ill-formed after CombineParallelMatmul on llvm.

error at well-formed:CombineParallelMatmul: IllFormed: Expression of type R.Tensor(dtype="float32", ndim=2) cannot be assigned to a variable of type R.Tensor((2, 1), dtype="float32")
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((2, 3), dtype="float32"), w1: R.Tensor((3, 1), dtype="float32"), w3: R.Tensor((1,), dtype="float32"), w5: R.Tensor((3, 1), dtype="float32"), w7: R.Tensor(("n3",), dtype="float32")) -> R.Tuple(R.Tensor((2, 1), dtype="float32"), R.Tensor((2, "n3"), dtype="float32")):
        n3 = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((2, 1), dtype="float32") = R.matmul(x0, w1, out_dtype=None)
            lv1: R.Tensor((2, 1), dtype="float32") = R.add(lv, w3)
            lv2: R.Tensor((2, 1), dtype="float32") = R.matmul(x0, w5, out_dtype=None)
            lv3: R.Tensor((2, n3), dtype="float32") = R.add(lv2, w7)
            gv: R.Tuple(R.Tensor((2, 1), dtype="float32"), R.Tensor((2, n3), dtype="float32")) = lv1, lv3
            R.output(gv)
        return gv


mod = relax.transform.CombineParallelMatmul()(Module)
try:
    relax.analysis.well_formed(mod)  # raises on the first violation
except Exception as error:
    print("BUG REPRODUCES (ill-formed): the module is ill-formed after CombineParallelMatmul:", *str(error).strip().splitlines()[-1:])
    sys.exit(1)
print("fixed: the module is well formed after CombineParallelMatmul")

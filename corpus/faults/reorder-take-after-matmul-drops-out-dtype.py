"""[Bug][Relax][ReorderTakeAfterMatmul] the rewritten matmul drops out_dtype

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((1, 2), "uint8"), w: R.Tensor((2, 3), "uint8"),
                 idx: R.Tensor((2,), "int64")) -> R.Tensor((1, 2), "int32"):
            with R.dataflow():
                lv = R.take(w, idx, axis=1)
                gv = R.matmul(x, lv, out_dtype="int32")
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

after = relax.transform.ReorderTakeAfterMatmul()(Before)
try:
    problem = "" if relax.analysis.well_formed(after) in (None, True) else "not well formed"
except Exception as error:  # TVM 0.27 raises the first violation (a TypeError)
    problem = str(error).strip().splitlines()[-1]
if problem:  # a uint8 matmul bound to the int32 variable `main` returns
    print(f"REPRODUCES: ill-formed after ReorderTakeAfterMatmul: {problem}")
    sys.exit(1)
print("fixed: the rewrite keeps out_dtype")

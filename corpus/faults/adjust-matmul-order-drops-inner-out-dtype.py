"""[Bug][Relax][AdjustMatmulOrder] reordering drops the inner matmul's out_dtype (mixed-dtype matmul)

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Before:  # (a @ b) costs 32 multiplies, a @ (b @ c) 8: the pass reorders
        @R.function
        def main(a: R.Tensor((4, 1), "float32"), b: R.Tensor((1, 4), "float32"),
                 c: R.Tensor((4, 1), "float16")) -> R.Tensor((4, 1), "float16"):
            with R.dataflow():
                lv = R.matmul(a, b, out_dtype="float16")
                gv = R.matmul(lv, c)
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    after = relax.transform.AdjustMatmulOrder()(Before)
    problem = "" if relax.analysis.well_formed(after) else "not well formed"
except Exception as error:  # the rebuilt matmul(b, c) mixes float32 and float16
    if "must have the same datatype" not in str(error) and "cannot be assigned" not in str(error):
        print(f"cannot run: unexpected {error!r}")
        sys.exit(125)
    problem = f"{type(error).__name__}: {str(error).strip().splitlines()[-1][:160]}"
if problem:
    print(f"REPRODUCES: AdjustMatmulOrder: {problem}")
    sys.exit(1)
print("fixed: the reordered matmuls keep their dtypes")

"""[Bug][Relax][CombineParallelMatmul] biases are concatenated without checking that they fit the split widths

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Before:  # x @ w2 is (2, 1); the bias (3,) broadcasts it to (2, 3)
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), w1: R.Tensor((3, 1), "float32"), w2: R.Tensor((3, 1), "float32"),
                 b1: R.Tensor((1,), "float32"), b2: R.Tensor((3,), "float32")):
            with R.dataflow():
                gv = (R.add(R.matmul(x, w1), b1), R.add(R.matmul(x, w2), b2))
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    after = relax.transform.CombineParallelMatmul()(Before)
    problem = "" if relax.analysis.well_formed(after) else "not well formed"
except Exception as error:  # (2, 2) + concat((1,), (3,)) = (2, 2) + (4,) does not broadcast
    if "relax.add" not in str(error) and "cannot be assigned" not in str(error):
        print(f"cannot run: unexpected {error!r}")
        sys.exit(125)
    problem = f"{type(error).__name__}: {str(error).strip().splitlines()[-1][-150:]}"
if problem:
    print(f"REPRODUCES: CombineParallelMatmul: {problem}")
    sys.exit(1)
print("fixed: the bias-add branches are left alone or combined correctly")

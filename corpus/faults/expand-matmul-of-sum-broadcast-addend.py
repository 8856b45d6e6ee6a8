"""[Bug][Relax][ExpandMatmulOfSum] an addend that broadcasts is distributed as it is (shape error)

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Before:  # b (1, 2) broadcasts along the reduction axis of x @ (a + b)
        @R.function
        def main(x: R.Tensor((2, 2), "float32"), a: R.Tensor((2, 2), "float32"),
                 b: R.Tensor((1, 2), "float32")) -> R.Tensor((2, 2), "float32"):
            with R.dataflow():
                gv = R.matmul(x, R.add(a, b))
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.ExpandMatmulOfSum()(Before)
except Exception as error:  # matmul(x, b): reduction length 2 against 1
    if "reduction length" not in str(error) and "PermuteDims expects" not in str(error):
        print(f"cannot run: unexpected {error!r}")
        sys.exit(125)
    print(f"REPRODUCES: ExpandMatmulOfSum raised {type(error).__name__}: {str(error).strip().splitlines()[-1][:120]}")
    sys.exit(1)
print("fixed: a broadcasting addend is left alone (or expanded correctly)")

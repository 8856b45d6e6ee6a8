"""[Bug][Relax][CombineParallelMatmul] a matmul whose left operand is a constant aborts the pass

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    import numpy as np
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 2), "float32")) -> R.Tensor((2, 2), "float32"):
            with R.dataflow():
                gv = R.matmul(R.const(np.ones((2, 2), "float32")), x)
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.CombineParallelMatmul()(Before)
except Exception as error:
    if "as type `ir.Var`" in str(error):  # GetBranchInfo casts args[0] to a Var
        print(f"REPRODUCES: CombineParallelMatmul raised {type(error).__name__}: {str(error).strip().splitlines()[-1]}")
        sys.exit(1)
    print(f"cannot run: unexpected {error!r}")
    sys.exit(125)
print("fixed: a non-Var left operand is left alone")

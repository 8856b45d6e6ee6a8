"""[Bug][Relax][SplitLayoutRewritePreproc] a PrimFunc whose root block holds loops but no block fails "There should be a compute block"

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm, numpy.
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
        def main(x: R.Tensor((2,), "float32"), u: R.Tensor((1,), "float32")) -> R.Tensor((2,), "float32"):
            with R.dataflow():
                gv = R.scatter_elements(x, R.const(np.array([0], "int64")), u, axis=0)
                R.output(gv)
            return gv

    mod = relax.transform.LegalizeOps()(Before)  # topi's scatter_elements: loops, no block
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.SplitLayoutRewritePreproc()(mod)
except Exception as error:
    if "There should be a compute block" in str(error):
        print("REPRODUCES:", str(error).strip().splitlines()[-1])
        sys.exit(1)
    print(f"cannot run: {error!r}")
    sys.exit(125)
print("fixed: a PrimFunc without layout-rewrite blocks is left unchanged")

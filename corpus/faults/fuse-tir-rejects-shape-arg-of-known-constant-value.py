"""[Bug][Relax][FuseTIR] a shape argument whose symbolic variable is known to be a constant fails "All shape inputs are expected to be single tirx var"

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the passes). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R
    from tvm.script import tirx as T

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((), "float32")) -> R.Tensor(dtype="float32", ndim=1):
            n = T.int64()
            with R.dataflow():
                s = R.match_cast(R.shape([1]), R.Shape([n]))  # FoldConstant leaves this form
                lv = R.reshape(x, R.shape([n]))
                gv = R.exp(lv)
                R.output(gv)
            return gv

    mod = relax.transform.LegalizeOps()(Before)
    mod = relax.transform.AnnotateTIROpPattern()(mod)
    mod = relax.transform.FuseOps()(mod)  # fused_reshape_tir_exp(x, R.shape([n]))
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.FuseTIR()(mod)
except Exception as error:
    if "All shape inputs are expected to be single tirx var" in str(error):
        print("REPRODUCES: FuseTIR:", str(error).strip().splitlines()[-1])
        sys.exit(1)
    print(f"cannot run: {error!r}")
    sys.exit(125)
print("fixed: FuseTIR accepts a shape argument whose value is known")

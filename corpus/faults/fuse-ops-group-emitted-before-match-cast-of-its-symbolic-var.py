"""[Bug][Relax][FuseOps] a fused group is emitted before the match_cast that defines a symbolic variable it uses

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
        def main(x: R.Tensor((), "float32"), t: R.Tensor((1,), "int64")) -> R.Tensor(dtype="float32", ndim=1):
            n = T.int64()
            with R.dataflow():
                lv = R.negative(x)
                s = R.match_cast(R.tensor_to_shape(t), R.Shape([n]))
                gv = R.reshape(lv, R.shape([n]))
                R.output(gv)
            return gv

    mod = relax.transform.LegalizeOps()(Before)
    mod = relax.transform.AnnotateTIROpPattern()(mod)
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

after = relax.transform.FuseOps()(mod)  # fused_tir_negative_reshape(x, R.shape([n])) comes first
try:
    relax.analysis.well_formed(after)  # returns None in 0.27, raises the first violation
    problem = ""
except Exception as error:
    problem = str(error).strip().splitlines()[-1]
if problem:
    print(f"REPRODUCES: ill-formed after FuseOps: {problem}")
    sys.exit(1)
print("fixed: the fused call follows the match_cast that defines n")

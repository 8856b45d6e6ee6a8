"""[Bug][Relax][FuseOps] a lone TupleGetItem of a nested tuple parameter becomes a primitive function named "fused", and FuseTIR aborts

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the passes). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Before:
        @R.function
        def main(t: R.Tuple(R.Tuple(R.Tensor((2,), "float32")))) -> R.Tensor((2,), "float32"):
            with R.dataflow():
                lv = t[0]
                gv = lv[0]
                R.output(gv)
            return gv

    mod = relax.transform.LegalizeOps()(Before)
    mod = relax.transform.AnnotateTIROpPattern()(mod)
    mod = relax.transform.FuseOps()(mod)  # emits `fused(t_0) = t_0[0]` with "Primitive"
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.FuseTIR()(mod)
except Exception as error:
    if 'global_name != "fused"' in str(error):
        print("REPRODUCES: FuseTIR:", str(error).strip().splitlines()[-1])
        sys.exit(1)
    print(f"cannot run: {error!r}")
    sys.exit(125)
print("fixed: FuseTIR accepts the module FuseOps produced")

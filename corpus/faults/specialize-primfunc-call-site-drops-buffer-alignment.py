"""[Bug][Relax][SpecializePrimFuncBasedOnCallSite] buffers rebuilt from the call site lose data_alignment: "The buffer data_alignment mismatched"

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
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                lv = R.median(x, axis=[0], keepdims=False)  # topi argsort: data_alignment=8
                gv = lv[0]
                R.output(gv)
            return gv

    mod = relax.transform.LegalizeOps()(Before)
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.SpecializePrimFuncBasedOnCallSite()(mod)
except Exception as error:
    if "data_alignment mismatched" in str(error):
        print("REPRODUCES:", str(error).strip().splitlines()[-1])
        sys.exit(1)
    print(f"cannot run: {error!r}")
    sys.exit(125)
print("fixed: the PrimFunc is specialized with its buffers' alignment kept")

"""[Bug][Relax][AttachAttrLayoutFreeBuffers] a public PrimFunc is copied with its global_symbol: the module then has two functions exporting the same symbol

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    import tvm
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R
    from tvm.script import tirx as T

    @I.ir_module
    class Before:
        @T.prim_func(s_tir=True)  # public: TVMScript gives it global_symbol "addone"
        def addone(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
            for i, j in T.grid(16, 16):
                with T.sblock("addone"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = A[vi, vj] + T.float32(1.0)

        @R.function
        def main(x: R.Tensor((16, 16), "float32")) -> R.Tensor((16, 16), "float32"):
            cls = Before
            with R.dataflow():
                gv = R.call_tir(cls.addone, (x,), out_ty=R.Tensor((16, 16), "float32"))
                R.output(gv)
            return gv

    # zero_pipeline, as static_shape_tuning_pipeline(cpu_weight_prepack=True) runs it first
    mod = relax.transform.LegalizeOps()(Before)
    mod = relax.transform.AnnotateTIROpPattern()(mod)
    mod = relax.transform.FuseOps()(mod)
    mod = relax.transform.FuseTIR()(mod)
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

mod = relax.transform.AttachAttrLayoutFreeBuffers()(mod)
exported = sorted(
    (str(func.attrs["global_symbol"]), gv.name_hint)
    for gv, func in mod.functions.items()
    if func.attrs is not None and "global_symbol" in func.attrs
)
try:
    tvm.compile(mod, "llvm")
except Exception as error:
    if "duplicate global symbol" in str(error):
        print("REPRODUCES: (global_symbol, function) after the pass:", exported, "; tvm.compile:",
              str(error).strip().splitlines()[-1])
        sys.exit(1)
    print(f"cannot run: {error!r}")
    sys.exit(125)
print("fixed: the module compiles; (global_symbol, function):", exported)

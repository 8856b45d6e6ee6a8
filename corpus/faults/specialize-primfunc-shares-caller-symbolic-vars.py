"""[Bug][Relax][SpecializePrimFuncBasedOnCallSite] the specialized PrimFunc's buffers take the caller's symbolic variables: the module no longer prints and parses back

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    import tvm
    import tvm_ffi
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R
    from tvm.script import tirx as T

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            with R.dataflow():
                gv = R.exp(x)
                R.output(gv)
            return gv

    mod = relax.transform.LegalizeOps()(Before)  # the exp kernel gets its own n
    back = tvm.script.from_source(mod.script())
    if not tvm_ffi.structural_equal(mod, back):
        print("cannot run: the module does not round trip before the pass")
        sys.exit(125)
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

mod = relax.transform.SpecializePrimFuncBasedOnCallSite()(mod)
n_main = mod["main"].params[0].ty.shape.values[0]
n_kernel = mod["tir_exp"].params[0].ty.shape[0]
try:
    tvm.ir.assert_structural_equal(mod, tvm.script.from_source(mod.script()))
except ValueError as error:
    print("REPRODUCES: the tir_exp kernel shares main's n:", n_kernel.same_as(n_main),
          "; the printed module parses back to another module:", str(error).strip().splitlines()[0])
    sys.exit(1)
print("fixed: the specialized module prints and parses back to itself")

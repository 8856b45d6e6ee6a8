"""[Bug][Relax][CallTIRRewrite] alloc_tensor is emitted with ty_args, which R.builtin.alloc_tensor rejects: no print round trip

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the round trip). Needs: tvm.
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
    class Module:
        @T.prim_func
        def exp(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
            for i in range(4):
                B[i] = T.exp(A[i])

        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            R.func_attr({"relax.force_pure": True})  # no dataflow block, purity checks off: CallTIRRewrite's input
            y = R.call_tir(Module.exp, (x,), R.Tensor((4,), "float32"))
            return y

    after = relax.transform.CallTIRRewrite()(Module)
    text = after.script()  # R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), 0, R.str("global"), ty_args=(...,))
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    back = tvm.script.from_source(text)
except Exception as error:
    if "ty_args" not in str(error):
        print(f"cannot run: another failure: {error!r}")
        sys.exit(125)
    print(f"REPRODUCES: the module after CallTIRRewrite does not parse back: {str(error).strip().splitlines()[0]}")
    sys.exit(1)
if not tvm_ffi.structural_equal(after, back):  # it parses now, to another module: not this fault
    print("cannot run: the module parses back to another module")
    sys.exit(125)
print("fixed: the module after CallTIRRewrite prints and parses back to itself")

"""[Bug][TVMScript][Relax] a call of an R.ExternFunc prints as R.call_packed, dropping the callee's purity and derive_func

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the round trip). Needs: tvm.
"""
import sys

try:
    import tvm
    import tvm_ffi
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Module:  # no pass: TVM's own Expected of LowerRuntimeBuiltin on R.memory.view (test_op_view.py)
        @R.function
        def main(A: R.Tensor([4096], "float32")):
            B = R.ExternFunc("runtime.TVMTensorCreateView",
                             R.Callable(derive_func="tvm.relax.type.infer_view_ty", purity=True))(
                A, R.shape([64, 64]), R.dtype("float32"), R.prim_value(0))
            return B

    text = Module.script()  # B = R.call_packed("runtime.TVMTensorCreateView", A, ...)
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    back = tvm.script.from_source(text)
except Exception as error:
    if "not well-formed" not in str(error):
        print(f"cannot run: another failure: {error!r}")
        sys.exit(125)
    print("REPRODUCES: the printed call is an impure R.call_packed, and the pure function holding it is not well formed")
    sys.exit(1)
if not tvm_ffi.structural_equal(Module, back):
    print("REPRODUCES: the module parses back to another one: the call's callee lost its type")
    sys.exit(1)
print("fixed: the module prints and parses back to itself")

"""[Bug][TVMScript][Relax] an integer prim_value that is not int64 prints as a bare literal and parses back as int64

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the round trip). Needs: tvm.
"""
import sys

try:
    import tvm
    import tvm_ffi
    from tvm.script import ir as I
    from tvm.script import relax as R
    from tvm.script import tirx as T

    @I.ir_module
    class Module:
        @T.prim_func(private=True, s_tir=True)
        def add_n(a: T.Buffer((2,), "float32"), n: T.int32, b: T.Buffer((2,), "float32")):
            for i in range(2):
                with T.sblock("b"):
                    vi = T.axis.spatial(2, i)
                    b[vi] = a[vi] + T.Cast("float32", n)

        @R.function
        def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            cls = Module
            return R.call_tir(cls.add_n, (x, R.prim_value(T.int32(3))), out_ty=R.Tensor((2,), "float32"))

    text = Module.script()  # `R.call_tir(cls.add_n, (x, 3), ...)`
    back = tvm.script.from_source(text, check_well_formed=False)
    call = back["main"].body.blocks[0].bindings[0].value
    dtype = str(call.args[1].fields[1].ty.dtype)
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

if tvm_ffi.structural_equal(Module, back):
    print("fixed: the module prints and parses back to itself")
    sys.exit(0)
if dtype != "int64":
    print(f"cannot run: the module parses back to another module (argument dtype {dtype})")
    sys.exit(125)
print("REPRODUCES: R.prim_value(T.int32(3)) is printed `3` and parses back as int64 (call_tir then fails well_formed)")
sys.exit(1)

"""[Bug][Relax][TVMScript] R.take reads a bare integer index as int32: a take of R.prim_value(0) does not round-trip

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
    class Module:  # no pass: TVM's own test_take_const_prim_value::Take
        @R.function
        def main(x: R.Tensor((2, 3, 4), "float32")) -> R.Tensor((2, 4), "float32"):
            gv: R.Tensor((2, 4), "float32") = R.take(x, R.prim_value(0), axis=1)
            return gv

    text = Module.script()  # R.take(x, 0, axis=1, mode="fast"): the int64 index printed as a bare literal
    back = tvm.script.from_source(text)
    index = Module["main"].body.blocks[0].bindings[0].value.args[1]
    index_back = back["main"].body.blocks[0].bindings[0].value.args[1]
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

if str(index.ty.dtype) == "int64" and str(index_back.ty.dtype) == "int32":
    print("REPRODUCES: the take's int64 index R.prim_value(0) prints as 0 and parses back as an int32 index")
    sys.exit(1)
if not tvm_ffi.structural_equal(Module, back):
    print("cannot run: the module parses back to another module, otherwise")
    sys.exit(125)
print("fixed: the module prints and parses back to itself")

"""[Bug][TVMScript][Relax] a call of a Relax variable reads an integer literal argument as int32: an int64 prim_value does not round-trip

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
        @R.function(pure=False)
        def main(f: R.Callable):
            y = f(R.prim_value(T.int64(0)))
            return y

    text = Module.script()  # `y: R.Any = f(0)`
    back = tvm.script.from_source(text)
    dtype = str(back["main"].body.blocks[0].bindings[0].value.args[0].ty.dtype)
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

if tvm_ffi.structural_equal(Module, back):
    print("fixed: the module prints and parses back to itself")
    sys.exit(0)
if dtype != "int32":
    print(f"cannot run: the module parses back to another module (argument dtype {dtype})")
    sys.exit(125)
print("REPRODUCES: `f(0)` parses back with an int32 argument, the module had an int64 one")
sys.exit(1)

"""[Bug][TVMScript][Printer] a PrimFunc's module-level TypeVar clashes with a Relax function's own `n = T.int64()`: module does not parse back

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
        @T.prim_func(private=True)
        def fill(a: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,))
            A[0] = T.float32(0)

        @R.function
        def main(s: R.Shape(ndim=1)):
            n = T.int64()
            cls = Module
            _ = R.match_cast(s, R.Shape([n]))
            return R.call_tir(cls.fill, (), out_ty=R.Tensor((n,), "float32"))

    text = Module.script()  # `n = TypeVar("n")` above the class, `n = T.int64()` in main
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    back = tvm.script.from_source(text)
except Exception as error:
    if "Cannot redefine a non-PrimType object to a PrimType value" not in str(error):
        print(f"cannot run: another failure: {error!r}")
        sys.exit(125)
    print("REPRODUCES: the printed module does not parse back: Cannot redefine a non-PrimType object to a PrimType value")
    sys.exit(1)
if not tvm_ffi.structural_equal(Module, back):  # it parses now, to another module: not this fault
    print("cannot run: the module parses back to another module")
    sys.exit(125)
print("fixed: the module prints and parses back to itself")

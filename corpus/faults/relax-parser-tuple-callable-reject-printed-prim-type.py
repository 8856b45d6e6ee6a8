"""[Bug][TVMScript][Relax] R.Tuple and R.Callable reject the T.int64 the printer writes for a PrimType field: module does not parse back

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
    class Module:  # no pass: LazyGetInput and LazySetOutput add such a Callable parameter
        @R.function
        def main(f: R.Callable((R.Prim("int64"),), R.Tuple)):
            return f

    text = Module.script()  # `def main(f: R.Callable((T.int64,), R.Tuple, True))`
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    back = tvm.script.from_source(text)
except Exception as error:
    if "object has no attribute" not in str(error):
        print(f"cannot run: another failure: {error!r}")
        sys.exit(125)
    print(f"REPRODUCES: the printed module does not parse back: {str(error).strip().splitlines()[0]}")
    sys.exit(1)
if not tvm_ffi.structural_equal(Module, back):  # it parses now, to another module: not this fault
    print("cannot run: the module parses back to another module")
    sys.exit(125)
print("fixed: the module prints and parses back to itself")

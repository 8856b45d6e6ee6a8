"""[Bug][CodeGen][LLVM] float16 asin, acos, atan, atan2, sinh, cosh, asinh, acosh fail with `unknown intrinsic`

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the build). Needs: tvm.
"""
import sys

try:
    import tvm
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((4,), "float16")) -> R.Tensor((4,), "float16"):
            with R.dataflow():
                gv = R.asin(x)
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    tvm.compile(Module, target="llvm")
except Exception as error:
    if "unknown intrinsic" not in str(error):
        print(f"cannot run: another failure: {error!r}")
        sys.exit(125)
    line = [s for s in str(error).splitlines() if "unknown intrinsic" in s][0]
    print(f"REPRODUCES: float16 asin does not compile for llvm: {line.strip()[:120]}")
    sys.exit(1)
print("fixed: float16 asin compiles for llvm")

"""[Bug][Codegen][C] tirx.fabs has no lowering rule for target c: R.abs of a float tensor fails with "Unresolved call tirx.fabs"

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure, or a build failure of another kind). Needs: tvm, numpy, a C compiler.
"""
import sys

try:
    import numpy as np
    import tvm
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            with R.dataflow():
                gv = R.abs(x)
                R.output(gv)
            return gv

    x = np.array([-1.5, 2.0, -3.0, 0.0], dtype="float32")
    tvm.compile(Module, "llvm")  # the same module builds for llvm
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    executable = tvm.compile(Module, "c")
except Exception as error:
    if "Unresolved call" in str(error) and "fabs" in str(error):
        print("REPRODUCES: tvm.compile(R.abs(x), 'c'):", str(error).strip().splitlines()[-1][:80], "... tirx.fabs")
        sys.exit(1)
    print(f"cannot run: another failure: {error!r}")
    sys.exit(125)
got = relax.VirtualMachine(executable, tvm.cpu())["main"](tvm.runtime.tensor(x)).numpy()
if not np.array_equal(got, np.abs(x)):
    print(f"cannot run: it builds now but computes {got}, not {np.abs(x)}")
    sys.exit(125)
print("fixed: R.abs builds and runs on target c")

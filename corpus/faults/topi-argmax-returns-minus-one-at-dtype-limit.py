"""[Bug][TOPI] argmax returns -1 for a row holding only the dtype's lowest value (argmin at the highest)

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the run). Needs: tvm, numpy.
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
        def main(x: R.Tensor((2, 3), "uint8")) -> R.Tensor((2,), "int64"):
            return R.argmax(x, axis=1)

    x = np.array([[0, 0, 0], [1, 3, 3]], dtype="uint8")
    vm = relax.VirtualMachine(tvm.compile(Module, "llvm"), tvm.cpu())
    got = vm["main"](tvm.runtime.tensor(x)).numpy()
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

if got.tolist() != np.argmax(x, axis=1).tolist():
    print(f"REPRODUCES: argmax of {x.tolist()} along axis 1 gave {got.tolist()}, numpy {np.argmax(x, axis=1).tolist()}")
    sys.exit(1)
print("fixed: argmax of a row of zeros is 0")

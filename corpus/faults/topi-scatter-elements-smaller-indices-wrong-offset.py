"""[Bug][TOPI] scatter_elements with indices smaller than data off the scatter axis writes the wrong elements

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
        def main(x: R.Tensor((1, 2, 2), "float32"), idx: R.Tensor((1, 2, 1), "int64"),
                 upd: R.Tensor((1, 2, 1), "float32")) -> R.Tensor((1, 2, 2), "float32"):
            return R.scatter_elements(x, idx, upd, axis=0)

    args = [np.zeros((1, 2, 2), "float32"), np.zeros((1, 2, 1), "int64"), np.array([[[5], [7]]], "float32")]
    vm = relax.VirtualMachine(tvm.compile(Module, "llvm"), tvm.cpu())
    got = vm["main"](*[tvm.runtime.tensor(a) for a in args]).numpy()
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

expected = [[[5.0, 0.0], [7.0, 0.0]]]  # out[idx[0][j][k]][j][k] = upd[0][j][k], as ONNX ScatterElements defines it
if got.tolist() != expected:
    print(f"REPRODUCES: scatter_elements gave {got.tolist()}, expected {expected}")
    sys.exit(1)
print("fixed: scatter_elements addresses data with its own layout")

"""[Bug][Relax][ReorderTakeAfterMatmul] a take from a 1-D table is moved across the reduction: wrong result

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import, API or build failure). Needs: tvm, numpy.
"""
import sys

try:
    import numpy as np
    import tvm
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Before:  # take from a 1-D table: axis 0 is the matmul's reduction axis
        @R.function
        def main(x: R.Tensor((3, 3), "float32"), w: R.Tensor((3,), "float32"),
                 i: R.Tensor((3,), "int64")) -> R.Tensor((3,), "float32"):
            with R.dataflow():
                gv = R.matmul(x, R.take(w, i, axis=0))
                R.output(gv)
            return gv

    x = np.arange(9, dtype="float32").reshape(3, 3)
    w = np.array([1, 10, 100], "float32")
    i = np.array([2, 0, 1], "int64")
    expected = x @ w[i]  # [21, 354, 687]
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    after = relax.transform.ReorderTakeAfterMatmul()(Before)
except Exception as error:  # the 1-D fault raises on other shapes (a scalar take, a reduction mismatch)
    if "relax.take" in str(error) or "reduction length" in str(error):
        print(f"REPRODUCES: ReorderTakeAfterMatmul raised {type(error).__name__}")
        sys.exit(1)
    print(f"cannot run: unexpected {error!r}")
    sys.exit(125)
try:
    vm = relax.VirtualMachine(tvm.compile(after, "llvm"), tvm.cpu())
    got = vm["main"](*[tvm.runtime.tensor(a) for a in (x, w, i)]).numpy()
except Exception as error:  # not the fault: no build or run here
    print(f"cannot run: {error!r}")
    sys.exit(125)
if not np.allclose(got, expected):  # the pass computes take(x @ w, i): [876, 210, 543]
    print(f"REPRODUCES: after ReorderTakeAfterMatmul main returns {got.tolist()}, expected {expected.tolist()}")
    sys.exit(1)
print("fixed: the take on the reduction axis is left in place")

"""[Bug][Relax][ToMixedPrecision] an int64 matmul is computed in float32: 2**25 + 1 becomes 33554432

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm, numpy.
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
        def main(x: R.Tensor((1, 1), "int64"), w: R.Tensor((1, 1), "int64")) -> R.Tensor((1, 1), "int64"):
            with R.dataflow():
                gv = R.matmul(x, w)
                R.output(gv)
            return gv

    after = relax.transform.ToMixedPrecision()(Module)
    vm = relax.VirtualMachine(tvm.compile(after, target="llvm"), tvm.cpu())
    x = np.array([[2**25 + 1]], "int64")
    got = vm["main"](tvm.runtime.tensor(x), tvm.runtime.tensor(np.ones((1, 1), "int64"))).numpy()
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

if int(got[0, 0]) != 2**25 + 1:
    print(f"REPRODUCES: after ToMixedPrecision the int64 matmul [[{2**25 + 1}]] @ [[1]] gives {got.tolist()}")
    sys.exit(1)
print("fixed: an integer matmul keeps its dtype")

"""[Bug][Relax][FoldBatchnormToConv2D] the batch_norm's axis and the conv2d's data layout are ignored: the shift lands on axis 1

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

    w = np.array([[[[1.0]], [[0.0]]], [[[0.0]], [[1.0]]]], "float32")  # 1x1 identity, OIHW
    beta = np.array([0.0, 10.0], "float32")

    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((1, 2, 2, 2), "float32")) -> R.Tensor((1, 2, 2, 2), "float32"):
            with R.dataflow():
                lv = R.nn.conv2d(x, R.const(w), data_layout="NHWC", kernel_layout="OIHW")
                bn = R.nn.batch_norm(lv, R.const(np.ones(2, "float32")), R.const(beta),
                                     R.const(np.zeros(2, "float32")), R.const(np.ones(2, "float32")),
                                     axis=3, epsilon=0.0, training=False)
                gv = bn[0]
                R.output(gv)
            return gv

    x = np.arange(8, dtype="float32").reshape(1, 2, 2, 2)
    want = x + beta  # identity conv, unit variance, zero mean: batch_norm adds beta along axis 3
    after = relax.transform.FoldBatchnormToConv2D()(Module)
    vm = relax.VirtualMachine(tvm.compile(after, target="llvm"), tvm.cpu())
    got = vm["main"](tvm.runtime.tensor(x)).numpy()
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

if not np.allclose(got, want, atol=1e-5):
    print(f"REPRODUCES: after FoldBatchnormToConv2D the NHWC conv2d + batch_norm(axis=3) is off by "
          f"{np.abs(got - want).max()}: {got.ravel().tolist()} instead of {want.ravel().tolist()}")
    sys.exit(1)
print("fixed: the folded bias follows the batch_norm's axis")

"""[Bug][TOPI] pool_grad (max) reads past the pooled output when the kernel exceeds the stride: gradients double-counted or not written

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the comparison). Needs: tvm, numpy.
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
        def main(x: R.Tensor((1, 1, 4, 4), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                lv = R.nn.max_pool2d(x, pool_size=[3, 3])  # strides 1: a (1, 1, 2, 2) output
                gv = R.sum(lv)
                R.output(gv)
            return gv

    after = relax.transform.Gradient("main")(Module)
    vm = relax.VirtualMachine(tvm.compile(after, target="llvm"), tvm.cpu())
    x = -np.arange(16, dtype="float32").reshape(1, 1, 4, 4)
    x[0, 0, 2, 3] = 100.0  # the maximum of the two right windows, nowhere else
    _, (grad,) = vm["main_adjoint"](tvm.runtime.tensor(x))
    got = grad.numpy()
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

# each element gets one for every window whose maximum it is: (0, 0), (1, 0) and, twice, (2, 3)
want = np.zeros((1, 1, 4, 4), "float32")
want[0, 0, 0, 0] = want[0, 0, 1, 0] = 1.0
want[0, 0, 2, 3] = 2.0
if not np.array_equal(got, want):
    print(f"REPRODUCES: the gradient of sum(max_pool2d(x, 3x3, stride 1)) is {got[0, 0].tolist()}, "
          f"not {want[0, 0].tolist()}")
    sys.exit(1)
print("fixed: max_pool2d's gradient counts each window once")

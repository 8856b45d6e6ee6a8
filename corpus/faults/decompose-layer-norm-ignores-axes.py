"""[Bug][Relax][DecomposeOpsForTraining] DecomposeLayerNorm broadcasts gamma and beta along the trailing axes, not the normalized ones

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
    class Before:
        @R.function
        def main(x: R.Tensor((2, 2), "float32"), gamma: R.Tensor((2,), "float32"),
                 beta: R.Tensor((2,), "float32")) -> R.Tensor((2, 2), "float32"):
            with R.dataflow():
                gv = R.nn.layer_norm(x, gamma, beta, axes=[0], epsilon=1e-5)
                R.output(gv)
            return gv

    x = np.array([[0.0, 1.0], [2.0, 5.0]], "float32")
    gamma = np.array([1.0, 3.0], "float32")
    beta = np.array([0.0, 10.0], "float32")
    # numpy layer_norm over axis 0: gamma and beta index axis 0
    mean, var = x.mean(0, keepdims=True), x.var(0, keepdims=True)
    want = (x - mean) / np.sqrt(var + 1e-5) * gamma[:, None] + beta[:, None]

    after = relax.transform.DecomposeOpsForTraining()(Before)
    vm = relax.VirtualMachine(tvm.compile(after, target="llvm"), tvm.cpu())
    got = vm["main"](*[tvm.runtime.tensor(a) for a in (x, gamma, beta)]).numpy()
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

if not np.allclose(got, want, atol=1e-4):
    print(f"REPRODUCES: after DecomposeOpsForTraining layer_norm(axes=[0]) gives {got.tolist()}, numpy {want.tolist()}")
    sys.exit(1)
print("fixed: gamma and beta are applied along the normalized axes")

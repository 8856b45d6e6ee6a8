"""[Bug][Relax][Gradient] the gradient of take with indices of rank 2 fails to legalize: take_backward asserts 1-D indices

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
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                t = R.take(x, R.const(np.array([[0], [2]], "int64")), axis=0)
                s = R.sum(t)
                R.output(s)
            return s

    After = relax.transform.Gradient("main")(Before)
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.LegalizeOps()(After)
except AssertionError as error:  # legalize_ops/grad.py: assert len(indices_ptr.shape) == 1
    print(f"REPRODUCES: LegalizeOps of take_backward raised AssertionError {error}".rstrip())
    sys.exit(1)
print("fixed: the gradient of take with 2-D indices legalizes")

"""[Bug][Relax] start_checkpoint of a constant fails type inference: FoldConstant and BindParams abort

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    import numpy as np
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            with R.dataflow():
                c = R.const(np.ones(2, "float32"))
                s = R.grad.start_checkpoint(c)
                y = R.add(s, x)
                R.output(y)
            return y
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.FoldConstant()(Before)
except Exception as error:
    if "start_checkpoint should be a Var" in str(error):  # the marker's type inference
        print(f"REPRODUCES: FoldConstant raised {type(error).__name__}: {str(error).strip().splitlines()[-1]}")
        sys.exit(1)
    print(f"cannot run: unexpected {error!r}")
    sys.exit(125)
print("fixed: a checkpoint marker of a constant survives FoldConstant")

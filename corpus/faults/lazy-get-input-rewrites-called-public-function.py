"""[Bug][Relax][LazyGetInput] a public function called from main is rewritten but its call sites are not

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
        def helper(a: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            return R.exp(a)

        @R.function
        def main(x: R.Tensor((2,), "float32"), w: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            R.func_attr({"num_input": 1})
            y = Before.helper(w)
            return R.add(x, y)

    vm = relax.VirtualMachine(tvm.compile(relax.transform.LazyGetInput()(Before), "llvm"), tvm.cpu())
    w = tvm.runtime.tensor(np.zeros(2, "float32"))
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)
try:
    out = vm["main"](tvm.runtime.tensor(np.zeros(2, "float32")), lambda index, name: w)
except Exception as error:
    if "expect a Function but get" in str(error):
        print("REPRODUCES: helper now takes fget_param, main still passes it w:", str(error).splitlines()[-1][:160])
        sys.exit(1)
    print(f"cannot run: {error!r}")
    sys.exit(125)
print("fixed: main runs and returns", out.numpy().tolist())

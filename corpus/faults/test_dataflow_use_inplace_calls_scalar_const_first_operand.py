import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_inplace_binary_op_with_scalar_constant_first_operand():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            with R.dataflow():
                lv = R.add(x, x)
                gv = R.multiply(R.const(2.0, "float32"), lv)
                R.output(gv)
            return gv

    After = relax.transform.DataflowUseInplaceCalls()(Before)
    assert relax.analysis.well_formed(After)
    x = np.arange(6, dtype="float32").reshape(2, 3)
    vm = relax.VirtualMachine(tvm.compile(After, target="llvm"), tvm.cpu())
    tvm.testing.assert_allclose(vm["main"](tvm.runtime.tensor(x)).numpy(), 4 * x)


if __name__ == "__main__":
    tvm.testing.main()

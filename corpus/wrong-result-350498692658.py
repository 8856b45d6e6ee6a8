"""passfuzz wrong-result-350498692658: wrong-result after DecomposeOpsForTraining on llvm.

llvm: output 0 (float16, shape (2, 1)): shape (2, 1) became (2, 2)
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def numpy_outputs(value):
    """The VM's result (a tensor or nested tuples of tensors) as a flat list of numpy arrays."""
    if hasattr(value, "numpy"):
        return [value.numpy()]
    return [array for item in value for array in numpy_outputs(item)]


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((2, 1), dtype="float16"), w1: R.Tensor((2,), dtype="float16")) -> R.Tensor((2, 1), dtype="float16"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((2, 1), dtype="float16") = R.nn.layer_norm(x0, w1, R.const(np.array([0.0, 0.0], dtype='float16'), 'float16'), axes=[0], epsilon=1000.0, center=True, scale=True)
            gv: R.Tensor((2, 1), dtype="float16") = lv
            R.output(gv)
        return gv


arguments = [np.array([[0.0], [0.0]], dtype='float16'), np.array([0.5, 0.5], dtype='float16')]
mod = relax.transform.DecomposeOpsForTraining()(Module.clone())  # passes may update their input in place
executable = tvm.compile(mod, 'llvm')
args = [tvm.runtime.tensor(a) for a in arguments]
vm = relax.VirtualMachine(executable, tvm.cpu())
actual = numpy_outputs(vm["main"](*args))
args = [tvm.runtime.tensor(a) for a in arguments]
vm = relax.VirtualMachine(tvm.compile(Module, 'llvm'), tvm.cpu())
expected = numpy_outputs(vm["main"](*args))
try:
    assert len(actual) == 1, f"1 output(s) expected, {len(actual)} returned"
    assert (actual[0].dtype, actual[0].shape) == (expected[0].dtype, expected[0].shape), f"{expected[0].dtype}{expected[0].shape} became {actual[0].dtype}{actual[0].shape}"
    np.testing.assert_allclose(actual[0].astype("float64"), expected[0].astype("float64"), rtol=0.02, atol=0.02, equal_nan=True, err_msg='output 0')
except AssertionError as error:
    print("BUG REPRODUCES (wrong-result):", " ".join(str(error).split()))
    sys.exit(1)
print("fixed: the optimized module compiles, runs and matches the original")

"""passfuzz wrong-result-7231f14da01f: wrong-result after FastMathTransform on llvm.

llvm: output 0 (float16, shape (3, 1)): 1 of 3 elements differ, first at [0, 0]: original -1.0, optimized -1.041015625
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
    def main() -> R.Tensor((3, 1), dtype="float16"):
        with R.dataflow():
            lv: R.Tensor((3, 1), dtype="float16") = R.erf(R.const(np.array([[-4.0], [0.0], [0.0]], dtype='float16'), 'float16'))
            gv: R.Tensor((3, 1), dtype="float16") = lv
            R.output(gv)
        return gv


arguments = []
mod = relax.transform.FastMathTransform()(Module.clone())  # passes may update their input in place
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
    np.testing.assert_allclose(actual[0].astype("float64"), expected[0].astype("float64"), rtol=0.02, atol=0.02010007970075692, equal_nan=True, err_msg='output 0')
except AssertionError as error:
    print("BUG REPRODUCES (wrong-result):", " ".join(str(error).split()))
    sys.exit(1)
print("fixed: the optimized module compiles, runs and matches the original")

"""passfuzz reference-mismatch-1f7c2a583697: reference-mismatch in the unoptimized module.

c: output 0 (add, float64, shape (1,)) of the unoptimized module differs from numpy: 1 of 1 elements differ, first at [0]: numpy -2.9103976010669506, tvm -2.910398
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
    def main(x0: R.Tensor((1,), dtype="float64")) -> R.Tensor((1,), dtype="float64"):
        with R.dataflow():
            lv: R.Tensor((1,), dtype="float64") = R.add(R.const(-2.9103976010669506, "float64"), x0)
            gv: R.Tensor((1,), dtype="float64") = lv
            R.output(gv)
        return gv


expected = [np.array([-2.9103976010669506], dtype='float64')]  # numpy's outputs
arguments = [np.array([0.0], dtype='float64')]
args = [tvm.runtime.tensor(a) for a in arguments]
vm = relax.VirtualMachine(tvm.compile(Module, 'c'), tvm.cpu())
actual = numpy_outputs(vm["main"](*args))
try:
    assert len(actual) == 1, f"1 output(s) expected, {len(actual)} returned"
    assert (actual[0].dtype, actual[0].shape) == (expected[0].dtype, expected[0].shape), f"{expected[0].dtype}{expected[0].shape} became {actual[0].dtype}{actual[0].shape}"
    np.testing.assert_allclose(actual[0], expected[0], rtol=1e-08, atol=6.910397601066961e-08, equal_nan=True, err_msg='output 0')
except AssertionError as error:
    print("BUG REPRODUCES (reference-mismatch): the unoptimized module differs from numpy:", " ".join(str(error).split()))
    sys.exit(1)
print("fixed: the unoptimized module matches numpy")

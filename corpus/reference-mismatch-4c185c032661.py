"""passfuzz reference-mismatch-4c185c032661: reference-mismatch in the unoptimized module.

llvm: output 0 (argmax, int64, shape ()) of the unoptimized module differs from numpy: 1 of 1 elements differ, first at []: numpy 0, tvm -1
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
    def main(x0: R.Tensor((1,), dtype="uint8")) -> R.Tensor((), dtype="int64"):
        with R.dataflow():
            lv: R.Tensor((), dtype="int64") = R.argmax(x0, axis=None, keepdims=False)
            gv: R.Tensor((), dtype="int64") = lv
            R.output(gv)
        return gv


expected = [np.array(0, dtype='int64')]  # numpy's outputs
arguments = [np.array([0], dtype='uint8')]
args = [tvm.runtime.tensor(a) for a in arguments]
vm = relax.VirtualMachine(tvm.compile(Module, 'llvm'), tvm.cpu())
actual = numpy_outputs(vm["main"](*args))
try:
    assert len(actual) == 1, f"1 output(s) expected, {len(actual)} returned"
    assert (actual[0].dtype, actual[0].shape) == (expected[0].dtype, expected[0].shape), f"{expected[0].dtype}{expected[0].shape} became {actual[0].dtype}{actual[0].shape}"
    np.testing.assert_array_equal(actual[0], expected[0], err_msg='output 0')
except AssertionError as error:
    print("BUG REPRODUCES (reference-mismatch): the unoptimized module differs from numpy:", " ".join(str(error).split()))
    sys.exit(1)
print("fixed: the unoptimized module matches numpy")

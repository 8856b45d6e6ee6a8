"""passfuzz reference-mismatch-18d4cd8c20b2: reference-mismatch in the unoptimized module.

llvm: output 0 (scatter_elements, float32, shape (1, 2, 2)) of the unoptimized module differs from numpy: 1 of 4 elements differ, first at [0, 1, 0]: numpy 0.0, tvm 1.0
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
    def main(x0: R.Tensor((1, 2, 2), dtype="float32"), x1: R.Tensor((1, 2, 1), dtype="int64")) -> R.Tensor((1, 2, 2), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((1, 2, 2), dtype="float32") = R.scatter_elements(x0, x1, R.const(np.array([[[0.0], [0.0]]], dtype='float32'), 'float32'), axis=0, reduction="update")
            gv: R.Tensor((1, 2, 2), dtype="float32") = lv
            R.output(gv)
        return gv


expected = [np.array([[[0.0, 0.0], [0.0, 0.0]]], dtype='float32')]  # numpy's outputs
arguments = [
    np.array([[[0.0, 0.0], [1.0, 0.0]]], dtype='float32'),
    np.array([[[0], [0]]], dtype='int64'),
]
args = [tvm.runtime.tensor(a) for a in arguments]
vm = relax.VirtualMachine(tvm.compile(Module, 'llvm'), tvm.cpu())
actual = numpy_outputs(vm["main"](*args))
try:
    assert len(actual) == 1, f"1 output(s) expected, {len(actual)} returned"
    assert (actual[0].dtype, actual[0].shape) == (expected[0].dtype, expected[0].shape), f"{expected[0].dtype}{expected[0].shape} became {actual[0].dtype}{actual[0].shape}"
    np.testing.assert_allclose(actual[0].astype("float64"), expected[0].astype("float64"), rtol=0.001, atol=0.004000004, equal_nan=True, err_msg='output 0')
except AssertionError as error:
    print("BUG REPRODUCES (reference-mismatch): the unoptimized module differs from numpy:", " ".join(str(error).split()))
    sys.exit(1)
print("fixed: the unoptimized module matches numpy")

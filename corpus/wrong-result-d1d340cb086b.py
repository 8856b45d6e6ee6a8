"""passfuzz wrong-result-d1d340cb086b: wrong-result after FoldBatchnormToConv2D on llvm.

llvm: output 0 (float32, shape (1, 2, 3, 2)): 6 of 12 elements differ, first at [0, 0, 0, 1]: original 1.0, optimized 0.0
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
    def main(x0: R.Tensor((1, 2, 3, 2), dtype="float32")) -> R.Tensor((1, 2, 3, 2), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((1, 2, 3, 2), dtype="float32") = R.nn.conv2d(x0, R.const(np.array([[[[0.0]], [[0.0]]], [[[0.0]], [[0.0]]]], dtype='float32'), 'float32'), strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv1: R.Tuple(R.Tensor((1, 2, 3, 2), dtype="float32"), R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32")) = R.nn.batch_norm(lv, R.const(np.array([0.0, 0.0], dtype='float32'), 'float32'), R.const(np.array([0.0, 1.0], dtype='float32'), 'float32'), R.const(np.array([0.0, 0.0], dtype='float32'), 'float32'), R.const(np.array([0.0, 0.0], dtype='float32'), 'float32'), axis=3, epsilon=1.0000000000000001e-05, center=True, scale=True, momentum=0.10000000000000001, training=False)
            lv2: R.Tensor((1, 2, 3, 2), dtype="float32") = lv1[0]
            gv: R.Tensor((1, 2, 3, 2), dtype="float32") = lv2
            R.output(gv)
        return gv


arguments = [
    np.array([[[[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]]], dtype='float32'),
]
mod = relax.transform.FoldBatchnormToConv2D()(Module.clone())  # passes may update their input in place
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
    np.testing.assert_allclose(actual[0].astype("float64"), expected[0].astype("float64"), rtol=0.0001, atol=0.0001000002000001, equal_nan=True, err_msg='output 0')
except AssertionError as error:
    print("BUG REPRODUCES (wrong-result):", " ".join(str(error).split()))
    sys.exit(1)
print("fixed: the optimized module compiles, runs and matches the original")

"""passfuzz compile-error-bace971de0f7: compile-error after Gradient('main') on llvm.

error at compile:llvm in LegalizeOps: AssertionError:
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
    def main(x0: R.Tensor((2,), dtype="float64")) -> R.Tensor((), dtype="float64"):
        with R.dataflow():
            lv: R.Tensor((2, 1), dtype="float64") = R.take(x0, R.const(np.array([[-3], [-3]], dtype='int32'), 'int32'), axis=0, mode="clip")
            lv1: R.Tensor((1, 2, 1), dtype="float64") = R.expand_dims(lv, axis=[0])
            lv2: R.Tensor((1, 1, 2, 1), dtype="float64") = R.expand_dims(lv1, axis=[0])
            lv3: R.Tensor((1, 1, 1, 1), dtype="float64") = R.nn.avg_pool2d(lv2, pool_size=[2, 1], strides=[1, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=True, layout="NCHW", out_layout="NCHW")
            lv4: R.Tensor((), dtype="float64") = R.sum(lv3, axis=None, keepdims=False)
            gv: R.Tensor((), dtype="float64") = lv4
            R.output(gv)
        return gv


arguments = [np.array([0.0, 0.0], dtype='float64')]
mod = relax.transform.Gradient('main')(Module.clone())  # passes may update their input in place
try:
    executable = tvm.compile(mod, 'llvm')
except Exception as error:
    print(f"BUG REPRODUCES (compile-error): {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
args = [tvm.runtime.tensor(a) for a in arguments]
vm = relax.VirtualMachine(executable, tvm.cpu())
actual = numpy_outputs(vm["main_adjoint"](*args))
loss, *gradients = actual
expected_loss, loss_error = 0.0, 2.800014000028e-13  # numpy's loss, in float64
expected = [np.array([1.0, 0.0], dtype='float64')]  # central differences of numpy's loss, step 0.0001
allowed = [np.array([1.0128000140000279e-06, 1.2800014000028e-08], dtype='float64')]  # their truncation and rounding error
try:
    assert abs(loss - expected_loss) <= loss_error, f"loss {float(loss)!r}, expected {expected_loss!r}"
    assert len(gradients) == len(expected), f"{len(gradients)} gradients for {len(expected)} parameters"
    for k, (got, want, error) in enumerate(zip(gradients, expected, allowed)):
        assert got.shape == want.shape and (abs(got - want) <= error).all(), \
            f"gradient {k}: got {got.tolist()}, expected {want.tolist()} (allowed error {error.max():.3g})"
except AssertionError as error:
    print("changed (wrong-result, not compile-error): main_adjoint:", " ".join(str(error).split()))
    sys.exit(125)
print("fixed: main_adjoint's loss and gradients match central differences of numpy's loss")

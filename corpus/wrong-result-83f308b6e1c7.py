"""passfuzz wrong-result-83f308b6e1c7: wrong-result after Gradient('main') on llvm.

llvm: main_adjoint: gradient 1: shape (), got (2, 2, 3); node 3 (where) shows it alone
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # again: import tvm wrapped it


def numpy_outputs(value):
    """The VM's result (tensors, R.Shape values as int64, nested tuples of them) as flat numpy arrays."""
    if hasattr(value, "numpy") or isinstance(value, tvm.runtime.ShapeTuple):
        return [value.numpy() if hasattr(value, "numpy") else np.array(list(value), dtype="int64")]
    return [array for item in value for array in numpy_outputs(item)]


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((2, 2, 3), dtype="float64"), x2: R.Tensor((), dtype="float64")) -> R.Tensor((), dtype="float64"):
        with R.dataflow():
            lv: R.Tensor((2, 2, 3), dtype="float64") = R.where(R.const(False, "bool"), x0, x2)
            lv1: R.Tensor((), dtype="float64") = R.sum(lv, axis=None, keepdims=False)
            gv: R.Tensor((), dtype="float64") = lv1
            R.output(gv)
        return gv


arguments = [
    np.array([[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]], dtype='float64'),
    np.array(0.0, dtype='float64'),
]
mod = relax.transform.Gradient('main')(Module.clone())  # passes may update their input in place
executable = tvm.compile(mod, 'llvm')
args = [tvm.runtime.tensor(a) for a in arguments]
vm = relax.VirtualMachine(executable, tvm.cpu())
actual = numpy_outputs(vm["main_adjoint"](*args))
loss, *gradients = actual
expected_loss, loss_error = 0.0, 1.9200038400019197e-12  # numpy's loss, in float64
expected = [
    np.array([[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]], dtype='float64'),
    np.array(12.0, dtype='float64'),
]  # central differences of numpy's loss, step 0.0001
allowed = [
    np.array([[[1.392000384000192e-07, 1.392000384000192e-07, 1.392000384000192e-07], [1.392000384000192e-07, 1.392000384000192e-07, 1.392000384000192e-07]], [[1.392000384000192e-07, 1.392000384000192e-07, 1.392000384000192e-07], [1.392000384000192e-07, 1.392000384000192e-07, 1.392000384000192e-07]]], dtype='float64'),
    np.array(1.213920003840002e-05, dtype='float64'),
]  # their truncation and rounding error
try:
    assert abs(loss - expected_loss) <= loss_error, f"loss {float(loss)!r}, expected {expected_loss!r}"
    assert len(gradients) == len(expected), f"{len(gradients)} gradients for {len(expected)} parameters"
    for k, (got, want, error) in enumerate(zip(gradients, expected, allowed)):
        assert got.shape == want.shape and (abs(got - want) <= error).all(), \
            f"gradient {k}: got {got.tolist()}, expected {want.tolist()} (allowed error {error.max():.3g})"
except AssertionError as error:
    print("BUG REPRODUCES (wrong-result): main_adjoint:", error)
    sys.exit(1)
print("fixed: main_adjoint's loss and gradients match central differences of numpy's loss")

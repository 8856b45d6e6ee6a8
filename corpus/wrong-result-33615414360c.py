"""passfuzz wrong-result-33615414360c: wrong-result after Gradient('main') on llvm.

llvm: main_adjoint: gradient 0: 1 of 1 elements differ from central differences, first at [0]: got 1.0, expected 0.0 (allowed error 1.2e-09)
Exits 1 while the bug reproduces, 0 once it is fixed.
"""
import sys

import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


STEP = 1e-4  # absolute: arguments are drawn within [-16, 16]
RTOL = 1e-6
SCALE_RTOL = 1e-8


def central_differences(f, args, step):
    """For each argument, the array of (f(x + step) - f(x - step)) / (2 step) per element;
    ``f`` maps a list of float64 arrays to a float."""
    def moved(k, j, delta):  # f with element j of argument k moved by delta
        arrays = [a.copy() for a in args]
        arrays[k].reshape(-1)[j] += delta
        return float(f(arrays))
    return [np.array([(moved(k, j, step) - moved(k, j, -step)) / (2 * step) for j in range(arg.size)],
                     dtype="float64").reshape(arg.shape) for k, arg in enumerate(args)]


def gradient_mismatch(f, args, loss, grads, noise):
    """'' when ``loss`` equals f(args) and each of ``grads`` (one array per argument) equals the
    central differences of ``f`` within the tolerance above; otherwise one line saying what
    differs. ``noise`` bounds the absolute rounding error of one evaluation of ``f``."""
    args = [np.asarray(a, dtype="float64") for a in args]
    want_loss = float(f(args))
    if not abs(float(loss) - want_loss) <= noise + RTOL * abs(want_loss):
        return f"loss {float(loss)!r}, expected {want_loss!r}"
    if len(grads) != len(args):
        return f"{len(grads)} gradients for {len(args)} parameters"
    fine = central_differences(f, args, STEP)
    coarse = central_differences(f, args, 2 * STEP)
    scale = max([0.0] + [float(np.abs(g).max()) for g in fine if g.size])
    for k, (got, want, other) in enumerate(zip(grads, fine, coarse)):
        got = np.asarray(got)
        if got.shape != want.shape:
            return f"gradient {k}: shape {want.shape}, got {got.shape}"
        allowed = np.abs(want - other) + noise / STEP + RTOL * np.abs(want) + SCALE_RTOL * scale
        bad = ~(np.abs(got.astype("float64") - want) <= allowed)  # NaN counts as bad
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            return (f"gradient {k}: {int(bad.sum())} of {bad.size} elements differ from central differences, "
                    f"first at {list(where)}: got {got[where].item()!r}, expected {want[where].item()!r} "
                    f"(allowed error {allowed[where].item():.3g})")
    return ""


def numpy_outputs(value):
    """The VM's result (a tensor or nested tuples of tensors) as a flat list of numpy arrays."""
    if hasattr(value, "numpy"):
        return [value.numpy()]
    return [array for item in value for array in numpy_outputs(item)]


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((1,), dtype="float64")) -> R.Tensor((), dtype="float64"):
        with R.dataflow():
            lv: R.Tensor((1,), dtype="float64") = R.cumsum(x0, axis=None, dtype=None, exclusive=True)
            lv1: R.Tensor((), dtype="float64") = R.sum(lv, axis=None, keepdims=False)
            gv: R.Tensor((), dtype="float64") = lv1
            R.output(gv)
        return gv


arguments = [np.array([0.0], dtype='float64')]
try:  # the optimized module first: compiling the original first can hide a bug
    mod = relax.transform.Gradient('main')(Module.clone())  # passes may update their input in place
    executable = tvm.compile(mod, 'llvm')
    args = [tvm.runtime.tensor(a) for a in arguments]
    vm = relax.VirtualMachine(executable, tvm.cpu())
    actual = numpy_outputs(vm["main_adjoint"](*args))
    loss, *gradients = actual
except Exception as error:
    print(f"BUG REPRODUCES (wrong-result): {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
vm = relax.VirtualMachine(tvm.compile(Module, 'llvm'), tvm.cpu())
main = lambda arrays: float(vm["main"](*[tvm.runtime.tensor(a) for a in arrays]).numpy())
problem = gradient_mismatch(main, arguments, loss, gradients, 1.2e-13)  # central differences
if problem:
    print("BUG REPRODUCES (wrong-result): main_adjoint:", problem)
    sys.exit(1)
print("fixed: main_adjoint's loss and gradients match central differences of main")

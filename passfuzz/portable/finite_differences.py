"""Checking gradients against central finite differences, in float64 (numpy only).

This module imports nothing but numpy. The oracle (passfuzz.judge.gradient) calls
``gradient_mismatch``; a gradient reproducer holds what ``expected_gradients`` gave for its
arguments (the loss, the differences and the error allowed each), inline, and the same
comparison written out, so a script judges a gradient exactly as the run that found the bug did.

Why the tolerance is what it is. Both sides are float64 (passfuzz differentiates the float64
twin of a float32 Program, see passfuzz.judge.gradient), so the gradient under test and each
evaluation of the loss carry only float64 rounding. The central difference
``D(h) = (f(x+h) - f(x-h)) / 2h`` then errs in two ways:

- truncation, ``h**2 f'''/6``: estimated from the same differences at twice the step, since
  ``D(2h) - D(h)`` is three times the truncation error of ``D(h)``; the whole of it (three times
  the estimate) is allowed;
- rounding: ``noise / h``, where ``noise`` bounds the absolute rounding error of one evaluation
  of the loss (the caller derives it from the static bound of every intermediate value, which is
  what a cancellation can leave), and that term also covers the rounding of the gradient itself.

On top of these, ``RTOL`` relative to the expected partial derivative and ``SCALE_RTOL``
relative to the largest one. A wrong gradient formula (a factor, a sign, a missing term, a
wrong axis) errs by the size of the gradient, orders of magnitude beyond all of these.
"""

import numpy as np

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


def expected_gradients(f, args, noise):
    """(f(args), the error allowed it, the central differences of ``f`` per argument, the error
    allowed each element): what a loss and its gradients are held to, by the tolerance above.
    ``noise`` bounds the absolute rounding error of one evaluation of ``f``."""
    args = [np.asarray(a, dtype="float64") for a in args]
    want_loss = float(f(args))
    fine = central_differences(f, args, STEP)
    coarse = central_differences(f, args, 2 * STEP)
    scale = max([0.0] + [float(np.abs(g).max()) for g in fine if g.size])
    allowed = [np.abs(want - other) + noise / STEP + RTOL * np.abs(want) + SCALE_RTOL * scale
               for want, other in zip(fine, coarse)]
    return want_loss, noise + RTOL * abs(want_loss), fine, allowed


def gradient_mismatch(f, args, loss, grads, noise):
    """'' when ``loss`` equals f(args) and each of ``grads`` (one array per argument) equals the
    central differences of ``f`` within the tolerance above; otherwise one line saying what
    differs. ``noise`` bounds the absolute rounding error of one evaluation of ``f``."""
    want_loss, loss_allowed, fine, allowed = expected_gradients(f, args, noise)
    if not abs(float(loss) - want_loss) <= loss_allowed:
        return f"loss {float(loss)!r}, expected {want_loss!r}"
    if len(grads) != len(args):
        return f"{len(grads)} gradients for {len(args)} parameters"
    for k, (got, want, error) in enumerate(zip(grads, fine, allowed)):
        got = np.asarray(got)
        if got.shape != want.shape:
            return f"gradient {k}: shape {want.shape}, got {got.shape}"
        bad = ~(np.abs(got.astype("float64") - want) <= error)  # NaN counts as bad
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            return (f"gradient {k}: {int(bad.sum())} of {bad.size} elements differ from central differences, "
                    f"first at {list(where)}: got {got[where].item()!r}, expected {want[where].item()!r} "
                    f"(allowed error {error[where].item():.3g})")
    return ""

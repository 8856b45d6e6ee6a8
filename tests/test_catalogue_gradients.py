"""The backward ops of relax.grad (nll_loss_backward in catalogue/nn.py, take_backward in
catalogue/indexing.py): each reference is the
vector-Jacobian product of its forward op's reference, checked here against central finite
differences of that reference, and the forward op's operand rules hold for the backward too."""

import numpy as np
import pytest

from passfuzz.ir.catalogue.base import OpError
from passfuzz.portable.finite_differences import STEP, central_differences

from .catalogue_support import F, approx, infer, ref


def vjp_by_finite_differences(forward, x, output_grad):
    """sum(output_grad * d forward / d x) for each element of x, by central differences."""
    return central_differences(lambda a: np.sum(output_grad * forward(a[0])), [x], STEP)[0]


@pytest.mark.parametrize("reduction, ignore_index, weighted", [
    ("mean", -1, True), ("mean", -100, False), ("sum", 1, True), ("none", 2, True), ("none", -1, False)])
def test_nll_loss_backward_is_the_gradient_of_nll_loss(reduction, ignore_index, weighted):
    rng = np.random.default_rng(0)
    x = rng.uniform(-4, 4, (2, 3, 4)).astype("float64")
    t = np.array([[0, 1, 2, 1], [2, 2, 0, 1]], "int64")
    w = [np.array([0.5, 2.0, 1.0])] if weighted else []
    grad = np.asarray(rng.uniform(-2, 2, t.shape if reduction == "none" else ()))
    attrs = {"reduction": reduction, "ignore_index": ignore_index}
    expected = vjp_by_finite_differences(lambda p: ref("nll_loss", p, t, *w, **attrs), x, grad)
    np.testing.assert_allclose(ref("nll_loss_backward", grad, x, t, *w, **attrs), expected, rtol=1e-6, atol=1e-9)


def test_nll_loss_backward_without_a_batch_is_the_gradient_too():
    x, t, w, grad = np.array([1.0, -2.0, 3.0, 0.5]), np.array(2), np.array([1.0, 2.0, 0.5, 4.0]), np.array(1.5)
    attrs = {"reduction": "mean", "ignore_index": -1}
    expected = vjp_by_finite_differences(lambda p: ref("nll_loss", p, t, w, **attrs), x, grad)
    np.testing.assert_allclose(ref("nll_loss_backward", grad, x, t, w, **attrs), expected, rtol=1e-6)
    assert ref("nll_loss_backward", grad, x, t, w, **attrs).tolist() == [0, 0, -1.5, 0]  # w[2] / w[2]


def test_nll_loss_backward_keeps_the_forward_rules_and_takes_output_grad_of_its_result_shape():
    x, t, w = F((2, 3)), F((2,), 0, 2, "int64"), F((3,), 0.5, 2)
    mean = {"reduction": "mean", "ignore_index": -1}
    g = infer("nll_loss_backward", F(()), x, t, w, **mean)
    assert g.shape == (2, 3) and g.lo <= 0 <= g.hi and max(-g.lo, g.hi) <= 4 * 1.001  # a factor in (0, 1]
    assert infer("nll_loss_backward", F((2,)), x, t, reduction="none", ignore_index=1).shape == (2, 3)
    # weights longer than the classes, as Relax's type rule allows: the kernel reads weights[t] only
    assert infer("nll_loss_backward", F(()), x, t, F((4,), 0.5, 2), **mean).shape == (2, 3)
    with pytest.raises(OpError, match="operand 2"):  # a target out of the classes, named as our operand
        infer("nll_loss_backward", F(()), x, F((2,), 0, 3, "int64"), w, reduction="sum", ignore_index=-1)
    with pytest.raises(OpError):  # every target may be ignored: the mean divides by 0
        infer("nll_loss_backward", F(()), x, t, w, reduction="mean", ignore_index=1)
    with pytest.raises(OpError, match="result shape"):
        infer("nll_loss_backward", F((2,)), x, t, w, **mean)


def test_take_backward_is_the_gradient_of_take_and_sums_a_repeated_index():
    rng = np.random.default_rng(1)
    x = rng.uniform(-4, 4, (3, 4, 2))
    indices = np.array([1, 3, 1], "int32")
    grad = rng.uniform(-2, 2, (3, 3, 2))
    expected = vjp_by_finite_differences(lambda d: np.take(d, indices, axis=1), x, grad)
    got = ref("take_backward", grad, x, indices, axis=1)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(got[:, 1], grad[:, 0] + grad[:, 2])
    assert not got[:, [0, 2]].any()


def test_take_backward_takes_in_range_1d_indices_and_a_non_negative_axis():
    grad, x = F((3, 2)), F((3, 4))
    r = infer("take_backward", grad, x, F((2,), 0, 3, "int32"), axis=1)
    assert (r.shape, r.lo, r.hi, r.exact) == ((3, 4), approx(-8), approx(8), False)  # two slices may add up
    assert infer("take_backward", F((3, 1)), x, F((1,), 0, 3, "int64"), axis=1).exact
    for indices, axis in [(F((2,), 0, 4, "int32"), 1), (F((2,), -1, 3, "int32"), 1), (F((2,), 0, 3, "int32"), -1),
                          (F((1, 2), 0, 3, "int32"), 1), (F((2,), 0, 3), 1)]:
        with pytest.raises(OpError):
            infer("take_backward", grad if indices.rank == 1 else F((3, 1, 2)), x, indices, axis=axis)

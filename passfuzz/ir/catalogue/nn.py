"""Neural-network ops: normalizations, convolutions, pooling, padding, attention.

Normalizations divide by sqrt(variance + epsilon). For a near-constant row the centred values
x - mean carry a rounding error of the size of |x|, and a one-pass variance E[x^2] - E[x]^2 (a
legal way to compute it) an error of the size of n * |x|^2; divided by variance + epsilon
that error is amplified by up to n * |x|^2 / epsilon. So layer_norm and group_norm require
``ROUNDING * n * |x|^2 / epsilon * max(1, |gamma|) <= RTOL`` (``_conditioned``), and draw
epsilon from ``EPSILONS``: the smallest that satisfies it, or a larger one. rms_norm and
batch_norm in inference mode do not cancel and need no such rule; batch_norm in training mode
normalizes with batch statistics and takes layer_norm's rule.
"""

from __future__ import annotations

import itertools
import math
import re

import numpy as np

from passfuzz.ir.program import numpy_dtype

from .base import (
    DTYPES,
    FLOATS,
    NUMERIC,
    ROUNDING,
    RTOL,
    Chooser,
    OpDef,
    OpError,
    Sketch,
    ValueInfo,
    checked,
    is_int,
    normalize_axis,
    operand,
    pick,
    probe,
    representable,
    require,
    smooth,
    valid,
    whole_tuple,
)
from .linalg import OUT_DTYPES, out_dtype_of, product_range

EPSILONS = (1e-5, 1e-3, 0.1, 1.0, 10.0, 100.0, 1000.0)


# -- shared helpers ---------------------------------------------------------------------------------

def _weight(sketch: Sketch, choose: Chooser, shape, dtype: str, lo: float, hi: float, accept=lambda i: True) -> int:
    """A weight-like operand: an existing value of that shape and dtype, or a new weight
    parameter (or constant) with elements in [lo, hi]."""
    shape = tuple(shape)
    existing = sketch.candidates(lambda i: i.shape == shape and i.dtype == dtype and accept(i))
    source = choose.choice([*existing, "weight", "const"])
    if source == "weight":
        return sketch.add_param(shape, dtype, lo, hi, "weight")
    if source == "const":
        return sketch.add_const(shape, dtype, lo, hi)
    return source


def _lift(sketch: Sketch, x: int, rank: int) -> int:
    """``x`` with leading dims of 1 (expand_dims) up to ``rank``."""
    while sketch.infos[x].rank < rank:
        x = sketch.add("expand_dims", [x], {"axis": 0})
    return x


def _lifted(info: ValueInfo, rank: int) -> ValueInfo:
    shape = (1,) * (rank - info.rank) + info.shape
    return ValueInfo(shape, info.dtype, info.lo, info.hi, info.exact)


def _liftable(info: ValueInfo, rank: int) -> bool:
    """Ranks an op lifts to ``rank`` (at most two leading dims of 1, never from a scalar)."""
    return info.rank >= 1 and rank - 2 <= info.rank <= rank


def _ints(values, length: int, name: str, low: int) -> list[int]:
    require(isinstance(values, list) and len(values) == length and
            all(isinstance(v, int) and not isinstance(v, bool) and v >= low for v in values),
            f"{name} must be {length} integers >= {low}")
    return values


def _acc(dtype: str) -> str:
    return "int64" if is_int(dtype) else "float64"


# -- layer_norm / group_norm / rms_norm ----------------------------------------------------------------

def _conditioned(x: ValueInfo, n: int, eps: float, gamma: float) -> None:
    require(isinstance(eps, float) and eps > 0, "epsilon must be a positive float")
    amplification = n * x.magnitude ** 2 / eps * max(1.0, gamma)
    require(ROUNDING[x.dtype] * amplification <= RTOL[x.dtype],
            f"normalizing {n} values of magnitude {x.magnitude:g} with epsilon {eps:g} amplifies rounding "
            f"by {amplification:g}: a legal rewrite could exceed the {x.dtype} tolerance")


def _moment_sums(x: ValueInfo, n: int) -> None:
    """The sum and the sum of squares over n elements stay representable in x's dtype."""
    checked((), x.dtype, -n * x.magnitude, n * x.magnitude, True)
    checked((), x.dtype, 0.0, n * x.magnitude ** 2, True)


def _affine(x: ValueInfo, gamma: ValueInfo, beta: ValueInfo | None, n: int, eps: float, centred: bool):
    """Range of normalized * gamma + beta: |x - mean| / sqrt(var + eps) <= sqrt(n - 1)
    (Samuelson) and <= (hi - lo) / sqrt(eps); without centring |x| / sqrt(mean(x^2) + eps)
    <= sqrt(n) and <= |x| / sqrt(eps)."""
    if centred:
        r = min(math.sqrt(n - 1), (x.hi - x.lo) / math.sqrt(eps))
    else:
        r = min(math.sqrt(n), x.magnitude / math.sqrt(eps))
    g = r * gamma.magnitude
    lo, hi = (-g + beta.lo, g + beta.hi) if beta is not None else (-g, g)
    return lo, hi


# TOPI's layer_norm and group_norm take float32 and float16 only (float64: the known fault
# topi-layer-group-norm-reject-float64, a plain build that fails tests no pass; see excluded.py).
NORM_DTYPES = ("float32", "float16")


def _float_operands(args: list[ValueInfo], name: str, dtypes: tuple[str, ...] = FLOATS) -> None:
    require(args[0].dtype in dtypes, f"{name} is drawn for floats only ({', '.join(dtypes)})")
    require(all(a.dtype == args[0].dtype for a in args), f"{name}'s operands must share a dtype")


def _layer_norm_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 3 and set(attrs) == {"axes", "epsilon"}, "layer_norm takes (x, gamma, beta), axes, epsilon")
    x, gamma, beta = args
    _float_operands(args, "layer_norm", NORM_DTYPES)
    require(x.rank >= 1 and isinstance(attrs["axes"], list) and attrs["axes"], "layer_norm needs axes")
    axes = sorted(normalize_axis(a, x.rank) for a in attrs["axes"])
    require(len(set(axes)) == len(axes), "repeated axis")
    shape = tuple(x.shape[a] for a in axes)
    require(gamma.shape == shape and beta.shape == shape, f"gamma and beta must have shape {shape}")
    n = int(np.prod(shape))
    _moment_sums(x, n)
    _conditioned(x, n, attrs["epsilon"], gamma.magnitude)
    return checked(x.shape, x.dtype, *_affine(x, gamma, beta, n, attrs["epsilon"], True), False)


def _param_shape(x: np.ndarray, axes) -> list[int]:
    return [x.shape[i] if i in axes else 1 for i in range(x.ndim)]


def _layer_norm_ref(args, attrs):
    x, gamma, beta = args
    axes = tuple(sorted(a % x.ndim for a in attrs["axes"]))
    xf = x.astype("float64")
    centred = xf - xf.mean(axis=axes, keepdims=True)
    out = centred / np.sqrt(xf.var(axis=axes, keepdims=True) + attrs["epsilon"])
    shape = _param_shape(x, axes)
    return (out * gamma.reshape(shape) + beta.reshape(shape)).astype(x.dtype)


def _eps_options(infer, args: list[ValueInfo], attrs: dict) -> list[float]:
    return [e for e in EPSILONS if valid(infer, args, {**attrs, "epsilon": e})]


def _norm_accepts(info: ValueInfo) -> bool:
    return info.dtype in NORM_DTYPES and info.rank >= 1 and \
        bool(_eps_options(_layer_norm_infer, [info, probe(info, -1, 1, (info.shape[-1],)),
                                              probe(info, -1, 1, (info.shape[-1],))], {"axes": [-1]}))


def _gamma_range(choose: Chooser, ok) -> tuple[float, float]:
    options = [r for r in [(-4.0, 4.0), (0.5, 2.0), (-1.0, 1.0)] if ok(r)]
    return choose.choice(options or [(-1.0, 1.0)])


def _layer_norm_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _norm_accepts)
    info = sketch.infos[x]
    subsets = [list(c) for k in range(1, info.rank + 1) for c in itertools.combinations(range(info.rank), k)]
    trailing = [list(range(k, info.rank)) for k in range(info.rank - 1, -1, -1)]

    def ok(axes, grange=(-1.0, 1.0)):
        shape = tuple(info.shape[a] for a in axes)
        return bool(_eps_options(_layer_norm_infer, [info, probe(info, *grange, shape), probe(info, *grange, shape)],
                                 {"axes": axes}))

    axes = choose.choice([a for a in trailing + [s for s in subsets if s not in trailing] if ok(a)])
    if choose.boolean():
        axes = [a - info.rank for a in axes]
    shape = tuple(info.shape[a] for a in axes)
    grange = _gamma_range(choose, lambda r: ok(axes, r))
    fresh = probe(info, -1, 1, shape)
    gamma = _weight(sketch, choose, shape, info.dtype, *grange, accept=lambda g: g.magnitude <= 4 and bool(
        _eps_options(_layer_norm_infer, [info, g, fresh], {"axes": axes})))
    g = sketch.infos[gamma]
    beta = _weight(sketch, choose, shape, info.dtype, -1.0, 1.0, accept=lambda b: b.magnitude <= 4 and bool(
        _eps_options(_layer_norm_infer, [info, g, b], {"axes": axes})))
    args = [info, g, sketch.infos[beta]]
    eps = _eps_options(_layer_norm_infer, args, {"axes": axes})
    sketch.add("layer_norm", [x, gamma, beta], {"axes": axes, "epsilon": choose.choice(eps)})


LAYER_NORM = OpDef(
    "layer_norm", _layer_norm_infer,
    lambda R, args, at: R.op.nn.layer_norm(*args, axes=at["axes"], epsilon=at["epsilon"]),
    _layer_norm_ref, _layer_norm_propose, _norm_accepts,
    notes="Population variance. epsilon is drawn large enough that n * |x|^2 / epsilon stays small (see the "
          "module docstring): with epsilon 1e-5, a near-constant row of values near 4 differs by ~1e-2 "
          "between two legal float32 computations, so such inputs are never drawn with a small epsilon.")


def _rms_norm_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 2 and set(attrs) == {"axes", "epsilon"}, "rms_norm takes (x, weight), axes, epsilon")
    x, w = args
    # float64 too, although TOPI computes it in float32: the reference oracle reports the known
    # fault topi-rms-norm-float64-computed-in-float32, and notices when it is fixed.
    _float_operands(args, "rms_norm")
    require(x.rank >= 1 and isinstance(attrs["axes"], list) and attrs["axes"], "rms_norm needs axes")
    axes = sorted(normalize_axis(a, x.rank) for a in attrs["axes"])
    require(axes == list(range(x.rank - len(axes), x.rank)) and len(axes) < x.rank,
            "rms_norm axes must be trailing and leave a leading axis (others fail in TVM's legalization)")
    eps = attrs["epsilon"]
    require(isinstance(eps, float) and eps > 0, "epsilon must be a positive float")
    shape = tuple(x.shape[a] for a in axes)
    require(w.shape == shape, f"weight must have shape {shape}")
    n = int(np.prod(shape))
    _moment_sums(x, n)
    return checked(x.shape, x.dtype, *_affine(x, w, None, n, eps, False), False)


def _rms_norm_ref(args, attrs):
    x, w = args
    axes = tuple(sorted(a % x.ndim for a in attrs["axes"]))
    xf = x.astype("float64")
    out = xf / np.sqrt((xf * xf).mean(axis=axes, keepdims=True) + attrs["epsilon"])
    return (out * w.reshape(_param_shape(x, axes))).astype(x.dtype)


def _rms_accepts(info: ValueInfo) -> bool:
    return info.dtype in FLOATS and info.rank >= 2 and \
        valid(_rms_norm_infer, [info, probe(info, -1, 1, (info.shape[-1],))], {"axes": [-1], "epsilon": 1e-5})


def _rms_norm_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _rms_accepts)
    info = sketch.infos[x]
    options = [list(range(k, info.rank)) for k in range(info.rank - 1, 0, -1)]
    options = [a for a in options if valid(_rms_norm_infer, [info, probe(info, -1, 1, tuple(info.shape[i] for i in a))],
                                           {"axes": a, "epsilon": 1e-5})]
    axes = choose.choice(options)
    if choose.boolean():
        axes = [a - info.rank for a in axes]
    shape = tuple(info.shape[a] for a in axes)
    w = _weight(sketch, choose, shape, info.dtype, *choose.choice([(-4.0, 4.0), (0.5, 2.0)]),
                accept=lambda i: i.magnitude <= 4)
    sketch.add("rms_norm", [x, w], {"axes": axes, "epsilon": choose.choice([1e-5, 1e-3, 1.0])})


RMS_NORM = OpDef("rms_norm", _rms_norm_infer,
                 lambda R, args, at: R.op.nn.rms_norm(*args, axes=at["axes"], epsilon=at["epsilon"]),
                 _rms_norm_ref, _rms_norm_propose, _rms_accepts,
                 notes="x / sqrt(mean(x^2) + eps) * weight. Only trailing axes that leave a leading axis: axes=[0, 2] "
                       "of a 3-D tensor, or all the axes (e.g. [0] of a 1-D tensor), fail in TVM's legalization "
                       "(InternalError, 'Tensor dimension mismatch'). float64 is drawn although TVM computes it in "
                       "float32 (~1e-8 relative): the reference oracle reports that known fault "
                       "(topi-rms-norm-float64-computed-in-float32).")


def _group_axes(x: ValueInfo, channel_axis) -> tuple[int, list[int]]:
    require(x.rank >= 2, "group_norm needs rank >= 2")
    c = normalize_axis(channel_axis, x.rank)
    require(c != 0, "group_norm's channel axis must not be the batch axis")
    return c, [a for a in range(1, x.rank) if a != c]


def _group_norm_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 3 and set(attrs) == {"num_groups", "channel_axis", "axes", "epsilon"},
            "group_norm takes (x, gamma, beta), num_groups, channel_axis, axes, epsilon")
    x, gamma, beta = args
    _float_operands(args, "group_norm", NORM_DTYPES)
    c, rest = _group_axes(x, attrs["channel_axis"])
    require(isinstance(attrs["axes"], list) and sorted(normalize_axis(a, x.rank) for a in attrs["axes"]) == rest,
            "group_norm's axes are drawn as every axis but batch and channel")
    groups = attrs["num_groups"]
    channels = x.shape[c]
    require(isinstance(groups, int) and groups >= 1 and channels % groups == 0, "num_groups must divide the channels")
    require(gamma.shape == (channels,) and beta.shape == (channels,), "gamma and beta must have shape (channels,)")
    n = channels // groups * int(np.prod([x.shape[a] for a in rest]))
    _moment_sums(x, n)
    _conditioned(x, n, attrs["epsilon"], gamma.magnitude)
    return checked(x.shape, x.dtype, *_affine(x, gamma, beta, n, attrs["epsilon"], True), False)


def _group_norm_ref(args, attrs):
    x, gamma, beta = args
    c = attrs["channel_axis"] % x.ndim
    xs = np.moveaxis(x.astype("float64"), c, 1)
    shape = xs.shape
    grouped = xs.reshape(shape[0], attrs["num_groups"], shape[1] // attrs["num_groups"], *shape[2:])
    axes = tuple(range(2, grouped.ndim))
    centred = grouped - grouped.mean(axis=axes, keepdims=True)
    out = (centred / np.sqrt(grouped.var(axis=axes, keepdims=True) + attrs["epsilon"])).reshape(shape)
    pshape = [1] * len(shape)
    pshape[1] = shape[1]
    out = out * gamma.reshape(pshape) + beta.reshape(pshape)
    return np.moveaxis(out, 1, c).astype(x.dtype)


def _group_options(info: ValueInfo, grange=(-1.0, 1.0)) -> list[tuple[int, int, list[float]]]:
    """(channel_axis, num_groups, epsilons) choices for which fresh gamma/beta in grange work."""
    out = []
    for c in range(1, info.rank):
        rest = [a for a in range(1, info.rank) if a != c]
        for g in range(1, info.shape[c] + 1):
            if info.shape[c] % g:
                continue
            params = [info, probe(info, *grange, (info.shape[c],)), probe(info, *grange, (info.shape[c],))]
            eps = _eps_options(_group_norm_infer, params, {"num_groups": g, "channel_axis": c, "axes": rest})
            if eps:
                out.append((c, g, eps))
    return out


def _group_accepts(info: ValueInfo) -> bool:
    return info.dtype in NORM_DTYPES and info.rank >= 2 and bool(_group_options(info))


def _group_norm_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _group_accepts)
    info = sketch.infos[x]
    c, groups, _ = choose.choice(_group_options(info))
    rest = [a for a in range(1, info.rank) if a != c]
    attrs = {"num_groups": groups, "channel_axis": c, "axes": rest}
    shape = (info.shape[c],)
    grange = _gamma_range(choose, lambda r: bool(_eps_options(
        _group_norm_infer, [info, probe(info, *r, shape), probe(info, *r, shape)], attrs)))
    fresh = probe(info, -1, 1, shape)
    gamma = _weight(sketch, choose, shape, info.dtype, *grange, accept=lambda g: g.magnitude <= 4 and bool(
        _eps_options(_group_norm_infer, [info, g, fresh], attrs)))
    g = sketch.infos[gamma]
    beta = _weight(sketch, choose, shape, info.dtype, -1.0, 1.0, accept=lambda b: b.magnitude <= 4 and bool(
        _eps_options(_group_norm_infer, [info, g, b], attrs)))
    eps = _eps_options(_group_norm_infer, [info, g, sketch.infos[beta]], attrs)
    sketch.add("group_norm", [x, gamma, beta], {**attrs, "epsilon": choose.choice(eps)})


GROUP_NORM = OpDef(
    "group_norm", _group_norm_infer,
    lambda R, args, at: R.op.nn.group_norm(*args, num_groups=at["num_groups"], channel_axis=at["channel_axis"],
                                           axes=at["axes"], epsilon=at["epsilon"]),
    _group_norm_ref, _group_norm_propose, _group_accepts,
    notes="Normalizes each group of channels over every other non-batch axis (the only axes drawn). "
          "epsilon is drawn as for layer_norm.")

# -- prelu ---------------------------------------------------------------------------------------------


PRELU_DTYPES = ("float32", "float16", "float64")  # bfloat16: "Prelu requires the input tensor to have float dtype"


def _prelu_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 2 and set(attrs) == {"axis"}, "prelu takes (x, alpha) and axis")
    x, alpha = args
    require(x.dtype in PRELU_DTYPES and alpha.dtype == x.dtype, "prelu takes float32 or float16 operands of one dtype")
    require(x.rank >= 1, "prelu needs rank >= 1")
    axis = normalize_axis(attrs["axis"], x.rank)
    require(alpha.shape in ((x.shape[axis],), (1,)), "alpha must be (channels,) or (1,), one slope for all")
    ends = [max(x.lo, 0.0), max(x.hi, 0.0)]  # the positive part passes unchanged
    if x.lo < 0:  # the negative part is scaled by its channel's alpha
        ends += [n * a for n in (x.lo, min(x.hi, 0.0)) for a in (alpha.lo, alpha.hi)]
    return checked(x.shape, x.dtype, min(ends), max(ends), x.exact and x.lo >= 0)


def _prelu_ref(args, attrs):
    x, alpha = args
    shape = [1] * x.ndim
    shape[attrs["axis"] % x.ndim] = -1
    wide = x.astype("float64")
    return np.where(wide > 0, wide, wide * alpha.astype("float64").reshape(shape)).astype(x.dtype)


_prelu_accepts = lambda info: info.dtype in PRELU_DTYPES and info.rank >= 1  # noqa: E731


def _prelu_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _prelu_accepts)
    info = sketch.infos[x]
    axis = choose.choice([1 % info.rank, *range(info.rank)])
    alpha = _weight(sketch, choose, choose.choice([(info.shape[axis],), (1,)]), info.dtype,
                    *choose.choice([(0.0, 0.5), (-1.0, 1.0)]),
                    accept=lambda i: valid(_prelu_infer, [info, i], {"axis": axis}))
    sketch.add("prelu", [x, alpha], {"axis": axis})


PRELU = OpDef(
    "prelu", _prelu_infer, lambda R, args, at: R.op.nn.prelu(args[0], args[1], axis=at["axis"]),
    _prelu_ref, _prelu_propose, _prelu_accepts,
    notes="x where x > 0, else alpha[c] * x, c the index along axis (PyTorch's PReLU, ONNX's PRelu); an alpha "
          "of shape (1,) is one slope for every channel. bfloat16 is rejected by TVM's type rule: not drawn.")

# -- dropout ------------------------------------------------------------------------------------------
# Relax's dropout is inference only: legalized to the identity and an all-ones mask whatever the
# rate (legalize_ops/nn.py, _nn_dropout); every classification network exported for inference holds it.


def _dropout_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and set(attrs) == {"rate", "index"}, "dropout takes one operand, rate and index")
    (x,) = args
    require(x.dtype in FLOATS, "dropout takes a float tensor")
    rate = attrs["rate"]
    require(isinstance(rate, float) and 0 <= rate < 1, "rate must be a float in [0, 1)")
    require(attrs["index"] in (0, 1), "dropout's tuple has 2 fields (output, mask)")
    return x if attrs["index"] == 0 else ValueInfo(x.shape, x.dtype, 1.0, 1.0, True)


def _dropout_ref(args, attrs):
    (x,) = args
    return x.copy() if attrs["index"] == 0 else np.ones_like(x)


_dropout_accepts = lambda info: info.dtype in FLOATS  # noqa: E731


def _dropout_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _dropout_accepts)
    sketch.add("dropout", [x], {"rate": choose.choice([0.5, 0.1, 0.0]), "index": choose.choice([0, 1])})


DROPOUT = OpDef(
    "dropout", _dropout_infer,
    lambda R, args, at: R.TupleGetItem(R.op.nn.dropout(args[0], rate=at["rate"]), at["index"]),
    _dropout_ref, _dropout_propose, _dropout_accepts,
    notes="Inference semantics whatever the rate: field 0 is the operand unchanged, field 1 an all-ones mask "
          "(TVM legalizes it so). One node is dropout + TupleGetItem(index), as for split.")

# -- batch_norm (inference) ---------------------------------------------------------------------------

BATCH_NORM_DTYPES = ("float32", "float64")


def _batch_norm_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 5 and set(attrs) == {"axis", "epsilon", "index"},
            "batch_norm takes (x, gamma, beta, mean, var), axis, epsilon, index")
    x, gamma, beta, mean, var = args
    require(x.dtype in BATCH_NORM_DTYPES, "batch_norm is drawn for float32 and float64 only (float16 returns float32 in TVM)")
    require(all(a.dtype == x.dtype for a in args), "batch_norm's operands must share a dtype")
    require(x.rank >= 1, "batch_norm needs rank >= 1")
    axis = normalize_axis(attrs["axis"], x.rank)
    require(all(a.shape == (x.shape[axis],) for a in args[1:]), "gamma, beta, mean, var must be (channels,)")
    eps = attrs["epsilon"]
    require(isinstance(eps, float) and eps > 0, "epsilon must be a positive float")
    require(var.lo >= 0, "moving variance must be >= 0")
    index = attrs["index"]
    require(index in (0, 1, 2), "batch_norm's tuple has 3 fields")
    if index == 1:
        return mean
    if index == 2:
        return var
    d = (x.lo - mean.hi, x.hi - mean.lo)
    s = (1 / math.sqrt(var.hi + eps), 1 / math.sqrt(var.lo + eps))
    ds = [p * q for p in d for q in s]
    scaled = [p * q for p in (min(ds), max(ds)) for q in (gamma.lo, gamma.hi)]
    return checked(x.shape, x.dtype, min(scaled) + beta.lo, max(scaled) + beta.hi, False)


def _batch_norm_ref(args, attrs):
    x, gamma, beta, mean, var = args
    if attrs["index"]:
        return args[2 + attrs["index"]]
    shape = [1] * x.ndim
    shape[attrs["axis"] % x.ndim] = -1
    r = lambda a: a.astype("float64").reshape(shape)  # noqa: E731
    out = (x.astype("float64") - r(mean)) / np.sqrt(r(var) + attrs["epsilon"]) * r(gamma) + r(beta)
    return out.astype(x.dtype)


def _bn_accepts(info: ValueInfo) -> bool:
    c = (info.shape[0],) if info.rank else ()
    return info.dtype in BATCH_NORM_DTYPES and info.rank >= 1 and valid(
        _batch_norm_infer, [info, *(probe(info, -1, 1, c) for _ in range(2)), probe(info, -1, 1, c),
                            probe(info, 1, 2, c)], {"axis": 0, "epsilon": 1e-5, "index": 0})


def _batch_norm_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _bn_accepts)
    info = sketch.infos[x]
    axis = choose.choice([1 % info.rank, *range(info.rank)])
    c = (info.shape[axis],)
    attrs = {"axis": axis, "epsilon": choose.choice([1e-5, 1e-3]), "index": choose.choice([0, 1, 2])}

    def fits(position: int):
        def accept(i: ValueInfo) -> bool:
            args = [info, probe(info, -1, 1, c), probe(info, -1, 1, c), probe(info, -1, 1, c), probe(info, 1, 2, c)]
            args[position] = i
            return valid(_batch_norm_infer, args, {**attrs, "index": 0})
        return accept

    gamma = _weight(sketch, choose, c, info.dtype, -4.0, 4.0, fits(1))
    beta = _weight(sketch, choose, c, info.dtype, -1.0, 1.0, fits(2))
    mean = _weight(sketch, choose, c, info.dtype, -4.0, 4.0, fits(3))
    var = _weight(sketch, choose, c, info.dtype, *choose.choice([(1.0, 4.0), (0.0, 4.0)]),
                  lambda i: i.lo >= 0 and fits(4)(i))
    sketch.add("batch_norm", [x, gamma, beta, mean, var], attrs)


BATCH_NORM = OpDef(
    "batch_norm", _batch_norm_infer,
    lambda R, args, at: R.TupleGetItem(R.op.nn.batch_norm(*args, axis=at["axis"], epsilon=at["epsilon"],
                                                          training=False), at["index"]),
    _batch_norm_ref, _batch_norm_propose, _bn_accepts,
    notes="training=False: (x - moving_mean) / sqrt(moving_var + eps) * gamma + beta; fields 1 and 2 return "
          "moving_mean and moving_var unchanged. One node is batch_norm + TupleGetItem(index), as for split. "
          "float16 is not drawn: the legalized kernel returns float32 while Relax declares float16.")

# -- batch_norm (training) ----------------------------------------------------------------------------
# The statistics come from the batch: the mean and the population variance over every axis but the
# channel axis (topi/nn/batch_norm.py: sum / count, sum of squared deviations / count), so the
# output is normalized like layer_norm over those n values and needs its conditioning rule; the
# moving statistics come back updated as (1 - momentum) * moving + momentum * batch (topi, and
# decompose_ops.cc:106-107, although the op's docstring states the weights the other way round).

MOMENTA = (0.1, 0.0, 0.5, 0.9, 1.0)  # topi asserts 0 <= momentum <= 1
BN_TRAINING_ATTRS = {"axis", "epsilon", "momentum", "center", "scale", "index"}


def _batch_count(x: ValueInfo, axis: int) -> int:
    return int(np.prod([d for a, d in enumerate(x.shape) if a != axis]))


def _batch_norm_training_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 5 and set(attrs) == BN_TRAINING_ATTRS,
            "batch_norm (training) takes (x, gamma, beta, mean, var), axis, epsilon, momentum, center, scale, index")
    x, gamma, beta, mean, var = args
    require(x.dtype in BATCH_NORM_DTYPES, "batch_norm is drawn for float32 and float64 only (float16 returns float32 in TVM)")
    require(all(a.dtype == x.dtype for a in args), "batch_norm's operands must share a dtype")
    require(x.rank >= 1, "batch_norm needs rank >= 1")
    # A negative axis fails in training mode: topi's legalization removes ``axis`` itself from the
    # list of axes (list.remove raises), so even the unoptimized build cannot compute it.
    require(isinstance(attrs["axis"], int) and 0 <= attrs["axis"] < x.rank,
            "batch_norm in training mode takes a non-negative axis (topi cannot legalize a negative one)")
    axis = attrs["axis"]
    require(all(a.shape == (x.shape[axis],) for a in args[1:]), "gamma, beta, mean, var must be (channels,)")
    momentum, eps = attrs["momentum"], attrs["epsilon"]
    require(isinstance(momentum, float) and 0 <= momentum <= 1, "momentum must be a float in [0, 1]")
    require(isinstance(attrs["center"], bool) and isinstance(attrs["scale"], bool), "center and scale are bools")
    require(attrs["index"] in (0, 1, 2), "batch_norm's tuple has 3 fields")
    n = _batch_count(x, axis)
    _moment_sums(x, n)
    if attrs["index"] == 0:
        _conditioned(x, n, eps, gamma.magnitude if attrs["scale"] else 1.0)
        lo, hi = _affine(x, gamma if attrs["scale"] else probe(x, -1, 1, gamma.shape),
                         beta if attrs["center"] else None, n, eps, True)
        return checked(x.shape, x.dtype, lo, hi, False)
    if attrs["index"] == 1:
        moving, batch, error = mean, (x.lo, x.hi), n * x.magnitude
    else:  # the largest population variance of values in [lo, hi] is ((hi - lo) / 2)^2
        moving, batch, error = var, (0.0, ((x.hi - x.lo) / 2) ** 2), n * x.magnitude ** 2
    out = checked(moving.shape, x.dtype, (1 - momentum) * moving.lo + momentum * batch[0],
                  (1 - momentum) * moving.hi + momentum * batch[1], False)
    # a statistic summed in another order (a one-pass variance) errs by up to n * |x| (|x|^2) roundings
    require(momentum * ROUNDING[x.dtype] * error <= RTOL[x.dtype] * max(1.0, out.magnitude),
            f"the batch statistic of {n} values of magnitude {x.magnitude:g} may differ beyond the tolerance")
    return out


def _batch_norm_training_ref(args, attrs):
    x, gamma, beta, mean, var = (a.astype("float64") for a in args)
    axis, momentum = attrs["axis"], attrs["momentum"]
    others = tuple(a for a in range(x.ndim) if a != axis)
    batch_mean, batch_var = x.mean(axis=others), x.var(axis=others)  # population variance, as topi
    if attrs["index"] == 1:
        return ((1 - momentum) * mean + momentum * batch_mean).astype(args[0].dtype)
    if attrs["index"] == 2:
        return ((1 - momentum) * var + momentum * batch_var).astype(args[0].dtype)
    shape = [1] * x.ndim
    shape[axis] = -1
    out = (x - batch_mean.reshape(shape)) / np.sqrt(batch_var.reshape(shape) + attrs["epsilon"])
    if attrs["scale"]:
        out = out * gamma.reshape(shape)
    if attrs["center"]:
        out = out + beta.reshape(shape)
    return out.astype(args[0].dtype)


def _bn_training_options(info: ValueInfo) -> list[tuple[int, list[float]]]:
    """(axis, epsilons) for which fresh operands in [-1, 1] work on ``info``."""
    out = []
    for axis in range(info.rank):
        c = (info.shape[axis],)
        args = [info, *(probe(info, -1, 1, c) for _ in range(4))]
        eps = _eps_options(_batch_norm_training_infer, args, {"axis": axis, "momentum": 0.1, "center": True,
                                                               "scale": True, "index": 0})
        if eps:
            out.append((axis, eps))
    return out


def _bn_training_accepts(info: ValueInfo) -> bool:
    return info.dtype in BATCH_NORM_DTYPES and info.rank >= 1 and bool(_bn_training_options(info))


def _batch_norm_training_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _bn_training_accepts)
    info = sketch.infos[x]
    options = _bn_training_options(info)
    preferred = [o for o in options if o[0] == 1 % info.rank]  # the channel axis of NCHW first
    axis, _ = choose.choice(preferred + [o for o in options if o not in preferred])
    c = (info.shape[axis],)
    attrs = {"axis": axis, "momentum": choose.choice(MOMENTA), "center": choose.choice([True, False]),
             "scale": choose.choice([True, False]), "index": choose.choice([0, 1, 2])}

    def epsilons(args: list[ValueInfo]) -> list[float]:
        return _eps_options(_batch_norm_training_infer, args, attrs)

    def fits(position: int):
        def accept(i: ValueInfo) -> bool:
            args = [info, *(probe(info, -1, 1, c) for _ in range(4))]
            args[position] = i
            return i.magnitude <= 4 and bool(epsilons(args))
        return accept

    gamma = _weight(sketch, choose, c, info.dtype, *choose.choice([(-4.0, 4.0), (0.5, 2.0), (-1.0, 1.0)]), fits(1))
    beta = _weight(sketch, choose, c, info.dtype, -1.0, 1.0, fits(2))
    mean = _weight(sketch, choose, c, info.dtype, -4.0, 4.0, fits(3))
    var = _weight(sketch, choose, c, info.dtype, *choose.choice([(1.0, 4.0), (0.0, 4.0)]), fits(4))
    operands = [x, gamma, beta, mean, var]
    eps = epsilons([sketch.infos[i] for i in operands])
    require(bool(eps), "no epsilon conditions these operands")
    sketch.add("batch_norm_training", operands, {**attrs, "epsilon": choose.choice(eps)})


BATCH_NORM_TRAINING = OpDef(
    "batch_norm_training", _batch_norm_training_infer,
    lambda R, args, at: R.TupleGetItem(R.op.nn.batch_norm(*args, axis=at["axis"], epsilon=at["epsilon"],
                                                          center=at["center"], scale=at["scale"],
                                                          momentum=at["momentum"], training=True), at["index"]),
    _batch_norm_training_ref, _batch_norm_training_propose, _bn_training_accepts,
    notes="training=True: normalizes with the batch's mean and population variance over every axis but "
          "``axis``; fields 1 and 2 are (1 - momentum) * moving + momentum * batch statistic. gamma is ignored "
          "without scale, beta without center. Non-negative axes only (topi's legalization fails on a "
          "negative one); epsilon is drawn as for layer_norm. float32 and float64 only, as for inference mode.")

# -- layouts ---------------------------------------------------------------------------------------
# A convolution's or a pool's layout names each axis of its tensor by a letter of the canonical
# layout (NCHW, OIHW), as TVM's layouts do (SLayout, data_layout.h): an upper-case letter is an axis,
# or the outer part of one split by a factor, and a factor with the lower-case letter the inner
# part, so NCHW4c holds (N, C/4, H, W, 4) with channel outer * 4 + inner. Any order of the letters
# is a layout (OIHW4o, N4cHWC, OIHW2i4o); an inner part's extent is its factor.

_LAYOUT = re.compile(r"(?:\d*[A-Za-z])+")


def layout_axes(layout, canonical: str) -> list[tuple[str, int]]:
    """``layout``'s axes in order as (canonical letter, factor), factor 0 for an axis or its outer
    part: each letter of ``canonical`` once, and at most one inner part per letter."""
    wrong = f"layout {layout!r} does not order the axes of {canonical}"
    require(isinstance(layout, str) and _LAYOUT.fullmatch(layout) is not None, wrong)
    parts = re.findall(r"(\d*)([A-Za-z])", layout)
    outer = [letter for digits, letter in parts if letter.isupper() and not digits]
    inner = [letter.upper() for digits, letter in parts if letter.islower() and digits and int(digits) >= 1]
    require(sorted(outer) == sorted(canonical) and len(outer) + len(inner) == len(parts) and
            len(set(inner)) == len(inner) and set(inner) <= set(canonical), wrong)
    return [(letter.upper(), int(digits or 0)) for digits, letter in parts]


def _factor(axes: list[tuple[str, int]], letter: str) -> int:
    """The factor ``letter``'s axis is split by, 0 when it is not."""
    return next((f for c, f in axes if c == letter and f), 0)


def _split_order(axes: list[tuple[str, int]], canonical: str) -> list[int]:
    """The layout's positions of each canonical axis's outer part, then of its inner part if split."""
    order = []
    for c in canonical:
        order.append(axes.index((c, 0)))
        if f := _factor(axes, c):
            order.append(axes.index((c, f)))
    return order


def unpacked_shape(shape, axes: list[tuple[str, int]], canonical: str) -> list[int]:
    """The canonical shape (NCHW) of a tensor of ``shape`` in the layout ``axes``."""
    require(len(shape) == len(axes), f"a {len(axes)}-axis layout needs a rank-{len(axes)} tensor")
    for d, (c, f) in zip(shape, axes):
        require(not f or d == f, f"the inner part of axis {c} has extent {d}, not its factor {f}")
    return [shape[axes.index((c, 0))] * max(1, _factor(axes, c)) for c in canonical]


def packed_shape(sizes, axes: list[tuple[str, int]], canonical: str) -> list[int]:
    """The shape, in the layout ``axes``, of a tensor of canonical shape ``sizes``. A factor must
    divide its axis: TVM's type rule rounds the outer part down, which would lose elements."""
    size = dict(zip(canonical, sizes))
    for c, f in axes:
        require(not f or size[c] % f == 0, f"factor {f} does not divide axis {c} of extent {size[c]}")
    return [f or size[c] // max(1, _factor(axes, c)) for c, f in axes]


def to_canonical(a: np.ndarray, axes: list[tuple[str, int]], canonical: str) -> np.ndarray:
    """``a``, in the layout ``axes``, in the canonical one: each inner part put after its outer part,
    then the two merged (channel = outer * factor + inner)."""
    return np.transpose(a, _split_order(axes, canonical)).reshape(unpacked_shape(a.shape, axes, canonical))


def from_canonical(a: np.ndarray, axes: list[tuple[str, int]], canonical: str) -> np.ndarray:
    """The inverse of ``to_canonical``: each split axis reshaped to (outer, factor), then moved."""
    split = [e for c, d in zip(canonical, a.shape)
             for e in ((d // _factor(axes, c), _factor(axes, c)) if _factor(axes, c) else (d,))]
    return np.transpose(a.reshape(split), np.argsort(_split_order(axes, canonical)))


# -- conv1d / conv2d / conv3d ----------------------------------------------------------------------------

LAYOUTS = {1: (("NCW", "OIW"), ("NWC", "WIO")), 2: (("NCHW", "OIHW"), ("NHWC", "HWIO")),
           3: (("NCDHW", "OIDHW"), ("NDHWC", "DHWIO"))}
CANONICAL = {1: ("NCW", "OIW"), 2: ("NCHW", "OIHW"), 3: ("NCDHW", "OIDHW")}


def _windows(size: int, kernel: int, stride: int, dilation: int, before: int, after: int) -> int:
    return (size + before + after - dilation * (kernel - 1) - 1) // stride + 1


def conv_reference(x: np.ndarray, w: np.ndarray, strides, padding, dilation, groups: int, acc: str) -> np.ndarray:
    """Convolution of canonical-layout x (N, C, *S) and w (O, C/groups, *K) in dtype ``acc``;
    padding is (before..., after...)."""
    nd = x.ndim - 2
    x = np.pad(x.astype(acc), [(0, 0), (0, 0)] + [(padding[i], padding[i + nd]) for i in range(nd)])
    w = w.astype(acc)
    n, (o, cg), kernel = x.shape[0], w.shape[:2], w.shape[2:]
    out_sp = [(x.shape[2 + i] - dilation[i] * (kernel[i] - 1) - 1) // strides[i] + 1 for i in range(nd)]
    out = np.zeros((n, o, *out_sp), acc)
    og = o // groups
    for g in range(groups):
        xs, ws = x[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og]
        for k in itertools.product(*[range(kk) for kk in kernel]):
            window = tuple(slice(k[i] * dilation[i], k[i] * dilation[i] + strides[i] * (out_sp[i] - 1) + 1, strides[i])
                           for i in range(nd))
            out[:, g * og:(g + 1) * og] += np.einsum("nc...,oc->no...", xs[(slice(None), slice(None)) + window],
                                                     ws[(slice(None), slice(None)) + k])
    return out


def convolution(nd: int) -> OpDef:
    name = f"conv{nd}d"
    data, kernel_axes = CANONICAL[nd]
    keys = {"strides", "padding", "dilation", "groups", "data_layout", "kernel_layout", "out_dtype"}

    def layouts_of(attrs: dict) -> tuple[list, list, list]:
        """The data's, kernel's and output's axes; out_layout absent (records before it) is the data's."""
        out = attrs.get("out_layout") or attrs["data_layout"]
        return (layout_axes(attrs["data_layout"], data), layout_axes(attrs["kernel_layout"], kernel_axes),
                layout_axes(out, data))

    def infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
        require(len(args) == 2 and set(attrs) - {"out_layout"} == keys,
                f"{name} takes (data, weight), {sorted(keys)} and out_layout")
        x, w = args
        require(x.dtype == w.dtype and x.dtype in NUMERIC, f"{name} needs one numeric dtype")
        # drawn in LAYOUTS[nd]; any order of the axes, and packed ones (NCHW4c), read from a module
        d_axes, k_axes, o_axes = layouts_of(attrs)
        require(x.rank == len(d_axes) and w.rank == len(k_axes),
                f"{name} needs operands of the ranks of its layouts ({len(d_axes)}, {len(k_axes)})")
        xs, ws = unpacked_shape(x.shape, d_axes, data), unpacked_shape(w.shape, k_axes, kernel_axes)
        strides = _ints(attrs["strides"], nd, "strides", 1)
        dilation = _ints(attrs["dilation"], nd, "dilation", 1)
        padding = _ints(attrs["padding"], 2 * nd, "padding", 0)
        groups = attrs["groups"]
        channels, out_channels = xs[1], ws[0]
        require(isinstance(groups, int) and groups >= 1 and channels % groups == 0 and out_channels % groups == 0,
                "groups must divide the input and output channels")
        require(ws[1] == channels // groups, f"weight has {ws[1]} input channels, expected {channels // groups}")
        spatial = [_windows(xs[2 + i], ws[2 + i], strides[i], dilation[i], padding[i], padding[i + nd])
                   for i in range(nd)]
        require(all(s >= 1 for s in spatial), "the kernel does not fit the padded input")
        out = out_dtype_of(x, attrs)
        for a in (x, w):
            require(representable(out, a.lo, a.hi), f"operands must fit out_dtype {out}")
        lo, hi = product_range(x, w, ws[1] * int(np.prod(ws[2:])))
        shape = packed_shape([xs[0], out_channels, *spatial], o_axes, data)
        return checked(shape, out, lo, hi, x.exact and w.exact and is_int(out) and is_int(x.dtype))

    def reference(args, attrs):
        x, w = args
        out = numpy_dtype(attrs["out_dtype"] or x.dtype.name)
        d_axes, k_axes, o_axes = layouts_of(attrs)
        result = conv_reference(to_canonical(x.astype(out), d_axes, data), to_canonical(w.astype(out), k_axes, kernel_axes),
                                attrs["strides"], attrs["padding"], attrs["dilation"], attrs["groups"], _acc(out.name))
        return from_canonical(result, o_axes, data).astype(out)

    def kernel_shape(layouts, sizes) -> list[int]:
        return packed_shape(sizes, layout_axes(layouts[1], kernel_axes), kernel_axes)

    def minimal(info: ValueInfo, layouts, out_dtype=None, lo=-1.0, hi=1.0) -> bool:
        x = _lifted(info, nd + 2)
        channels = x.shape[layouts[0].index("C")]
        attrs = {"strides": [1] * nd, "padding": [0] * (2 * nd), "dilation": [1] * nd, "groups": 1,
                 "data_layout": layouts[0], "kernel_layout": layouts[1], "out_dtype": out_dtype}
        return valid(infer, [x, probe(x, lo, hi, tuple(kernel_shape(layouts, [1, channels, *([1] * nd)])))], attrs)

    def accepts(info: ValueInfo) -> bool:
        return info.dtype in NUMERIC and _liftable(info, nd + 2) and \
            any(minimal(info, LAYOUTS[nd][0], o) for o in (None, *OUT_DTYPES[info.dtype]))

    def propose(sketch: Sketch, choose: Chooser) -> None:
        x = _lift(sketch, pick(sketch, choose, accepts), nd + 2)
        info = sketch.infos[x]
        layouts = choose.choice([l for l in LAYOUTS[nd] if any(minimal(info, l, o) for o in (None, *OUT_DTYPES[info.dtype]))])
        channels, sizes = info.shape[layouts[0].index("C")], [info.shape[layouts[0].index(c)] for c in data[2:]]
        groups = choose.choice([g for g in range(1, channels + 1) if channels % g == 0])
        out_channels = groups * choose.integer(1, 2)
        kernel, strides, dilation, before, after = [], [], [], [], []
        for size in sizes:
            b, a = choose.integer(0, 2), choose.integer(0, 2)
            k = choose.integer(1, min(3, size + b + a))
            d = choose.integer(1, 2) if (k - 1) * 2 + 1 <= size + b + a else 1
            kernel.append(k), dilation.append(d), before.append(b), after.append(a), strides.append(choose.integer(1, 2))
        kshape = kernel_shape(layouts, [out_channels, channels // groups, *kernel])
        attrs = {"strides": strides, "padding": before + after, "dilation": dilation, "groups": groups,
                 "data_layout": layouts[0], "kernel_layout": layouts[1], "out_layout": layouts[0]}
        combos = [(r, o) for r in [(-4.0, 4.0), (-1.0, 1.0), (0.0, 1.0)] for o in (None, *OUT_DTYPES[info.dtype])
                  if valid(infer, [info, probe(info, *r, tuple(kshape))], {**attrs, "out_dtype": o})]
        if not combos:  # the smallest convolution, which accepts() guarantees
            kshape = kernel_shape(layouts, [1, channels, *([1] * nd)])
            attrs = {"strides": [1] * nd, "padding": [0] * (2 * nd), "dilation": [1] * nd, "groups": 1,
                     "data_layout": layouts[0], "kernel_layout": layouts[1], "out_layout": layouts[0]}
            combos = [(r, o) for r in [(-1.0, 1.0)] for o in (None, *OUT_DTYPES[info.dtype])
                      if valid(infer, [info, probe(info, *r, tuple(kshape))], {**attrs, "out_dtype": o})]
        wrange, out_dtype = choose.choice(combos)
        attrs["out_dtype"] = out_dtype
        w = _weight(sketch, choose, kshape, info.dtype, *wrange, accept=lambda i: valid(infer, [info, i], attrs))
        sketch.add(name, [x, w], attrs)

    def emit(R, args, at):
        return getattr(R.op.nn, name)(*args, strides=at["strides"], padding=at["padding"], dilation=at["dilation"],
                                      groups=at["groups"], data_layout=at["data_layout"],
                                      kernel_layout=at["kernel_layout"], out_layout=at.get("out_layout"),
                                      out_dtype=at["out_dtype"])

    def unbuildable(attrs: dict) -> str:
        packed = any(any(factor for _, factor in axes) for axes in layouts_of(attrs))
        if packed or (attrs.get("out_layout") or attrs["data_layout"]) != attrs["data_layout"]:
            return (f"TVM cannot compile a {name} in a packed layout or with an out_layout of its own "
                    "(LegalizeOps leaves it as it is)")
        return ""

    return OpDef(name, infer, emit, reference, propose, accepts, unbuildable=unbuildable,
                 notes=f"Layouts {', '.join('/'.join(l) for l in LAYOUTS[nd])} drawn; any order of the axes, "
                       "packed layouts (NCHW4c, OIHW4o: see layout_axes) and an out_layout other than the "
                       "data's have a reference but are neither drawn nor imported (TVM does not legalize "
                       "them: tvm.compile fails). "
                       "padding is (before..., after...). "
                       "out_dtype casts the operands first and accumulates in out_dtype.")


CONV1D = convolution(1)
# Bilinear in data and weight; Gradient's conv2d_grad asserts NCHW data and output, OIHW kernel
# (python/tvm/relax/op/_op_gradient.py, its docstring says so too).
CONV2D = smooth(convolution(2), lambda at: "" if (at.get("data_layout", "NCHW"), at.get("kernel_layout", "OIHW"),
                                                  at.get("out_layout") or at.get("data_layout", "NCHW"))
                == ("NCHW", "OIHW", "NCHW") else "Gradient's conv2d_grad takes NCHW data and OIHW kernels only")
CONV3D = convolution(3)

# -- conv1d_transpose / conv2d_transpose / conv3d_transpose -------------------------------------------
# The gradient of a convolution with respect to its data (PyTorch's ConvTranspose1d/2d/3d): every
# input element scatters its kernel, scaled, into the output. Layouts NCW/NCHW/NCDHW and IOW/IOHW/
# IODHW (the weight is (C_in, C_out / groups, K...)), float dtypes, as the frontends write it.

_TRANSPOSE_KEYS = {"strides", "padding", "output_padding", "dilation", "groups"}
_TRANSPOSE_LAYOUTS = {1: ("NCW", "IOW"), 2: ("NCHW", "IOHW"), 3: ("NCDHW", "IODHW")}


def conv_transpose(nd: int) -> OpDef:
    """The transposed convolution over ``nd`` spatial dims. ``out_dtype`` (absent in records
    written before it, meaning None) casts the operands first and accumulates in it."""
    name = f"conv{nd}d_transpose"
    data_layout, kernel_layout = _TRANSPOSE_LAYOUTS[nd]

    def infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
        require(len(args) == 2 and set(attrs) - {"out_dtype"} == _TRANSPOSE_KEYS,
                f"{name} takes (data, weight), {sorted(_TRANSPOSE_KEYS)} and out_dtype")
        x, w = args
        require(x.dtype == w.dtype and x.dtype in FLOATS, f"{name} takes float operands of one dtype")
        require(x.rank == nd + 2 and w.rank == nd + 2, f"{name} needs rank-{nd + 2} operands "
                                                       f"({data_layout} data, {kernel_layout} weight)")
        strides = _ints(attrs["strides"], nd, "strides", 1)
        dilation = _ints(attrs["dilation"], nd, "dilation", 1)
        padding = _ints(attrs["padding"], 2 * nd, "padding", 0)
        extra = _ints(attrs["output_padding"], nd, "output_padding", 0)
        require(all(e < s for e, s in zip(extra, strides)), "output_padding must be below the stride")
        groups = attrs["groups"]
        channels = x.shape[1]
        require(isinstance(groups, int) and groups >= 1 and channels % groups == 0, "groups must divide the channels")
        require(w.shape[0] == channels, f"weight has {w.shape[0]} input channels, expected {channels}")
        sizes = [(x.shape[2 + i] - 1) * strides[i] - padding[i] - padding[i + nd]
                 + dilation[i] * (w.shape[2 + i] - 1) + extra[i] + 1 for i in range(nd)]
        require(all(n >= 1 for n in sizes), "padding leaves no output")
        out = out_dtype_of(x, {"out_dtype": attrs.get("out_dtype")})
        for a in (x, w):
            require(representable(out, a.lo, a.hi), f"operands must fit out_dtype {out}")
        lo, hi = product_range(x, w, (channels // groups) * int(np.prod(w.shape[2:])))
        return checked((x.shape[0], w.shape[1] * groups, *sizes), out, lo, hi, False)

    def reference(args, attrs):
        x, w = args
        out = numpy_dtype(attrs.get("out_dtype") or x.dtype.name)
        acc = x.astype(out).astype("float64"), w.astype(out).astype("float64")
        strides, dilation, pad, groups = attrs["strides"], attrs["dilation"], attrs["padding"], attrs["groups"]
        n, c, *spatial = x.shape
        cg, og, kernel = c // groups, w.shape[1], w.shape[2:]
        full = [(spatial[i] - 1) * strides[i] + dilation[i] * (kernel[i] - 1) + 1 + attrs["output_padding"][i]
                for i in range(nd)]
        result = np.zeros((n, og * groups, *full))
        for g in range(groups):
            for at in itertools.product(*(range(k) for k in kernel)):
                xs = acc[0][:, g * cg:(g + 1) * cg]
                ws = acc[1][(slice(g * cg, (g + 1) * cg), slice(None), *at)]  # (cg, og)
                where = tuple(slice(k * d, k * d + s * (m - 1) + 1, s)
                              for k, d, s, m in zip(at, dilation, strides, spatial))
                result[(slice(None), slice(g * og, (g + 1) * og), *where)] += np.einsum("nc...,co->no...", xs, ws)
        kept = tuple(slice(pad[i], full[i] - pad[i + nd]) for i in range(nd))
        return result[(slice(None), slice(None), *kept)].astype(out)

    def accepts(info: ValueInfo) -> bool:
        return info.dtype in FLOATS and _liftable(info, nd + 2)

    def propose(sketch: Sketch, choose: Chooser) -> None:
        x = _lift(sketch, pick(sketch, choose, accepts), nd + 2)
        info = sketch.infos[x]
        channels = info.shape[1]
        groups = choose.choice([g for g in range(1, channels + 1) if channels % g == 0])
        kernel = [choose.integer(1, 3) for _ in range(nd)]
        strides = [choose.integer(1, 2) for _ in range(nd)]
        dilation = [choose.integer(1, 2) for _ in range(nd)]
        attrs = {"strides": strides, "dilation": dilation, "groups": groups,
                 "padding": [choose.integer(0, d * (k - 1)) for d, k in zip(dilation + dilation, kernel + kernel)],
                 "output_padding": [choose.integer(0, s - 1) for s in strides],
                 "out_dtype": choose.choice([None, None, *OUT_DTYPES[info.dtype]])}
        shape = (channels, choose.integer(1, 3), *kernel)
        if not valid(infer, [info, probe(info, -1, 1, shape)], attrs):
            attrs["padding"] = [0] * (2 * nd)  # no output left on a small input
        if not valid(infer, [info, probe(info, -1, 1, shape)], attrs):
            attrs["out_dtype"] = None  # the operands do not fit it
        w = _weight(sketch, choose, shape, info.dtype, *choose.choice([(-1.0, 1.0), (0.0, 1.0)]),
                    accept=lambda i: valid(infer, [info, i], attrs))
        sketch.add(name, [x, w], attrs)

    def emit(R, args, at):
        return getattr(R.op.nn, name)(*args, strides=at["strides"], padding=at["padding"],
                                      output_padding=at["output_padding"], dilation=at["dilation"],
                                      groups=at["groups"], data_layout=data_layout, kernel_layout=kernel_layout,
                                      out_dtype=at.get("out_dtype"))

    return OpDef(name, infer, emit, reference, propose, accepts,
                 notes=f"Data {data_layout}, weight {kernel_layout} ((C_in, C_out / groups, K...)); output size "
                       "(in - 1) * stride - padding + dilation * (k - 1) + output_padding + 1, padding (before..., "
                       "after...) cut from the full result, output_padding (< stride) added at the end. Floats "
                       "only; out_dtype casts the operands first and accumulates in it.")


CONV1D_TRANSPOSE = conv_transpose(1)
CONV2D_TRANSPOSE = conv_transpose(2)
CONV3D_TRANSPOSE = conv_transpose(3)

# -- pooling ----------------------------------------------------------------------------------------
# max_pool and avg_pool over 1, 2 or 3 spatial dims, one OpDef each (real networks hold all six:
# PyTorch's MaxPool1d, AlexNet's local response normalization as an avg_pool3d). The layout's
# letters name the axes: N, C, and the spatial D, H, W, the last ones used for fewer dims.

POOL_LAYOUTS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _letters(nd: int) -> str:
    return "DHW"[3 - nd:]


def _canonical(layout: str) -> str:
    """The canonical pooling layout with as many spatial axes as ``layout`` names."""
    return "NC" + _letters(sum(ch.isupper() for ch in layout) - 2)


def _pool_axes(x: ValueInfo, layout, nd: int) -> list[tuple[str, int]]:
    axes = layout_axes(layout, "NC" + _letters(nd))
    require(x.rank == len(axes), f"{nd}-D pooling in {layout} needs a rank-{len(axes)} tensor")
    return axes


def _spatial(x: ValueInfo, layout, nd: int = 2) -> list[int]:
    """The spatial sizes (D, H, W order) of ``x`` in ``layout``."""
    return unpacked_shape(x.shape, _pool_axes(x, layout, nd), "NC" + _letters(nd))[2:]


def _with_spatial(x: ValueInfo, layout: str, sizes) -> list[int]:
    """``x``'s shape with its spatial sizes replaced, in ``layout``."""
    canonical = "NC" + _letters(len(sizes))
    axes = layout_axes(layout, canonical)
    return packed_shape(unpacked_shape(x.shape, axes, canonical)[:2] + list(sizes), axes, canonical)


def _pool_geometry(x: ValueInfo, attrs: dict, nd: int) -> tuple[list[int], bool]:
    """Output spatial sizes, and whether some window covers padding. Every window must hold an
    element of the input (an all-padding window gives -inf for max and 0/0 for an average)."""
    sizes = _spatial(x, attrs["layout"], nd)
    pool = _ints(attrs["pool_size"], nd, "pool_size", 1)
    strides = _ints(attrs["strides"], nd, "strides", 1)
    dilation = _ints(attrs["dilation"], nd, "dilation", 1)
    padding = _ints(attrs["padding"], 2 * nd, "padding", 0)
    out, touches = [], False
    for i, size in enumerate(sizes):
        n = _windows(size, pool[i], strides[i], dilation[i], padding[i], padding[i + nd])
        require(n >= 1, "the pool window does not fit the padded input")
        for o in range(n):
            positions = [o * strides[i] - padding[i] + j * dilation[i] for j in range(pool[i])]
            require(any(0 <= p < size for p in positions), "a pool window covers only padding")
            touches |= any(not 0 <= p < size for p in positions)
        out.append(n)
    return out, touches


def _pool_windows(x: np.ndarray, attrs: dict, fill) -> tuple[np.ndarray, np.ndarray]:
    """Every window's elements stacked on a new last axis (N, C, spatial... view), and a mask of
    the real ones."""
    layout = attrs["layout"]
    xc = to_canonical(x, layout_axes(layout, _canonical(layout)), _canonical(layout))
    nd = xc.ndim - 2
    pad = [(attrs["padding"][i], attrs["padding"][i + nd]) for i in range(nd)]
    xp = np.pad(xc, [(0, 0), (0, 0), *pad], constant_values=fill)
    real = np.pad(np.ones(xc.shape[2:], bool), pad, constant_values=False)
    kernel, strides, dilation = attrs["pool_size"], attrs["strides"], attrs["dilation"]
    out = [(xp.shape[2 + i] - dilation[i] * (kernel[i] - 1) - 1) // strides[i] + 1 for i in range(nd)]
    parts, masks = [], []
    for offsets in itertools.product(*(range(k) for k in kernel)):
        window = tuple(slice(j * d, j * d + s * (o - 1) + 1, s) for j, d, s, o in zip(offsets, dilation, strides, out))
        parts.append(xp[(slice(None), slice(None), *window)])
        masks.append(real[window])
    return np.stack(parts, -1), np.stack(masks, -1)


def _to_layout(out: np.ndarray, layout: str) -> np.ndarray:
    return from_canonical(out, layout_axes(layout, _canonical(layout)), _canonical(layout))


_POOL_KEYS = {"pool_size", "strides", "padding", "dilation", "layout"}


def _max_pool_infer(nd: int):
    name = f"max_pool{nd}d"

    def infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
        require(len(args) == 1 and set(attrs) == _POOL_KEYS, f"{name} takes one operand and {sorted(_POOL_KEYS)}")
        (x,) = args
        require(x.dtype in NUMERIC, f"{name} needs a numeric tensor")
        sizes, _ = _pool_geometry(x, attrs, nd)
        return checked(_with_spatial(x, attrs["layout"], sizes), x.dtype, x.lo, x.hi, x.exact)
    return infer


def _max_pool_ref(args, attrs):
    x = args[0]
    low = np.iinfo(x.dtype).min if is_int(x.dtype.name) else -np.inf
    windows, _ = _pool_windows(x, attrs, low)
    return _to_layout(windows.max(-1), attrs["layout"]).astype(x.dtype)


def _avg_pool_infer(nd: int):
    name = f"avg_pool{nd}d"

    def infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
        require(len(args) == 1 and set(attrs) == _POOL_KEYS | {"count_include_pad"},
                f"{name} takes one operand, the pooling attributes and count_include_pad")
        (x,) = args
        require(x.dtype in FLOATS, f"{name} is drawn for floats only (integers return int64 in TVM)")
        sizes, touches = _pool_geometry(x, attrs, nd)
        count = int(np.prod(attrs["pool_size"]))
        checked((), x.dtype, -count * x.magnitude, count * x.magnitude, True)  # the window sum
        lo, hi = x.lo, x.hi
        if attrs["count_include_pad"] and touches:
            lo, hi = min(lo, 0.0), max(hi, 0.0)
        return checked(_with_spatial(x, attrs["layout"], sizes), x.dtype, lo, hi, False)
    return infer


def _avg_pool_ref(args, attrs):
    x = args[0]
    windows, real = _pool_windows(x.astype("float64"), attrs, 0.0)
    count = windows.shape[-1] if attrs["count_include_pad"] else real.sum(-1)
    return _to_layout(windows.sum(-1) / count, attrs["layout"]).astype(x.dtype)


def _pool_accepts(dtypes, nd: int = 2):
    return lambda i: i.dtype in dtypes and _liftable(i, nd + 2)


PACKING_FACTORS = (4, 2, 8, 16)  # the channel blocks ConvertLayout and TVM's tests write (NCHW4c, NCHW16c)


def _rarely_packed(sketch: Sketch, choose: Chooser, x: int, layout: str) -> tuple[int, str]:
    """``x`` in ``layout`` as it is, or, rarely, its channels packed by a layout_transform (NCHW to
    NCHW4c: channel c at outer c // 4, inner c % 4, the inner part last), as ConvertLayout leaves
    them for a pool to meet."""
    channel = layout.index("C")
    factors = [f for f in PACKING_FACTORS if sketch.infos[x].shape[channel] % f == 0]
    if not factors or choose.integer(0, 7) != 7:
        return x, layout
    f = choose.choice(factors)
    index_map = [["//", ["var", k], f] if k == channel else ["var", k] for k in range(len(layout))]
    packed = sketch.add("layout_transform", [x], {"index_map": [*index_map, ["%", ["var", channel], f]],
                                                  "pad_value": None})
    return packed, f"{layout}{f}c"


_PACKED_POOL_NOTES = ("Rarely drawn on channels packed by a layout_transform first (NCHW4c: channel outer * 4 + "
                      "inner); any packed layout imported.")


def pool(name: str, nd: int, infer, ref, dtypes, extra: dict, notes: str) -> OpDef:
    accepts = _pool_accepts(dtypes, nd)

    def propose(sketch: Sketch, choose: Chooser) -> None:
        x = _lift(sketch, pick(sketch, choose, accepts), nd + 2)
        info = sketch.infos[x]
        layout = choose.choice(list(POOL_LAYOUTS[nd]))
        sizes = _spatial(info, layout, nd)
        window = [choose.integer(1, min(3, s)) for s in sizes]
        attrs = {"pool_size": window, "strides": [choose.integer(1, 2) for _ in sizes],
                 "padding": [choose.integer(0, k - 1) for k in window + window],
                 "dilation": [choose.integer(1, 2) if 2 * k - 1 <= s else 1 for k, s in zip(window, sizes)],
                 "layout": layout}
        attrs.update({key: choose.choice(values) for key, values in extra.items()})
        if not valid(infer, [info], attrs):
            attrs.update({"padding": [0] * (2 * nd), "dilation": [1] * nd})
        x, attrs["layout"] = _rarely_packed(sketch, choose, x, layout)  # the windows hold as they are
        sketch.add(name, [x], attrs)

    def emit(R, args, at):
        kwargs = {k: at[k] for k in ("pool_size", "strides", "padding", "dilation", "layout", *extra)}
        return getattr(R.op.nn, name)(args[0], **kwargs)

    return OpDef(name, infer, emit, ref, propose, accepts, notes + " " + _PACKED_POOL_NOTES)


_MAX_NOTES = "Padding is ignored (never the max). ceil_mode is not drawn; every window holds an input element. "
_AVG_NOTES = ("count_include_pad=True divides by the window's size, else by the real elements of the window. "
              "Integer average pools return int64 in TVM (declared otherwise): not drawn. ")
MAX_POOL1D = pool("max_pool1d", 1, _max_pool_infer(1), _max_pool_ref, NUMERIC, {},
                  _MAX_NOTES + "padding is (left, right).")
MAX_POOL2D = pool("max_pool2d", 2, _max_pool_infer(2), _max_pool_ref, NUMERIC, {},
                  _MAX_NOTES + "padding is (top, left, bottom, right).")
MAX_POOL3D = pool("max_pool3d", 3, _max_pool_infer(3), _max_pool_ref, NUMERIC, {},
                  _MAX_NOTES + "padding is (front, top, left, back, bottom, right).")
AVG_POOL1D = pool("avg_pool1d", 1, _avg_pool_infer(1), _avg_pool_ref, FLOATS, {"count_include_pad": [False, True]},
                  _AVG_NOTES + "padding is (left, right).")
AVG_POOL2D = smooth(pool("avg_pool2d", 2, _avg_pool_infer(2), _avg_pool_ref, FLOATS, {"count_include_pad": [False, True]},
                         _AVG_NOTES + "padding is (top, left, bottom, right)."),  # linear
                    # LegalizeOps leaves avg_pool2d_backward with a dilation as it is (TOPI's
                    # pool_grad has none: python/tvm/relax/transform/legalize_ops/grad.py)
                    lambda at: "" if all(d == 1 for d in at.get("dilation", [1, 1]))
                    else "avg_pool2d_backward is not legalized with a dilation")
AVG_POOL3D = pool("avg_pool3d", 3, _avg_pool_infer(3), _avg_pool_ref, FLOATS, {"count_include_pad": [False, True]},
                  _AVG_NOTES + "padding is (front, top, left, back, bottom, right).")


def _adaptive_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and set(attrs) == {"output_size", "layout"}, "adaptive_avg_pool2d takes output_size, layout")
    (x,) = args
    require(x.dtype in FLOATS, "adaptive_avg_pool2d is drawn for floats only (integers return int32 in TVM)")
    sizes = _spatial(x, attrs["layout"])
    out = list(sizes) if attrs["output_size"] is None else _ints(attrs["output_size"], 2, "output_size", 1)
    require(all(o <= s for o, s in zip(out, sizes)), "output_size is drawn no larger than the input")
    checked((), x.dtype, -x.size * x.magnitude, x.size * x.magnitude, True)  # window sums
    return checked(_with_spatial(x, attrs["layout"], out), x.dtype, x.lo, x.hi, False)


def _adaptive_ref(args, attrs):
    x = args[0]
    layout = attrs["layout"]
    xc = to_canonical(x.astype("float64"), layout_axes(layout, _canonical(layout)), _canonical(layout))
    (h, w) = xc.shape[2:]
    oh, ow = (h, w) if attrs["output_size"] is None else attrs["output_size"]
    out = np.zeros(xc.shape[:2] + (oh, ow))
    for i, j in itertools.product(range(oh), range(ow)):
        r0, r1 = (i * h) // oh, -((-(i + 1) * h) // oh)
        c0, c1 = (j * w) // ow, -((-(j + 1) * w) // ow)
        out[:, :, i, j] = xc[:, :, r0:r1, c0:c1].mean(axis=(2, 3))
    return _to_layout(out, layout).astype(x.dtype)


def _adaptive_propose(sketch: Sketch, choose: Chooser) -> None:
    accepts = _pool_accepts(FLOATS)
    x = _lift(sketch, pick(sketch, choose, lambda i: accepts(i) and valid(
        _adaptive_infer, [_lifted(i, 4)], {"output_size": [1, 1], "layout": "NCHW"})), 4)
    info = sketch.infos[x]
    layout = choose.choice(list(POOL_LAYOUTS[2]))
    output_size = None if choose.integer(0, 3) == 0 else [choose.integer(1, s) for s in _spatial(info, layout)]
    x, layout = _rarely_packed(sketch, choose, x, layout)
    sketch.add("adaptive_avg_pool2d", [x], {"output_size": output_size, "layout": layout})


ADAPTIVE_AVG_POOL2D = OpDef(
    "adaptive_avg_pool2d", _adaptive_infer,
    lambda R, args, at: R.op.nn.adaptive_avg_pool2d(args[0], output_size=at["output_size"], layout=at["layout"]),
    _adaptive_ref, _adaptive_propose,
    lambda i: _pool_accepts(FLOATS)(i) and valid(_adaptive_infer, [_lifted(i, 4)],
                                                 {"output_size": [1, 1], "layout": "NCHW"}),
    notes="Window i spans [floor(i*H/out), ceil((i+1)*H/out)), as in PyTorch; output_size None keeps the "
          "input's size. Integers return int32 in TVM "
          "(declared otherwise): not drawn. " + _PACKED_POOL_NOTES)

# -- pad --------------------------------------------------------------------------------------------

PAD_MODES = ("constant", "reflect", "replicate", "circular")
_NP_PAD = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _pad_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and set(attrs) == {"pad_width", "pad_mode", "pad_value"},
            "pad takes one operand, pad_width, pad_mode, pad_value")
    (x,) = args
    require(x.dtype in DTYPES and x.rank >= 1, "pad needs a tensor of rank >= 1")
    mode, value = attrs["pad_mode"], attrs["pad_value"]
    require(mode in PAD_MODES, f"pad_mode {mode!r} not drawn ('edge' is silently treated as constant 0 by TVM)")
    widths = _ints(attrs["pad_width"], 2 * x.rank, "pad_width", 0)
    for axis, d in enumerate(x.shape):
        before, after = widths[2 * axis], widths[2 * axis + 1]
        if mode == "reflect":
            require(max(before, after) <= d - 1, "reflect pads at most dim - 1 (more gives garbage in TVM)")
        if mode == "circular":
            require(max(before, after) <= d, "circular pads at most dim")
    shape = [d + widths[2 * a] + widths[2 * a + 1] for a, d in enumerate(x.shape)]
    lo, hi = x.lo, x.hi
    require(isinstance(value, (int, float)) and not isinstance(value, bool), "pad_value must be a number")
    if mode == "constant":
        require(representable(x.dtype, value, value) and (not is_int(x.dtype) and x.dtype != "bool"
                                                          or float(value).is_integer()),
                f"pad_value {value} is not a {x.dtype} value")
        if any(widths):
            lo, hi = min(lo, value), max(hi, value)
    else:
        require(value == 0, "pad_value is 0 unless pad_mode is constant")
    return checked(shape, x.dtype, lo, hi, x.exact)


def _pad_ref(args, attrs):
    x = args[0]
    widths = [(attrs["pad_width"][2 * a], attrs["pad_width"][2 * a + 1]) for a in range(x.ndim)]
    mode = attrs["pad_mode"]
    kwargs = {"constant_values": np.array(attrs["pad_value"]).astype(x.dtype)} if mode == "constant" else {}
    return np.pad(x, widths, mode=_NP_PAD[mode], **kwargs)


def _pad_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, lambda i: i.rank >= 1)
    info = sketch.infos[x]
    mode = choose.choice(list(PAD_MODES))
    widths = []
    for d in info.shape:
        limit = {"reflect": d - 1, "circular": d}.get(mode, 2)
        widths += [choose.integer(0, min(2, limit)), choose.integer(0, min(2, limit))]
    value = 0
    if mode == "constant":
        options = [0, 1] if info.dtype == "bool" else [0, 1, -1, 3] if is_int(info.dtype) else [0.0, 1.0, -1.0, 2.5]
        value = choose.choice([v for v in options if representable(info.dtype, v, v)])
    sketch.add("pad", [x], {"pad_width": widths, "pad_mode": mode, "pad_value": value})


PAD = OpDef("pad", _pad_infer,
            lambda R, args, at: R.op.nn.pad(args[0], at["pad_width"], pad_mode=at["pad_mode"],
                                            pad_value=float(at["pad_value"])),
            _pad_ref, _pad_propose, lambda i: i.rank >= 1,
            notes="pad_width is (before, after) per axis, flattened. replicate is numpy's 'edge', circular "
                  "numpy's 'wrap'. pad_mode='edge' is silently treated as constant 0 by TVM: never drawn. "
                  "reflect with a width >= the dim gives garbage: never drawn.")

# -- attention ------------------------------------------------------------------------------------

CAUSAL = (None, "TopLeft", "BottomRight")


def _attention_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 3 and set(attrs) == {"scale", "causal_mask"}, "attention takes (q, k, v), scale, causal_mask")
    q, k, v = args
    _float_operands(args, "attention")
    require(all(a.rank == 4 for a in args), "attention needs BSNH rank-4 operands")
    (b, s, n, h), (bk, skv, nk, hk), (bv, sv, nv, _) = q.shape, k.shape, v.shape
    require(b == bk == bv and n == nk == nv and h == hk and skv == sv, "attention operand shapes do not agree")
    require(attrs["causal_mask"] in CAUSAL, "causal_mask must be None, TopLeft or BottomRight")
    scale = attrs["scale"]
    if scale is None:
        scale = 1 / math.sqrt(h)
    else:
        require(q.dtype == "float32", "an explicit scale makes float16 attention return float32 in TVM")
        require(isinstance(scale, float) and 0 < scale <= 1, "scale is drawn in (0, 1]")
    amplification = scale * h * q.magnitude * k.magnitude
    require(ROUNDING[q.dtype] * amplification <= RTOL[q.dtype] / 2,
            f"scores up to {amplification:g} make softmax too sensitive to rounding in {q.dtype}")
    checked((), q.dtype, -amplification, amplification, True)
    return checked((b, s, n, v.shape[3]), q.dtype, v.lo, v.hi, False)


def _attention_ref(args, attrs):
    q, k, v = (a.astype("float64") for a in args)
    s, skv, h = q.shape[1], k.shape[1], q.shape[3]
    scale = attrs["scale"] if attrs["scale"] is not None else 1 / math.sqrt(h)
    scores = np.einsum("bsnh,btnh->bnst", q, k) * scale
    if attrs["causal_mask"]:
        offset = 0 if attrs["causal_mask"] == "TopLeft" else abs(s - skv)
        scores = np.where(np.tril(np.ones((s, skv), bool), k=offset), scores, -np.inf)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    return np.einsum("bnst,btnh->bsnh", e / e.sum(-1, keepdims=True), v).astype(args[0].dtype)


def _attention_accepts(info: ValueInfo) -> bool:
    if info.dtype not in FLOATS or not _liftable(info, 4):
        return False
    q = _lifted(info, 4)
    return valid(_attention_infer, [q, probe(q, -1, 1), probe(q, -1, 1)], {"scale": None, "causal_mask": None})


def _attention_propose(sketch: Sketch, choose: Chooser) -> None:
    q = _lift(sketch, pick(sketch, choose, _attention_accepts), 4)
    info = sketch.infos[q]
    b, _, n, h = info.shape
    skv, hv = choose.integer(1, 4), choose.integer(1, 4)
    scales = [None] + ([0.5, 1.0] if info.dtype == "float32" else [])
    attrs = {"scale": choose.choice(scales), "causal_mask": choose.choice(list(CAUSAL))}
    kshape = (b, skv, n, h)
    vprobe = probe(info, -1, 1, (b, skv, n, 1))
    ranges = [r for r in [(-4.0, 4.0), (-1.0, 1.0)] if valid(_attention_infer, [info, probe(info, *r, kshape), vprobe],
                                                                attrs)]
    if not ranges:
        attrs["scale"], ranges = None, [(-1.0, 1.0)]
    k = _weight(sketch, choose, kshape, info.dtype, *choose.choice(ranges),
                accept=lambda i: valid(_attention_infer, [info, i, vprobe], attrs))
    v = _weight(sketch, choose, (b, skv, n, hv), info.dtype, -4.0, 4.0)
    sketch.add("attention", [q, k, v], attrs)


ATTENTION = OpDef(
    "attention", _attention_infer,
    lambda R, args, at: R.op.nn.attention(*args, scale=at["scale"], causal_mask=at["causal_mask"]),
    _attention_ref, _attention_propose, _attention_accepts,
    notes="BSNH layout: softmax(q k^T * scale) v per head, scale 1/sqrt(head_dim) by default. TopLeft masks "
          "as tril(k=0), BottomRight as tril(k=|seq_len - seq_len_kv|). |q| |k| is bounded so that a rounding "
          "difference in the scores stays within tolerance. float16 with an explicit scale returns float32 "
          "in TVM (declared float16): not drawn.")

# -- image.resize2d -------------------------------------------------------------------------------------
# Linear interpolation only: it is continuous in the source coordinate, so a coordinate computed
# with another rounding (TVM's float32, an FMA) moves the result by a rounding. Nearest neighbour
# and cubic are left out (excluded.py).

RESIZE_LAYOUTS = {"NCHW": (2, 3), "NHWC": (1, 2)}
RESIZE_MODES = ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn")
RESIZE_KEYS = {"size", "layout", "coordinate_transformation_mode", "rounding_method"}
# topi computes the coordinates and weights in float32, so a float64 result carries float32's error
RESIZE_DTYPES = ("float32", "float16", "bfloat16")


def _resize_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and set(attrs) == RESIZE_KEYS, f"resize2d takes one operand and {sorted(RESIZE_KEYS)}")
    (x,) = args
    require(x.dtype in RESIZE_DTYPES and x.rank == 4, f"resize2d takes a rank-4 {'/'.join(RESIZE_DTYPES)} tensor")
    require(attrs["layout"] in RESIZE_LAYOUTS and attrs["coordinate_transformation_mode"] in RESIZE_MODES,
            f"layout {'/'.join(RESIZE_LAYOUTS)}, a mode of {', '.join(RESIZE_MODES)}")
    require(isinstance(attrs["rounding_method"], str), "rounding_method is a name (unused by linear)")
    size = _ints(attrs["size"], 2, "size", 1)
    if attrs["coordinate_transformation_mode"] == "align_corners":
        require(min(size) >= 2, "align_corners divides by the output size - 1")
    shape = list(x.shape)
    for axis, n in zip(RESIZE_LAYOUTS[attrs["layout"]], size):
        shape[axis] = n
    return checked(shape, x.dtype, x.lo, x.hi, False)  # each output is a convex combination


def _resize_source(n_in: int, n_out: int, mode: str) -> np.ndarray:
    """topi's source coordinate of each output position (topi/image/resize.py, get_inx)."""
    x, scale = np.arange(n_out, dtype="float64"), n_in / n_out
    if mode == "align_corners":
        return (n_in - 1) / (n_out - 1) * x
    if mode == "asymmetric":
        return scale * x
    if mode == "tf_half_pixel_for_nn":
        return (x + 0.5) * scale
    if mode == "pytorch_half_pixel" and n_out == 1:
        return np.zeros(1)
    return (x + 0.5) * scale - 0.5


def _resize_ref(args, attrs):
    (x,) = args
    out = x.astype("float64")
    for axis, n in zip(RESIZE_LAYOUTS[attrs["layout"]], attrs["size"]):
        source = _resize_source(x.shape[axis], n, attrs["coordinate_transformation_mode"])
        low = np.floor(source)
        t = (source - low).reshape([-1 if a == axis else 1 for a in range(4)])
        below, above = (np.take(out, np.clip(k, 0, x.shape[axis] - 1).astype(int), axis) for k in (low, low + 1))
        out = below * (1 - t) + above * t
    return out.astype(x.dtype)


def _resize_accepts(info: ValueInfo) -> bool:
    return info.dtype in RESIZE_DTYPES and _liftable(info, 4)


def _resize_propose(sketch: Sketch, choose: Chooser) -> None:
    x = _lift(sketch, pick(sketch, choose, _resize_accepts), 4)
    mode = choose.choice(RESIZE_MODES)
    low = 2 if mode == "align_corners" else 1
    sketch.add("resize2d", [x], {"size": [choose.integer(low, 6), choose.integer(low, 6)],
                                 "layout": choose.choice(list(RESIZE_LAYOUTS)),
                                 "coordinate_transformation_mode": mode, "rounding_method": "round"})


RESIZE2D = OpDef(
    "resize2d", _resize_infer,
    lambda R, args, at: R.op.image.resize2d(args[0], size=tuple(at["size"]), layout=at["layout"], method="linear",
                                            coordinate_transformation_mode=at["coordinate_transformation_mode"],
                                            rounding_method=at["rounding_method"]),
    _resize_ref, _resize_propose, _resize_accepts,
    notes="R.image.resize2d with method linear: each output interpolates the two nearest source pixels per "
          "axis (clamped at the edges) at topi's source coordinate for the mode.")

# -- losses ----------------------------------------------------------------------------------------


def _cross_entropy_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 2 and not attrs, "cross_entropy_with_logits takes (predictions, labels) and no attribute")
    x, y = args
    _float_operands(args, "cross_entropy_with_logits")
    require(x.rank >= 1 and x.shape == y.shape, "predictions and labels share a shape of rank >= 1")
    lo, hi = product_range(x, y, x.size)
    checked((), x.dtype, lo, hi, False)  # the sum, in the operands' dtype
    batch = x.shape[0] if x.rank > 1 else 1
    return checked((), x.dtype, -hi / batch, -lo / batch, False)


def _cross_entropy_ref(args, attrs):
    x, y = args
    total = -np.sum(x.astype("float64") * y.astype("float64"))
    return np.asarray(total / (x.shape[0] if x.ndim > 1 else 1)).astype(x.dtype)


def _cross_entropy_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _cross_entropy_accepts)
    info = sketch.infos[x]
    y = _weight(sketch, choose, info.shape, info.dtype, *choose.choice([(0.0, 1.0), (-4.0, 4.0)]),
                lambda i: valid(_cross_entropy_infer, [info, i], {}))
    sketch.add("cross_entropy_with_logits", [x, y], {})


def _cross_entropy_accepts(info: ValueInfo) -> bool:
    return valid(_cross_entropy_infer, [info, probe(info, 0, 1)], {})


CROSS_ENTROPY_WITH_LOGITS = smooth(OpDef(
    "cross_entropy_with_logits", _cross_entropy_infer,
    lambda R, args, at: R.op.nn.cross_entropy_with_logits(*args), _cross_entropy_ref, _cross_entropy_propose,
    _cross_entropy_accepts,
    notes="-sum(predictions * labels), divided by the batch (the first dim) when the rank is above 1."))

NLL_REDUCTIONS = ("mean", "sum", "none")


def _nll_loss_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    """predictions (N, C, d...) or (C,), targets (N, d...) or (), weights (C,) or absent (ones).
    TVM's kernel reads predictions[t] before it selects on ``t != ignore_index``, so every
    target must be a class, ignored or not; "mean" divides by the weights the targets pick, so
    there no target may be ignored (ignore_index outside their range) and weights are positive."""
    require(len(args) in (2, 3) and set(attrs) == {"reduction", "ignore_index"},
            "nll_loss takes (predictions, targets[, weights]), reduction and ignore_index")
    x, t = args[:2]
    _float_operands([x, *args[2:]], "nll_loss")
    require(x.rank >= 1 and is_int(t.dtype) and t.dtype != "uint8", "nll_loss takes float predictions, int targets")
    classes = x.shape[1] if x.rank > 1 else x.shape[0]
    require(t.shape == ((x.shape[0], *x.shape[2:]) if x.rank > 1 else ()), "targets are predictions without C")
    require(0 <= t.lo and t.hi <= classes - 1, f"operand 1 (targets) must lie in [0, {classes - 1}]")
    reduction, ignore = attrs["reduction"], attrs["ignore_index"]
    require(reduction in NLL_REDUCTIONS and isinstance(ignore, int) and not isinstance(ignore, bool),
            "reduction is mean, sum or none; ignore_index an int")
    w = args[2] if len(args) == 3 else ValueInfo((classes,), x.dtype, 1.0, 1.0)
    require(w.shape == (classes,), "weights are (C,)")
    lo, hi = product_range(x, w, 1)
    lo, hi = -hi, -lo
    if reduction == "none":
        return checked(t.shape, x.dtype, lo, hi, x.exact and len(args) == 2)
    n = max(t.size, 1)
    checked((), x.dtype, n * lo, n * hi, False)
    if reduction == "sum":
        return checked((), x.dtype, n * lo, n * hi, False)
    require(not t.lo <= ignore <= t.hi, "operand 1 (targets): a mean over targets that may all be ignored "
                                        "divides by zero")
    require(w.lo > 0, "operand 2 (weights): a mean divides by the weights the targets pick, which must be positive")
    checked((), x.dtype, n * w.lo, n * w.hi, False)
    bound = max(abs(x.lo), abs(x.hi)) * w.hi / w.lo  # a weighted mean of -p
    return checked((), x.dtype, max(lo, -bound), min(hi, bound), False)


def _nll_loss_ref(args, attrs):
    x, t = args[0].astype("float64"), args[1].astype("int64")
    classes = x.shape[1] if x.ndim > 1 else x.shape[0]
    w = args[2].astype("float64") if len(args) == 3 else np.ones(classes)
    picked = np.take_along_axis(x, np.expand_dims(t, 1), 1).squeeze(1) if x.ndim > 1 else x[t]
    kept = t != attrs["ignore_index"]
    loss = np.where(kept, -picked * w[t], 0.0)
    if attrs["reduction"] == "sum":
        loss = loss.sum()
    elif attrs["reduction"] == "mean":
        loss = loss.sum() / np.where(kept, w[t], 0.0).sum()
    return np.asarray(loss).astype(args[0].dtype)


def _nll_loss_accepts(info: ValueInfo) -> bool:
    return info.dtype in FLOATS and 1 <= info.rank <= 4


def _nll_loss_draw(sketch: Sketch, choose: Chooser) -> tuple[list[int], dict, tuple[int, ...]]:
    """nll_loss's operands (predictions, targets[, weights]) and attributes, and the shape of its
    result with reduction "none" (the targets')."""
    x = pick(sketch, choose, _nll_loss_accepts)
    info = sketch.infos[x]
    classes = info.shape[1] if info.rank > 1 else info.shape[0]
    shape = (info.shape[0], *info.shape[2:]) if info.rank > 1 else ()
    reduction = choose.choice(NLL_REDUCTIONS)
    ignore = choose.choice([-100, -1] + ([] if reduction == "mean" else list(range(classes))))
    attrs = {"reduction": reduction, "ignore_index": ignore}
    t = operand(sketch, choose, [shape], choose.choice(["int64", "int32"]), 0, classes - 1,
                lambda i: valid(_nll_loss_infer, [info, i], attrs))
    args = [x, t]
    if choose.boolean():
        args.append(_weight(sketch, choose, (classes,), info.dtype, 0.5, 2.0,
                            lambda i: valid(_nll_loss_infer, [info, sketch.infos[t], i], attrs)))
    return args, attrs, shape


def _nll_loss_propose(sketch: Sketch, choose: Chooser) -> None:
    args, attrs, _ = _nll_loss_draw(sketch, choose)
    if valid(_nll_loss_infer, [sketch.infos[a] for a in args], attrs):
        sketch.add("nll_loss", args, attrs)


# Linear in the predictions; TVM's gradient reaches neither the targets nor the weights ("The
# gradient w.r.t. targets and weights are not available"): a loss program holds them constant.
NLL_LOSS = smooth(OpDef(
    "nll_loss", _nll_loss_infer,
    lambda R, args, at: R.op.nn.nll_loss(*args, reduction=at["reduction"], ignore_index=at["ignore_index"]),
    _nll_loss_ref, _nll_loss_propose, _nll_loss_accepts,
    notes="-predictions[n, t, ...] * weights[t] (0 where t is ignore_index), summed, averaged over the "
          "weights picked, or kept per target. Targets always name a class: TVM's kernel reads "
          "predictions[t] before selecting on ignore_index. With \"mean\", no target is ignored."),
    held_constant=lambda attrs: (1, 2))

# -- nll_loss_backward: the gradient of nll_loss (relax.grad) ----------------------------------------


def _nll_loss_backward_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    """(output_grad, predictions, targets[, weights]): the operands after output_grad as nll_loss
    takes them (every target a class; with "mean" none ignored and the weights positive), and
    output_grad shaped as nll_loss's result. Each element is 0 or -weight[t] * output_grad (over
    the picked weights' sum with "mean", a factor in (0, 1])."""
    require(len(args) in (3, 4), "nll_loss_backward takes (output_grad, predictions, targets[, weights])")
    grad, x, t = args[:3]
    classes = x.shape[1] if x.rank > 1 else x.shape[0]
    forward = list(args[1:])
    if len(args) == 4 and args[3].rank == 1 and args[3].shape[0] >= classes:
        # Relax's type rule lets the weights be longer than the classes (TVM's tests write (4,) for 3
        # classes); the kernel reads weights[t] only, so the first ``classes`` are the ones that count
        forward[2] = ValueInfo((classes,), args[3].dtype, args[3].lo, args[3].hi, args[3].exact)
    try:
        _nll_loss_infer(forward, attrs)  # the forward's rules
    except OpError as exc:  # its operand k is ours k + 1 (the importer narrows the operand a rule names)
        raise OpError(re.sub(r"\boperand (\d+)\b", lambda m: f"operand {int(m.group(1)) + 1}", str(exc))) from None
    require(grad.dtype == x.dtype, "output_grad has the predictions' dtype")
    require(grad.shape == (t.shape if attrs["reduction"] == "none" else ()),
            "output_grad has nll_loss's result shape (the targets' with reduction none, else a scalar)")
    w = args[3] if len(args) == 4 else ValueInfo((classes,), x.dtype, 1.0, 1.0)
    if attrs["reduction"] == "mean":
        products = [-g for g in (grad.lo, grad.hi)]
    else:
        products = [-v * g for v in (w.lo, w.hi) for g in (grad.lo, grad.hi)]
    return checked(x.shape, x.dtype, min(0.0, *products), max(0.0, *products), False)


def _nll_loss_backward_ref(args, attrs):
    grad, x, t = args[0].astype("float64"), args[1], args[2].astype("int64")
    classes = x.shape[1] if x.ndim > 1 else x.shape[0]
    w = args[3].astype("float64") if len(args) == 4 else np.ones(classes)
    picked = np.where(t != attrs["ignore_index"], w[t], 0.0)  # each target's weight, 0 where ignored
    if attrs["reduction"] == "mean":
        grad = grad / picked.sum()
    each = -picked * np.broadcast_to(grad, t.shape)  # d loss / d predictions[n, t_n, ...]
    out = np.zeros(x.shape)
    if x.ndim == 1:
        out[t] = each
    else:
        hit = np.expand_dims(t, 1) == np.arange(classes).reshape((1, classes) + (1,) * (x.ndim - 2))
        out = np.where(hit, np.expand_dims(each, 1), 0.0)
    return out.astype(x.dtype)


def _nll_loss_backward_propose(sketch: Sketch, choose: Chooser) -> None:
    args, attrs, shape = _nll_loss_draw(sketch, choose)
    x = sketch.infos[args[0]]
    args = [operand(sketch, choose, [shape if attrs["reduction"] == "none" else ()], x.dtype, -4.0, 4.0), *args]
    if valid(_nll_loss_backward_infer, [sketch.infos[a] for a in args], attrs):
        sketch.add("nll_loss_backward", args, attrs)


NLL_LOSS_BACKWARD = OpDef(
    "nll_loss_backward", _nll_loss_backward_infer,
    lambda R, args, at: R.op.grad.nll_loss_backward(*args, reduction=at["reduction"], ignore_index=at["ignore_index"]),
    _nll_loss_backward_ref, _nll_loss_backward_propose, _nll_loss_accepts,
    notes="The gradient of nll_loss at output_grad: -weights[t] * output_grad at each target's class (over "
          "the picked weights' sum with \"mean\"), 0 elsewhere and for ignored targets. Operands as for "
          "nll_loss (every target a class; with \"mean\", none ignored).")

OPS: list[OpDef] = [PAD, MAX_POOL2D, AVG_POOL2D, ADAPTIVE_AVG_POOL2D, RMS_NORM, LAYER_NORM, GROUP_NORM, BATCH_NORM,
                    BATCH_NORM_TRAINING, CONV1D, CONV2D, ATTENTION,
                    # what real networks hold besides (benchmarks/model_import.py)
                    DROPOUT, MAX_POOL1D, MAX_POOL3D, AVG_POOL1D, AVG_POOL3D, CONV3D, PRELU, CONV2D_TRANSPOSE,
                    # what TVM's own tests hold besides
                    CROSS_ENTROPY_WITH_LOGITS, NLL_LOSS, NLL_LOSS_BACKWARD, CONV1D_TRANSPOSE, CONV3D_TRANSPOSE,
                    RESIZE2D,
                    # whole tuples, as TVM's tests bind and return them
                    whole_tuple(BATCH_NORM, 3), whole_tuple(BATCH_NORM_TRAINING, 3), whole_tuple(DROPOUT, 2)]

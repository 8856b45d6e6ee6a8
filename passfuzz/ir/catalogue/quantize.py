"""Quantization: dequantize, and quantize where its rounding is exact.

Both take a scale and a zero point per channel of one axis, or one for the whole tensor (a
scalar or a tensor of ones' shape, which TVM reads at index 0). TVM legalizes them
(relax/transform/legalize_ops/qdq.py) as out = (float32(data) - zp) * float32(scale), the
difference taken in int32 for integer data, and out = clip(round(data / scale) + zp) cast to the
integer dtype.
"""

from __future__ import annotations

import math

import numpy as np

from passfuzz.ir.program import numpy_dtype

from .base import (
    INT_RANGE,
    Chooser,
    OpDef,
    Sketch,
    ValueInfo,
    checked,
    is_float,
    normalize_axis,
    operand,
    pick,
    require,
    valid,
)

DEQUANTIZE_INPUTS = ("int8", "uint8", "int32", "float16", "float32")
SCALES = ("float32", "float16")
ZERO_POINTS = ("int8", "uint8", "int32")
DEQUANTIZE_OUTPUTS = ("float32", "float16")


def _per_channel(param: ValueInfo, channels: int, name: str) -> None:
    require(param.shape == () or param.shape == (channels,) or (param.rank >= 1 and set(param.shape) == {1}),
            f"{name} is a scalar, a tensor of ones' shape or one value per channel ({channels})")


def _qparams(args: list[ValueInfo], attrs: dict) -> tuple[ValueInfo, ValueInfo, ValueInfo, int]:
    require(len(args) == 3 and set(attrs) == {"axis", "out_dtype"}, "takes (data, scale, zero_point), axis, out_dtype")
    x, scale, zp = args
    require(x.rank >= 1, "data of rank >= 1")
    axis = normalize_axis(attrs["axis"], x.rank)
    require(scale.dtype in SCALES and zp.dtype in ZERO_POINTS, "scale is float32 or float16, zero_point an int")
    _per_channel(scale, x.shape[axis], "operand 1 (scale)")
    _per_channel(zp, x.shape[axis], "operand 2 (zero_point)")
    return x, scale, zp, axis


def _channels(param: np.ndarray, rank: int, axis: int) -> np.ndarray:
    """``param`` broadcast against the data: one value for the tensor, or one per channel."""
    if param.size == 1:
        return param.reshape(())
    shape = [1] * rank
    shape[axis] = -1
    return param.reshape(shape)


# -- dequantize ---------------------------------------------------------------------------------------


def _dequantize_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    x, scale, zp, _ = _qparams(args, attrs)
    require(x.dtype in DEQUANTIZE_INPUTS and attrs["out_dtype"] in DEQUANTIZE_OUTPUTS,
            f"dequantize takes {', '.join(DEQUANTIZE_INPUTS)} data to float32 or float16")
    if not is_float(x.dtype):
        checked((), "int32", x.lo - zp.hi, x.hi - zp.lo, True)  # the difference, in int32
    products = [d * s for d in (x.lo - zp.hi, x.hi - zp.lo) for s in (scale.lo, scale.hi)]
    checked((), "float32", min(products), max(products), False)
    # float16 results are clipped to its finite range, which the range rule keeps them well inside
    return checked(x.shape, attrs["out_dtype"], min(products), max(products), False)


def _dequantize_ref(args, attrs):
    x, scale, zp = args
    axis = attrs["axis"] % x.ndim
    if is_float(x.dtype.name):
        diff = x.astype("float32") - _channels(zp, x.ndim, axis).astype("float32")
    else:
        diff = (x.astype("int64") - _channels(zp, x.ndim, axis).astype("int64")).astype("float32")
    out = diff * _channels(scale, x.ndim, axis).astype("float32")
    return out.astype(numpy_dtype(attrs["out_dtype"]))


def _dequantize_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, lambda i: i.dtype in DEQUANTIZE_INPUTS and i.rank >= 1)
    info = sketch.infos[x]
    axis = choose.integer(-info.rank, info.rank - 1)
    shapes = [(info.shape[axis],), (), (1,)]
    attrs = {"axis": axis, "out_dtype": choose.choice(DEQUANTIZE_OUTPUTS)}
    scale = operand(sketch, choose, shapes, choose.choice(SCALES), 0.125, 2.0, lambda i: i.lo > 0)
    zp = operand(sketch, choose, shapes, choose.choice(ZERO_POINTS), 0, 8)
    args = [info, sketch.infos[scale], sketch.infos[zp]]
    try:
        _dequantize_infer(args, attrs)
    except ValueError:
        return
    sketch.add("dequantize", [x, scale, zp], attrs)


DEQUANTIZE = OpDef(
    "dequantize", _dequantize_infer,
    lambda R, args, at: R.op.dequantize(*args, axis=at["axis"], out_dtype=at["out_dtype"]),
    _dequantize_ref, _dequantize_propose, lambda i: i.dtype in DEQUANTIZE_INPUTS and i.rank >= 1,
    notes="(data - zero_point) * scale in float32 (the difference in int32 for integer data), then the "
          "out_dtype; scale and zero_point per channel of axis, or one for the tensor.")

# -- quantize -----------------------------------------------------------------------------------------

QUANTIZE_INPUTS = ("float32", "float16")
QUANTIZE_OUTPUTS = ("int8", "uint8")


def _quantize_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    """Rounding jumps, so data and scale must be exact; the quotient is then one IEEE division,
    the same in numpy as in TVM, and rounds half to even in both."""
    x, scale, zp, _ = _qparams(args, attrs)
    out = attrs["out_dtype"]
    require(x.dtype in QUANTIZE_INPUTS and out in QUANTIZE_OUTPUTS,
            f"quantize takes {', '.join(QUANTIZE_INPUTS)} data to {', '.join(QUANTIZE_OUTPUTS)}")
    require(x.exact and scale.exact, "quantize rounds: an inexact float could round to the next integer")
    require(scale.lo > 0, "operand 1 (scale) must be positive")
    quotients = [a / b for a in (x.lo, x.hi) for b in (scale.lo, scale.hi)]
    checked((), "float32", min(quotients), max(quotients), True)
    low, high = INT_RANGE[out]
    lo = min(max(math.floor(min(quotients)) + zp.lo, low), high)
    hi = max(min(math.ceil(max(quotients)) + zp.hi, high), low)
    return checked(x.shape, out, lo, hi, True)


def _quantize_ref(args, attrs):
    x, scale, zp = args
    axis = attrs["axis"] % x.ndim
    wide = "float32" if "float32" in (x.dtype.name, scale.dtype.name) else "float16"
    quotient = x.astype(wide) / _channels(scale, x.ndim, axis).astype(wide)
    low, high = INT_RANGE[attrs["out_dtype"]]
    rounded = np.round(quotient).astype("float64") + _channels(zp, x.ndim, axis).astype("float64")
    return np.clip(rounded, low, high).astype(attrs["out_dtype"])


def _quantize_accepts(info: ValueInfo) -> bool:
    return info.dtype in QUANTIZE_INPUTS and info.rank >= 1 and info.exact


def _quantize_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _quantize_accepts)
    info = sketch.infos[x]
    axis = choose.integer(-info.rank, info.rank - 1)
    shapes = [(info.shape[axis],), (), (1,)]
    attrs = {"axis": axis, "out_dtype": choose.choice(QUANTIZE_OUTPUTS)}
    scale = operand(sketch, choose, shapes, choose.choice(SCALES), 0.125, 2.0, lambda i: i.lo > 0 and i.exact)
    zp = operand(sketch, choose, shapes, choose.choice(ZERO_POINTS), 0, 8)
    if valid(_quantize_infer, [info, sketch.infos[scale], sketch.infos[zp]], attrs):
        sketch.add("quantize", [x, scale, zp], attrs)


QUANTIZE = OpDef(
    "quantize", _quantize_infer,
    lambda R, args, at: R.op.quantize(*args, axis=at["axis"], out_dtype=at["out_dtype"]),
    _quantize_ref, _quantize_propose, _quantize_accepts,
    notes="clip(round(data / scale) + zero_point) in out_dtype's range, rounding half to even; exact data and "
          "scale only (the rounding jumps), positive scales.")

OPS: list[OpDef] = [DEQUANTIZE, QUANTIZE]

"""More argument values for one Program: its input parameters redrawn inside their declared ranges.

A compiled pair of modules is checked on each draw as well as on the Program's own arguments
(``--argument-draws``): a run costs a millisecond where a compile and VM creation cost tens. The
draws cycle through three kinds, each a value pattern a wrong rewrite can hinge on:

- ``edges``: every element one of the range's ends or zero (when inside it), each of them present
  where the tensor has room;
- ``ties``: every element of a tensor equal (arg-reductions, sorting, max against min);
- ``spread``: elements spread uniformly over the range.

Only input parameters are redrawn: a weight's value may be what a pass binds or folds (its
arguments come from the Program), and changing it on one side only would be a false divergence.
bfloat16 inputs keep their values (numpy cannot round into the range without ``ml_dtypes``' care).
The draws are a function of the Program alone, so a shrink candidate gets the same draws each
time it is checked. A draw that leaves the Program invalid (``graph.analyse``) is dropped.
"""

from __future__ import annotations

import dataclasses
import zlib

import numpy as np

from .graph import analyse
from .program import Param, Program, numpy_dtype

KINDS = ("edges", "ties", "spread")


def argument_variants(program: Program, count: int, weights: bool = False) -> list[Program]:
    """Up to ``count`` copies of ``program`` whose input tensors hold other values in their ranges;
    none when it has no input to redraw. ``weights``: redraw the weights too, where both sides are
    built from each copy alike (``passfuzz reduce`` on an imported module, whose weights the
    importer drew), not where the optimized side keeps the Program's own weights."""
    def redrawn(value) -> bool:
        return _redrawn(value) or (weights and isinstance(value, Param) and value.dtype != "bfloat16")

    if not any(redrawn(value) for value in program.values):
        return []
    rng = np.random.default_rng(zlib.crc32(repr(program).encode()))
    variants = []
    for draw in range(count):
        kind = KINDS[draw % len(KINDS)]
        try:
            values = tuple(dataclasses.replace(value, value=_values(value, kind, rng).tolist()) if redrawn(value)
                           else value for value in program.values)
            variant = dataclasses.replace(program, values=values)
            analyse(variant)
        except (ValueError, OverflowError):  # ProgramError, or a range numpy cannot draw from (int64's ends)
            continue
        variants.append(variant)
    return variants


def _redrawn(value) -> bool:
    return isinstance(value, Param) and value.role == "input" and value.dtype != "bfloat16"


def _values(param: Param, kind: str, rng: np.random.Generator) -> np.ndarray:
    dtype = numpy_dtype(param.dtype)
    lo, hi = param.lo, param.hi
    integral = dtype.kind in "iub"
    if integral:
        lo, hi = float(np.ceil(lo)), float(np.floor(hi))
    size = int(np.prod(param.shape))
    if kind == "edges":
        ends = sorted({lo, hi} | ({0.0} if lo <= 0 <= hi else set()))
        drawn = rng.choice(ends, size=size)
        if size >= len(ends):  # each end at least once, wherever the tensor has room for all
            drawn[rng.choice(size, size=len(ends), replace=False)] = ends
    elif kind == "ties":
        drawn = np.full(size, rng.integers(lo, hi + 1) if integral else rng.uniform(lo, hi))
    else:
        drawn = rng.integers(lo, hi + 1, size=size) if integral else rng.uniform(lo, hi, size=size)
    # Rounding to a narrow float may step outside the range: such elements fall back to the ends.
    with np.errstate(invalid="ignore", over="ignore"):  # a range no dtype holds fails analyse() instead
        array = drawn.astype(dtype)
        wide = array.astype("float64")
        array = np.where(wide < lo, np.array(lo).astype(dtype), np.where(wide > hi, np.array(hi).astype(dtype), array))
    return array.reshape(param.shape)

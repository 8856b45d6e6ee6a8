"""Shared by the catalogue tests: value facts, calling one op's rules, deterministic choosers."""


import numpy as np
import pytest

from passfuzz.ir.catalogue import BY_NAME, ValueInfo
from passfuzz.ir.catalogue.base import RandomChooser

F = lambda shape, lo=-4, hi=4, dtype="float32", exact=True: ValueInfo(shape, dtype, lo, hi, exact)  # noqa: E731
approx = lambda v: pytest.approx(v, rel=1e-5, abs=1e-12)  # noqa: E731 - float bounds carry rounding slack


def infer(op, *args, **attrs):
    return BY_NAME[op].infer(list(args), attrs)


def ref(op, *arrays, **attrs):
    return BY_NAME[op].reference(list(arrays), attrs)


class SeededChooser(RandomChooser):
    """A Chooser from a seeded random.Random (constant arrays at the low bound)."""

    def array(self, shape, dtype, lo, hi):
        return np.full(shape, lo, dtype)


class TurnChooser:
    """Deterministic choices: option ``turn`` modulo their number (turn 0 takes the first option);
    constant arrays at the low bound, or at the high one when ``high_arrays`` and ``turn`` is odd."""

    def __init__(self, turn, high_arrays=False):
        self.turn, self.high_arrays = turn, high_arrays

    def choice(self, options):
        return list(options)[self.turn % len(options)]

    def integer(self, lo, hi):
        return lo + self.turn % (hi - lo + 1)

    def boolean(self):
        return self.turn % 2 == 1

    def array(self, shape, dtype, lo, hi):
        return np.full(shape, hi if self.high_arrays and self.turn % 2 else lo, dtype)

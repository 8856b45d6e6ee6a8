"""Planted wrong passes that find their pattern in ways the pattern-language passes of
benchmarks/planted_focus do not (``--passes benchmarks.planted_reach.passes:<name>``). Each is
wrong for almost every argument once its pattern is in the program, and leaves other programs
as they are. One line each: the name, how it finds its pattern, what it is wrong on.

- ``exp_by_negation``: PyExprMutator testing op names through a helper that composes them
  ("ex" + "p"); exp(x) becomes exp(-x).
- ``maximum_as_relu``: computed op name ("relax.{}imum"), builds other ops (nn.relu, subtract)
  than it matches; maximum(x, c) with c a constant becomes relu(x - c), dropping the + c.
- ``scale_as_shift``: a table of rules keyed by the op's short name, wanting a constant operand;
  multiply(x, c) becomes add(x, c) (its add rule, x + 0 -> x, is right).
- ``double_as_square``: one value in two places found with ``same_as``; add(x, x) becomes x * x.
- ``even_of_negation``: pattern-language patterns built in a loop over op-name suffixes
  (abs, square, tanh of a negation, taken as even functions); wrong on tanh only: tanh(-x)
  becomes tanh(x).
"""

import numpy as np
import tvm
import tvm_ffi
from tvm import relax
from tvm.relax.dpl import is_op, rewrite_call, wildcard
from tvm.relax.expr_functor import PyExprMutator, mutator

from benchmarks.planted_reach.support import (
    dtype_of,
    is_constant,
    mutator_pass,
    op_name,
)


def _is(call, name: str) -> bool:
    return op_name(call) == "relax." + name


@mutator
class _ExpByNegation(PyExprMutator):
    def visit_call_(self, call):
        call = super().visit_call_(call)
        if _is(call, "ex" + "p"):
            # Wrong: exp(x) is 1 / exp(-x); the reciprocal is missing.
            return relax.Call(call.op, [relax.op.negative(call.args[0])], call.attrs)
        return call


exp_by_negation = mutator_pass("ExpByNegation", _ExpByNegation)

_EXTREMUM = "relax.{}imum"


@mutator
class _MaximumAsRelu(PyExprMutator):
    def visit_call_(self, call):
        call = super().visit_call_(call)
        if op_name(call) == _EXTREMUM.format("max") and dtype_of(call)[:1] in ("f", "i"):
            x, c = call.args
            if is_constant(x):
                x, c = c, x
            if is_constant(c) and not is_constant(x):
                # Wrong: maximum(x, c) is relu(x - c) + c; the + c is missing (right only for c = 0).
                return relax.op.nn.relu(relax.op.subtract(x, c))
        return call


maximum_as_relu = mutator_pass("MaximumAsRelu", _MaximumAsRelu)


def _drop_zero(call, x, c):
    if not np.any(c.value.numpy()) and tvm_ffi.structural_equal(x.ty, call.ty):
        return x  # right: x + 0 is x when the 0 does not broadcast x
    return None


def _shift_for_scale(call, x, c):
    return relax.op.add(x, c)  # Wrong: x * c becomes x + c (the shift rule used for a scale).


_RULES = {"add": _drop_zero, "multiply": _shift_for_scale}


@mutator
class _ScaleAsShift(PyExprMutator):
    def visit_call_(self, call):
        call = super().visit_call_(call)
        rule = _RULES.get(op_name(call).rpartition(".")[2])
        if rule is None or len(call.args) != 2 or dtype_of(call)[:1] not in ("f", "i"):
            return call
        x, c = call.args
        if is_constant(x):
            x, c = c, x
        if not is_constant(c) or is_constant(x):
            return call
        replaced = rule(call, x, c)
        return call if replaced is None else replaced


scale_as_shift = mutator_pass("ScaleAsShift", _ScaleAsShift)

_ADD = tvm.ir.Op.get("relax.add")


@mutator
class _DoubleAsSquare(PyExprMutator):
    def visit_call_(self, call):
        call = super().visit_call_(call)
        if call.op.same_as(_ADD) and call.args[0].same_as(call.args[1]):
            # Wrong: x + x is 2 * x, not x * x (right only at 0 and 2).
            return relax.op.multiply(call.args[0], call.args[0])
        return call


double_as_square = mutator_pass("DoubleAsSquare", _DoubleAsSquare)

_EVEN = ("abs", "square", "tanh")  # Wrong: tanh is odd (tanh(-x) = -tanh(x)), not even.


@tvm.transform.module_pass(opt_level=0, name="EvenOfNegation")
def even_of_negation(mod, ctx):
    for gv, func in list(mod.functions.items()):
        if not isinstance(func, relax.Function):
            continue
        fired = []  # rewrite_call re-normalizes a function it matched nothing in: keep those as they were
        for name in _EVEN:
            x = wildcard()
            pattern = is_op("relax." + name)(is_op("relax.negative")(x))

            def drop_negation(expr, m, x=x, fired=fired):
                fired.append(expr)
                return relax.Call(expr.op, [m[x]], expr.attrs)

            func = rewrite_call(pattern, drop_negation, func)
        if fired:
            mod[gv] = func
    return mod


PLANTED = ["exp_by_negation", "maximum_as_relu", "scale_as_shift", "double_as_square", "even_of_negation"]

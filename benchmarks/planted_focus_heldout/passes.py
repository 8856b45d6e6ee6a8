"""Held-out planted passes for benchmarks/focus.py (``--heldout``): written after the generator's
focus was settled, and run only to check it, never to tune it. Each rewrites one small pattern
wrongly, like benchmarks/planted_focus/passes.py.
"""

import tvm
from tvm import relax
from tvm.relax.dpl import is_const, is_op, wildcard
from tvm.relax.expr_functor import PyExprMutator, mutator

from benchmarks.planted_focus.support import call_pass, same


def _relu_of_negative():
    x = wildcard()
    pattern = is_op("relax.nn.relu")(is_op("relax.negative")(x))
    # Wrong: relu(-x) is -min(x, 0), not -relu(x).
    return pattern, lambda expr, m: relax.op.negative(relax.op.nn.relu(m[x]))


relu_of_negative = call_pass("ReluOfNegative", _relu_of_negative)


def _centered_by_max():
    x, y = wildcard(), wildcard()
    mean = is_op("relax.mean")(y)
    pattern = is_op("relax.subtract")(x, mean)

    def rewrite(expr, m):
        call = m[mean]
        if same(m[x], m[y]) and call.attrs.keepdims:
            # Wrong: x - mean(x) computed as x - max(x).
            return relax.op.subtract(m[x], relax.op.max(m[x], axis=call.attrs.axis, keepdims=True))
        return expr

    return pattern, rewrite


centered_by_max = call_pass("CenteredByMax", _centered_by_max)


@mutator
class _SwapStackOfTwo(PyExprMutator):
    def visit_call_(self, call):
        call = super().visit_call_(call)
        if isinstance(call.op, tvm.ir.Op) and call.op.name == "relax.stack":
            items = call.args[0]
            if isinstance(items, relax.Var):
                items = self.lookup_binding(items)
            if isinstance(items, relax.Tuple) and len(items.fields) == 2:
                # Wrong: the order of the stacked parts matters.
                return relax.op.stack([items.fields[1], items.fields[0]], axis=call.attrs.axis)
        return call


@tvm.transform.module_pass(opt_level=0, name="StackOfTwo")
def stack_of_two(mod, ctx):
    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            mod[gv] = _SwapStackOfTwo(mod).visit_expr(func)
    return mod


def _int_multiply_then_shift():
    x, c, s = wildcard(), is_const(), is_const()
    pattern = is_op("relax.right_shift")(is_op("relax.multiply")(x, c), s)

    def rewrite(expr, m):
        # Wrong: (x * c) >> s is not x * (c >> s) unless c is a multiple of 2**s.
        return relax.op.multiply(m[x], relax.op.right_shift(m[c], m[s]))

    return pattern, rewrite


int_multiply_then_shift = call_pass("IntMultiplyThenShift", _int_multiply_then_shift)

PLANTED = ["relu_of_negative", "centered_by_max", "stack_of_two", "int_multiply_then_shift"]

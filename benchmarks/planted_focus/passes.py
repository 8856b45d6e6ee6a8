"""Passes that each rewrite one small pattern of two or three ops wrongly, for benchmarks/focus.py
(``--passes benchmarks.planted_focus.passes:<name>``). Each is wrong for almost every argument
once its pattern is in the program, so the time to find it is the time to generate the pattern.

The kinds: a pair of ops in a given relation (``neg_into_subtract``), one value read twice
(``square_as_double``), an attribute and a rank (``transpose_pair``), an n-ary op of one arity
(``concat_of_three``), integer arithmetic with constants (``int_divide_of_sum``), a shared operand
across two nodes (``min_after_max``), and three ops sharing operands (``where_less``).
"""

import tvm
from tvm import relax
from tvm.relax.dpl import is_const, is_op, wildcard
from tvm.relax.expr_functor import PyExprMutator, mutator

from benchmarks.planted_focus.support import call_pass, same, static_shape


def _neg_into_subtract():
    a, b = wildcard(), wildcard()
    pattern = is_op("relax.subtract")(a, is_op("relax.negative")(b))
    # Wrong: a - (-b) is a + b, not a - b.
    return pattern, lambda expr, m: relax.op.subtract(m[a], m[b])


neg_into_subtract = call_pass("NegIntoSubtract", _neg_into_subtract)


def _square_as_double():
    x, y = wildcard(), wildcard()
    pattern = is_op("relax.multiply")(x, y)
    # Wrong: x * x becomes x + x (right only where x is 0 or 2).
    return pattern, lambda expr, m: relax.op.add(m[x], m[x]) if same(m[x], m[y]) else expr


square_as_double = call_pass("SquareAsDouble", _square_as_double)


def _transpose_pair():
    x = wildcard()
    inner = is_op("relax.permute_dims")(x)
    pattern = is_op("relax.permute_dims")(inner)
    # Wrong: two permutations cancel only when the second inverts the first (always at rank 2,
    # seldom above).
    return pattern, lambda expr, m: m[x] if len(expr.ty.shape) >= 3 else expr


transpose_pair = call_pass("TransposePair", _transpose_pair)


@mutator
class _ReverseConcat(PyExprMutator):
    def visit_call_(self, call):
        call = super().visit_call_(call)
        if isinstance(call.op, tvm.ir.Op) and call.op.name == "relax.concat":
            items = call.args[0]
            if isinstance(items, relax.Var):
                items = self.lookup_binding(items)
            if isinstance(items, relax.Tuple) and len(items.fields) == 3:
                shapes = {static_shape(f) for f in items.fields}
                if len(shapes) == 1 and None not in shapes:
                    # Wrong: the order of the parts matters.
                    return relax.op.concat(list(reversed(items.fields)), axis=call.attrs.axis)
        return call


@tvm.transform.module_pass(opt_level=0, name="ConcatOfThree")
def concat_of_three(mod, ctx):
    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            mod[gv] = _ReverseConcat(mod).visit_expr(func)
    return mod


def _int_divide_of_sum():
    x, c, d = wildcard(), is_const(), is_const()
    pattern = is_op("relax.floor_divide")(is_op("relax.add")(x, c), d)

    def rewrite(expr, m):
        if "int" not in str(expr.ty.dtype):
            return expr
        # Wrong: floor division does not distribute over a sum ((1 + 1) // 2 != 1 // 2 + 1 // 2).
        return relax.op.add(relax.op.floor_divide(m[x], m[d]), relax.op.floor_divide(m[c], m[d]))

    return pattern, rewrite


int_divide_of_sum = call_pass("IntDivideOfSum", _int_divide_of_sum)


@mutator
class _MinFromMax(PyExprMutator):
    """Remembers each maximum(a, b) and answers minimum(a, b) with it."""

    def __init__(self, mod):
        super().__init__(mod)
        self.maxima = []

    def visit_var_binding_(self, binding):
        super().visit_var_binding_(binding)
        value = binding.value
        if isinstance(value, relax.Call) and isinstance(value.op, tvm.ir.Op) and value.op.name == "relax.maximum":
            self.maxima.append((value.args, binding.var))

    def visit_call_(self, call):
        call = super().visit_call_(call)
        if isinstance(call.op, tvm.ir.Op) and call.op.name == "relax.minimum":
            for args, var in self.maxima:
                if same(args[0], call.args[0]) and same(args[1], call.args[1]):
                    return var  # Wrong: the maximum of the same operands, not their minimum.
        return call


@tvm.transform.module_pass(opt_level=0, name="MinAfterMax")
def min_after_max(mod, ctx):
    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            mod[gv] = _MinFromMax(mod).visit_expr(func)
    return mod


def _where_less():
    a, b, a2, b2 = wildcard(), wildcard(), wildcard(), wildcard()
    pattern = is_op("relax.where")(is_op("relax.less")(a, b), a2, b2)

    def rewrite(expr, m):
        if same(m[a], m[a2]) and same(m[b], m[b2]):
            return relax.op.maximum(m[a], m[b])  # Wrong: where(a < b, a, b) is the minimum.
        return expr

    return pattern, rewrite


where_less = call_pass("WhereLess", _where_less)

PLANTED = ["neg_into_subtract", "square_as_double", "transpose_pair", "concat_of_three", "int_divide_of_sum",
           "min_after_max", "where_less"]

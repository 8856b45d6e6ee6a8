"""Held-out planted wrong passes of the reach set (``--passes
benchmarks.planted_reach_heldout.passes:<name>``): like benchmarks/planted_reach/passes.py, but
finding their pattern in the less obvious ways, and run only to check, never to tune. One line
each: the name, how it finds its pattern, what it is wrong on.

- ``int64_keepdims_negated``: matches by attributes and result dtype only, never an op name (a
  call with a ``keepdims`` attribute and an int64 result); negates the operand, so argmax(x)
  becomes argmax(-x), i.e. argmin(x) (and int64 sum/max/min flip too).
- ``folded_subtrahend``: a Sequential of FoldConstant (C++, does the matching) and a step that
  rewrites only the constants FoldConstant computed; subtract(x, f(consts)) becomes
  subtract(x, -f(consts)).
- ``cse_square``: a Sequential of EliminateCommonSubexpr (C++) and a step that rewrites only
  what it merged (an operand with the alias CSE leaves); multiply(f(x), f(x)) becomes f(x).
- ``softmax_over_unit_axis``: a ``@relax.transform.function_pass`` class (``transform_function``)
  dropping softmax over a size-1 axis; reads the extent of the last axis, not of the softmax
  axis, so softmax(x, axis=k) over a shape whose last extent is 1 becomes ones.
"""

import tvm
from tvm import relax
from tvm.relax.expr_functor import PyExprMutator, mutator

from benchmarks.planted_reach.support import dtype_of, is_constant, mutator_pass


@mutator
class _NegateIndexing(PyExprMutator):
    def visit_call_(self, call):
        int64_result = dtype_of(call) == "int64"
        call = super().visit_call_(call)
        if int64_result and hasattr(call.attrs, "keepdims") and dtype_of(call.args[0])[:1] in ("f", "i"):
            # Wrong: reducing -x is not reducing x (argmax(-x) is argmin(x)).
            return relax.Call(call.op, [relax.op.negative(call.args[0])], call.attrs)
        return call


int64_keepdims_negated = mutator_pass("Int64KeepdimsNegated", _NegateIndexing)

_SUBTRACT = tvm.ir.Op.get("relax.subtract")


def _constants(mod) -> list:
    found = []
    for func in mod.functions.values():
        if isinstance(func, relax.Function):
            relax.analysis.post_order_visit(func, lambda e: found.append(e) if is_constant(e) else None)
    return found


def folded_subtrahend() -> tvm.transform.Pass:
    given = []  # the constants of the module the pipeline was given

    @tvm.transform.module_pass(opt_level=0, name="RememberConstants")
    def remember(mod, ctx):
        given[:] = _constants(mod)
        return mod

    @mutator
    class NegateFolded(PyExprMutator):
        def visit_call_(self, call):
            call = super().visit_call_(call)
            c = call.args[1] if call.op.same_as(_SUBTRACT) else None
            if is_constant(c) and dtype_of(c)[:1] in ("f", "i") and \
                    not any(c.same_as(g) for g in given):
                # Wrong: the folded subtrahend is negated, so x - c becomes x + c.
                return relax.op.subtract(call.args[0], relax.const(-c.value.numpy(), dtype_of(c)))
            return call

    return tvm.transform.Sequential([remember, relax.transform.FoldConstant(),
                                     mutator_pass("NegateFolded", NegateFolded)], name="FoldedSubtrahend")


_MULTIPLY = tvm.ir.Op.get("relax.multiply")


@mutator
class _SquareOfMerged(PyExprMutator):
    def __init__(self, mod, merged):
        super().__init__(mod)
        self.merged = merged

    def visit_call_(self, call):
        call = super().visit_call_(call)
        x = call.args[0] if call.op.same_as(_MULTIPLY) and call.args[0].same_as(call.args[1]) else None
        if x is not None and any(x.same_as(v) for v in self.merged):
            return x  # Wrong: x * x is not x (squaring taken for idempotent).
        return call


@tvm.transform.module_pass(opt_level=0, name="SquareOfMerged")
def _square_of_merged(mod, ctx):
    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            # A dataflow var bound to another var: what EliminateCommonSubexpr leaves of a duplicate.
            merged = [b.value for block in func.body.blocks for b in block.bindings
                      if isinstance(b.var, relax.DataflowVar) and isinstance(b.value, relax.Var)]
            mod[gv] = _SquareOfMerged(mod, merged).visit_expr(func)
    return mod


cse_square = tvm.transform.Sequential([relax.transform.EliminateCommonSubexpr(), _square_of_merged],
                                      name="CSESquare")

_SOFTMAX = tvm.ir.Op.get("relax.nn.softmax")


@mutator
class _SoftmaxOverUnitAxis(PyExprMutator):
    def visit_call_(self, call):
        call = super().visit_call_(call)
        shape = getattr(call.args[0].ty, "shape", None) if call.op.same_as(_SOFTMAX) else None
        # Wrong: the extent read is the last axis's, not that of call.attrs.axis.
        if shape is not None and len(shape) > 0 and isinstance(shape[-1], tvm.tirx.IntImm) and int(shape[-1]) == 1:
            return relax.op.ones_like(call.args[0])  # softmax over one element is 1
        return call


@relax.transform.function_pass(opt_level=0, name="SoftmaxOverUnitAxis")
class softmax_over_unit_axis:  # the decorated class is the callable passfuzz names (lower case)
    def transform_function(self, func, mod, ctx):
        return _SoftmaxOverUnitAxis(mod).visit_expr(func)


PLANTED = ["int64_keepdims_negated", "folded_subtrahend", "cse_square", "softmax_over_unit_axis"]

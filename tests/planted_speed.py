"""Passes that make a module slower on purpose without changing a single output value, and their
fixed twin, for the slowdown oracle (``--check-speed``).

``redundant_maximum`` follows every op whose result is a tensor by a chain of ``maximum(v, v)``:
the value is the same bit for bit (NaN, infinities and signed zeros included), and tvm.compile's
pipeline, which neither fuses nor simplifies, runs each as a kernel of its own, so the optimized
module makes ``REPEATS + 1`` kernel calls where the original makes one.
"""

import tvm
from tvm import relax
from tvm.relax.expr_functor import PyExprMutator, mutator

REPEATS = 24


def _redundant_maximum(repeats: int):
    @mutator
    class Rewrite(PyExprMutator):
        def visit_call_(self, call):
            call = super().visit_call_(call)
            ty = call.ty
            if repeats and isinstance(call.op, tvm.ir.Op) and isinstance(ty, relax.TensorType) \
                    and ty.dtype != "bool" and ty.ndim >= 0:
                value = self.builder_.emit(call)
                for _ in range(repeats - 1):
                    value = self.builder_.emit(relax.op.maximum(value, value))
                return relax.op.maximum(value, value)
            return call

    @tvm.transform.module_pass(opt_level=0, name="RedundantMaximum" if repeats else "RedundantMaximumFixed")
    def rewrite(mod, ctx):
        for gv, func in list(mod.functions.items()):
            if isinstance(func, relax.Function):
                mod[gv] = Rewrite(mod).visit_expr(func)
        return mod

    return rewrite


# Planted slowdown: every tensor an op computes is recomputed REPEATS times as its own maximum.
redundant_maximum = _redundant_maximum(REPEATS)
# The fixed twin: the same pass with nothing to add (it leaves the module as it was).
redundant_maximum_fixed = _redundant_maximum(0)

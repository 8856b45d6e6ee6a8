"""A pass whose rewrite of live code hinges on code that never runs, for the EMI oracle, with its
correct twin.

- ``reciprocal_if_exp`` turns each float division by a constant into a multiplication by the
  constant's reciprocal when the module calls ``exp`` anywhere, an untaken If branch included (a
  fast-math rewrite enabled by an analysis of the whole function). ``x / 10`` and ``x * 0.1``
  differ in the last bit for most ``x``: within the differential oracle's tolerance, so only the
  EMI oracle sees that pruning an untaken branch changes the outputs.
- ``reciprocal_always`` makes the same rewrite whatever the module holds: no code that never
  runs changes what it does, so the EMI oracle has nothing to report.
"""

import numpy as np
import tvm
from tvm import relax
from tvm.relax.expr_functor import PyExprMutator, mutator


def _calls(mod, name: str) -> bool:
    found = []
    for func in mod.functions.values():
        if isinstance(func, relax.Function):
            relax.analysis.post_order_visit(func.body, lambda e: found.append(e) if isinstance(e, relax.Call)
                                            and isinstance(e.op, tvm.ir.Op) and e.op.name == name else None)
    return bool(found)


def _reciprocal(gated: bool):
    @mutator
    class Rewrite(PyExprMutator):
        def visit_call_(self, call):
            call = super().visit_call_(call)
            divisor = call.args[1] if len(call.args) == 2 else None
            if isinstance(call.op, tvm.ir.Op) and call.op.name == "relax.divide" \
                    and isinstance(divisor, tvm.ir.expr.GenericConst) and divisor.value.dtype == "float32":
                inverse = (np.float32(1) / divisor.value.numpy()).astype("float32")
                return relax.op.multiply(call.args[0], relax.const(inverse, "float32"))
            return call

    @tvm.transform.module_pass(opt_level=0, name="ReciprocalIfExp" if gated else "ReciprocalAlways")
    def rewrite(mod, ctx):
        if gated and not _calls(mod, "relax.exp"):
            return mod
        for gv, func in list(mod.functions.items()):
            if isinstance(func, relax.Function):
                mod[gv] = Rewrite(mod).visit_expr(func)
        return mod

    return rewrite


reciprocal_if_exp = _reciprocal(gated=True)
reciprocal_always = _reciprocal(gated=False)

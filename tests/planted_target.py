"""A planted defect in one target's compilation: importing this module makes every build for the
``c`` target compute float32 ``exp`` 5e-4 too large (relative), as a codegen with a sloppy exp
would. That is five times the float32 tolerance between two targets but half the tolerance
against numpy, so the reference oracle cannot see it; only comparing llvm with c can. The llvm
target is untouched."""

import tvm
from tvm import relax
from tvm.relax.expr_functor import PyExprMutator, mutator

_real_build = relax.build


@mutator
class _SloppyExp(PyExprMutator):
    def visit_call_(self, call):
        call = super().visit_call_(call)
        if isinstance(call.op, tvm.ir.Op) and call.op.name == "relax.exp" and call.ty.dtype == "float32":
            return relax.op.multiply(call, relax.const(1.0005, "float32"))
        return call


def _planted_build(mod, target=None, *args, **kwargs):
    if tvm.target.Target(target).kind.name == "c":
        mod = tvm.IRModule(dict(mod.functions), attrs=mod.attrs)
        for gv, func in list(mod.functions.items()):
            if isinstance(func, relax.Function):
                mod[gv] = _SloppyExp(mod).visit_expr(func)
    return _real_build(mod, target, *args, **kwargs)


relax.build = _planted_build

"""What the reach set's planted passes share: a module pass running a PyExprMutator over every
Relax function, and the tests their matching is made of."""

import tvm
from tvm import relax


def mutator_pass(name: str, mutator_class):
    """A module pass that applies a fresh ``mutator_class(mod)`` to every Relax function."""

    @tvm.transform.module_pass(opt_level=0, name=name)
    def apply(mod, ctx):
        for gv, func in list(mod.functions.items()):
            if isinstance(func, relax.Function):
                mod[gv] = mutator_class(mod).visit_expr(func)
        return mod

    return apply


def op_name(call) -> str:
    """The name of the op a call calls ('' for a call of a function)."""
    return call.op.name if isinstance(call.op, tvm.ir.Op) else ""


def is_constant(expr) -> bool:
    return isinstance(expr, tvm.ir.GenericConst)


def dtype_of(expr) -> str:
    return str(getattr(expr.ty, "dtype", ""))

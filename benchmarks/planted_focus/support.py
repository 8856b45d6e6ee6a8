"""What the planted passes of benchmarks/focus.py share: running a rewrite over every Relax
function, and reading through a variable to the call bound to it."""

import tvm
import tvm_ffi
from tvm import relax
from tvm.relax.dpl import rewrite_call


def call_pass(name: str, rewriter_of):
    """A module pass that applies ``rewriter_of()`` (an ``(expr, matches) -> expr`` pair with its
    pattern: ``(pattern, rewriter)``) to every Relax function, as TVM's own Python passes do."""

    @tvm.transform.module_pass(opt_level=0, name=name)
    def apply(mod, ctx):
        pattern, rewriter = rewriter_of()
        for gv, func in list(mod.functions.items()):
            if isinstance(func, relax.Function):
                mod[gv] = rewrite_call(pattern, rewriter, func)
        return mod

    return apply


def same(a, b) -> bool:
    return a.same_as(b) or tvm_ffi.structural_equal(a, b)


def static_shape(expr):
    shape = getattr(expr.ty, "shape", None)
    return None if shape is None or not all(isinstance(d, tvm.tirx.IntImm) for d in shape) else \
        tuple(int(d) for d in shape)

"""passfuzz print-round-trip-02c0481225e3: print-round-trip after LegalizeOps, ToNonDataflow, RemovePurityChecking, CallTIRRewrite.

the module after CallTIRRewrite does not parse back: DiagnosticError: error: alloc_tensor() got an unexpected keyword argument 'ty_args'
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys
import typing

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # again: import tvm wrapped it


INLINE_SCALAR_DTYPES = ('float32', 'float16', 'float64', 'int32', 'int64', 'int8', 'bool')


def printed_as_metadata(const) -> bool:
    """A tensor constant that is not an inline scalar; a constant of another value (the
    ``R.dtype("float32")`` that CallTIRRewrite passes to ``R.builtin.alloc_tensor``) prints inline."""
    value = const.value
    if not isinstance(value, tvm.runtime.Tensor):
        return False
    return len(value.shape) > 0 or str(value.dtype) not in INLINE_SCALAR_DTYPES


def constants_in_print_order(mod):
    """The constants ``mod.script()`` prints as ``metadata["ir.GenericConst"][i]``, indexed by ``i``.
    The printer puts ``main`` last and the other functions in name order (``SortableFunction``,
    src/script/printer/ir/ir.cc), so ``main_transform_params`` comes before ``main``."""
    found = []
    for gv in sorted(mod.functions.keys(), key=lambda g: (g.name_hint == "main", g.name_hint)):
        func = mod[gv]
        if isinstance(func, relax.Function):
            def visit(expr):
                if isinstance(expr, tvm.ir.expr.GenericConst) and printed_as_metadata(expr) \
                        and not any(seen.same_as(expr) for seen in found):
                    found.append(expr)
            relax.analysis.post_order_visit(func.body, visit)
    return found


def printed_back(mod):
    """``mod.script()`` parsed back by ``tvm.script.from_source``, with the names the printer's
    header imports (``extra_vars`` replaces the parser's own) and its constants bound by value.
    The parser's own well-formedness check is left out (it took a third of the time): a module
    that parses back structurally equal to a well-formed one is well formed."""
    names = {"I": tvm.script.ir, "R": tvm.script.relax, "T": tvm.script.tirx, "Axis": tvm.tirx.layout.Axis,
             "TypeVar": typing.TypeVar, "metadata": {"ir.GenericConst": constants_in_print_order(mod)}}
    return tvm.script.from_source(mod.script(), extra_vars=names, check_well_formed=False)


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def scale_add(A: T.Buffer((16,), "float32"), scale: T.float32, C: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            B[i] = A[i] + scale * C[i]

    @R.function
    def main(x0: R.Tensor((16,), dtype="float32"), x1: T.float32, x2: R.Tensor((16,), dtype="float32")) -> R.Tensor((16,), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.scale_add, (x0, x1, x2), out_ty=R.Tensor((16,), dtype="float32"))
            gv: R.Tensor((16,), dtype="float32") = lv
            R.output(gv)
        return gv


mod = relax.transform.LegalizeOps()(Module)
mod = relax.transform.ToNonDataflow()(mod)
mod = relax.transform.RemovePurityChecking()(mod)
mod = relax.transform.CallTIRRewrite()(mod)
try:
    tvm.ir.assert_structural_equal(mod, printed_back(mod))
except Exception as error:
    print("BUG REPRODUCES (print-round-trip): the module after CallTIRRewrite does not print and parse back to itself:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: the module after CallTIRRewrite prints and parses back to itself")

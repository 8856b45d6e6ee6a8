"""passfuzz print-round-trip-96325ae589a2: print-round-trip after LegalizeOps.

the module after LegalizeOps does not parse back: DiagnosticError: error: Check failed: value >= std::numeric_limits<float>::lowest() (-1.79769e+308 vs. -3.40282e+38) : Literal value -1.79769e+308 exceeds minimum of float32
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys
import typing

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


INLINE_SCALAR_DTYPES = ('float32', 'float16', 'float64', 'int32', 'int64', 'int8', 'bool')


def printed_as_metadata(const) -> bool:
    return len(const.value.shape) > 0 or str(const.value.dtype) not in INLINE_SCALAR_DTYPES


def constants_in_print_order(mod):
    """The constants ``mod.script()`` prints as ``metadata["ir.GenericConst"][i]``, indexed by ``i``."""
    found = []
    for gv in sorted(mod.functions.keys(), key=lambda g: g.name_hint):
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
    @R.function
    def main(x0: R.Tensor((1, 1, 3, 4), dtype="float64"), w2: R.Tensor((1, 1, 3, 3), dtype="float64")) -> R.Tensor((1, 1, 3, 3), dtype="float64"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((1, 1, 3, 3), dtype="float64") = R.nn.attention(x0, R.const(np.array([[[[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]]], dtype='float64'), 'float64'), w2, scale=None, causal_mask=None, window_size=None)
            gv: R.Tensor((1, 1, 3, 3), dtype="float64") = lv
            R.output(gv)
        return gv


mod = relax.transform.LegalizeOps()(Module)
try:
    tvm.ir.assert_structural_equal(mod, printed_back(mod))
except Exception as error:
    print("BUG REPRODUCES (print-round-trip): the module after LegalizeOps does not print and parse back to itself:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: the module after LegalizeOps prints and parses back to itself")

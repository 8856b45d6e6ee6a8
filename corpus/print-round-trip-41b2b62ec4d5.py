"""passfuzz print-round-trip-41b2b62ec4d5: print-round-trip after ReorderTakeAfterMatmul.

the module after ReorderTakeAfterMatmul does not parse back: DiagnosticError: error: Check failed: (tvm::relax::TypeBaseCheck(ty, GetType(expr)) != tvm::relax::BaseCheckResult::kFailL0) is false: Invalid annotation. Got rhs value type: T.Tuple(R.Tensor((T.int64(3), T.int64(2)), dtype="float32"), R.Tensor((T.int64(3), T.int64(2)), dtype="float32")), given type: T.Tuple(R.Tensor((T.int64(3), T.int64(2)), dtype="float32"), R.Tensor((T.int64(3), T.int64(2)), dtype="float16"))
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


INLINE_SCALAR_DTYPES = ('float32', 'float16', 'int32', 'int64', 'int8', 'bool')


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
    def main(x0: R.Tensor((3, 1), dtype="float16"), w1: R.Tensor((1, 3), dtype="float16")) -> R.Tuple(R.Tensor((3, 2), dtype="float32"), R.Tensor((3, 2), dtype="float16")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((1, 2), dtype="float16") = R.take(w1, R.const(np.array([0, 0], dtype='int64'), 'int64'), axis=1, mode="fast")
            lv1: R.Tensor((3, 2), dtype="float32") = R.matmul(x0, lv, out_dtype="float32")
            lv2: R.Tensor((3, 2), dtype="float16") = R.matmul(x0, lv, out_dtype=None)
            gv: R.Tuple(R.Tensor((3, 2), dtype="float32"), R.Tensor((3, 2), dtype="float16")) = lv1, lv2
            R.output(gv)
        return gv


mod = relax.transform.ReorderTakeAfterMatmul()(Module)
try:
    tvm.ir.assert_structural_equal(mod, printed_back(mod))
except Exception as error:
    print("BUG REPRODUCES (print-round-trip): the module after ReorderTakeAfterMatmul does not print and parse back to itself:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: the module after ReorderTakeAfterMatmul prints and parses back to itself")

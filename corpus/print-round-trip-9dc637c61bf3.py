"""passfuzz print-round-trip-9dc637c61bf3: print-round-trip after LegalizeOps.

the module after LegalizeOps parses back to another module: ValueError: StructuralEqual check failed, caused by lhs at <root>.functions[I.GlobalVar("adaptive_avg_pool2d")].body.block.body.seq[0].body.body.body.body.body.block.body.body.block.iter_vars[2].dom.extent.a
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys
import typing

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # again: import tvm wrapped it


INLINE_SCALAR_DTYPES = ('float32', 'float16', 'float64', 'int32', 'int64', 'int8', 'bool')


def printed_as_metadata(const) -> bool:
    return len(const.value.shape) > 0 or str(const.value.dtype) not in INLINE_SCALAR_DTYPES


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
    @R.function
    def main(x0: R.Tensor((1, 2, 1, 4), dtype="float32")) -> R.Tensor((1, 2, 1, 3), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((1, 2, 1, 3), dtype="float32") = R.nn.adaptive_avg_pool2d(x0, output_size=[1, 3], layout="NCHW", out_layout="NCHW")
            gv: R.Tensor((1, 2, 1, 3), dtype="float32") = lv
            R.output(gv)
        return gv


mod = relax.transform.LegalizeOps()(Module)
try:
    tvm.ir.assert_structural_equal(mod, printed_back(mod))
except Exception as error:
    print("BUG REPRODUCES (print-round-trip): the module after LegalizeOps does not print and parse back to itself:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: the module after LegalizeOps prints and parses back to itself")

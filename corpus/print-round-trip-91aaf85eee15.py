"""passfuzz print-round-trip-91aaf85eee15: print-round-trip after LegalizeOps.

the module after LegalizeOps does not parse back: AssertionError: data must be int or Expr, but got ~v2_2
Exits 1 while the bug reproduces, 0 once it is fixed.
"""
import os
import re
import runpy
import sys
import tempfile

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


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
    """``mod.script()`` as a Python file of its own, run (``runpy.run_path``) as a user runs what
    TVM printed: its header's imports made real, its constants bound to ``metadata`` by value, and
    the parser's well-formedness check left out (it took a third of the time; a module that parses
    back structurally equal to a well-formed one is well formed). A file, not
    ``tvm.script.from_source``: a function's annotations are Python evaluated at its definition,
    which ``from_source`` never does (a tensor typed by an ``R.Prim`` parameter printed before it)."""
    text = re.sub(r"^# (from \S+ import \w+( as \w+)?)$", r"\1", mod.script(), flags=re.MULTILINE)
    text = "from typing import TypeVar\n" + text.replace("@I.ir_module\n", "@I.ir_module(check_well_formed=False)\n")
    with tempfile.TemporaryDirectory(prefix="passfuzz-") as directory:
        path = os.path.join(directory, "printed.py")
        with open(path, "w") as file:
            file.write(text)
        names = runpy.run_path(path, init_globals={"metadata": {"ir.GenericConst": constants_in_print_order(mod)}})
    return names["Module"]


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((1, 1, 4), dtype="float32"), x1: R.Tensor((4, 1), dtype="float32")) -> R.Tensor(dtype="float32", ndim=3):
        v2_0 = T.int64()
        v2_1 = T.int64()
        v2_2 = T.int64()
        with R.dataflow():
            lv: R.Shape([1, 1, 4]) = R.shape_of(x0)
            lv1: R.Tensor((3,), dtype="int64") = R.shape_to_tensor(lv)
            lv2: R.Shape(ndim=3) = R.tensor_to_shape(lv1)
            lv3: R.Shape([v2_0, v2_1, v2_2]) = R.match_cast(lv2, R.Shape([v2_0, v2_1, v2_2]))
            lv4: R.Tensor((v2_0, v2_1, v2_2), dtype="float32") = R.reshape(x1, R.shape([v2_0, v2_1, v2_2]))
            gv: R.Tensor((v2_0, v2_1, v2_2), dtype="float32") = lv4
            R.output(gv)
        return gv


mod = relax.transform.LegalizeOps()(Module)
try:
    tvm.ir.assert_structural_equal(mod, printed_back(mod))
except Exception as error:
    print("BUG REPRODUCES (print-round-trip): the module after LegalizeOps does not print and parse back to itself:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: the module after LegalizeOps prints and parses back to itself")

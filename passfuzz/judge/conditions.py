"""The conditions a known fault needs in a program to show, checked on the program itself.

A fault found in one op's TVM kernel shows in every program that calls the op *and* meets its
trigger; calling the op is not enough. A fault's ``matches`` entry that accepts any pass's wrong
result on programs calling the op (the kernel's bug, met through whatever pass) names one of
these conditions (``when``), so that a new pass's wrong result on a program that merely holds
the op is not filed under the kernel's fault: without it, a wrong ``maximum`` rewrite upstream of
an ``argmax`` read as the argmax kernel's fault, hundreds of times, and was never reported.

Each condition reads the program's values as the numpy references compute them on the program's
own arguments (``ir.graph.evaluate_all``), or its shapes; a value no reference computes (an
opaque kernel) cannot rule the fault out.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from passfuzz.ir.catalogue.base import NO_REFERENCE
from passfuzz.ir.graph import analyse, evaluate_all
from passfuzz.ir.program import Node, Program


def _arg_reducer_row_at_dtype_limit(program: Program) -> bool:
    """An argmax whose reduced row holds nothing but its dtype's lowest value (an argmin: highest)."""
    reducers = [v for v in program.values if isinstance(v, Node) and v.op in ("argmax", "argmin")]
    if not reducers:
        return False
    values = evaluate_all(program)
    for node in reducers:
        x = values[node.args[0]]
        if x is NO_REFERENCE:
            return True
        x = np.asarray(x)
        if np.issubdtype(x.dtype, np.integer):
            limit = np.iinfo(x.dtype).min if node.op == "argmax" else np.iinfo(x.dtype).max
        else:
            limit = -np.inf if node.op == "argmax" else np.inf
        axis = node.attrs.get("axis")
        at_limit = x == limit
        if at_limit.size and (at_limit.all() if axis is None else at_limit.all(axis=axis).any()):
            return True
    return False


def _scatter_elements_indices_differ_after_axis(program: Program) -> bool:
    """A scatter_elements whose indices and data differ on a dim after the axis, with two or more
    such dims (the kernel reuses the indices' flat offset in the data)."""
    nodes = [v for v in program.values if isinstance(v, Node) and v.op == "scatter_elements"]
    if not nodes:
        return False
    infos = analyse(program, check_values=False)
    for node in nodes:
        data, indices = infos[node.args[0]].shape, infos[node.args[1]].shape
        axis = node.attrs.get("axis", 0) % len(data)
        if len(data) - axis - 1 >= 2 and list(data[axis + 1:]) != list(indices[axis + 1:]):
            return True
    return False


CONDITIONS: dict[str, Callable[[Program], bool]] = {
    "arg-reducer-row-at-dtype-limit": _arg_reducer_row_at_dtype_limit,
    "scatter-elements-indices-differ-after-axis": _scatter_elements_indices_differ_after_axis,
}


def meets(condition: str, program: Program) -> bool:
    """Does ``program`` meet the named condition? An unknown name (a fault file newer than this
    passfuzz) or a program the check cannot read is taken as met: a condition only ever narrows
    a match the fault's signature and ops already make."""
    check = CONDITIONS.get(condition)
    if check is None:
        return True
    try:
        return check(program)
    except Exception:  # noqa: BLE001 - a program outside what the references evaluate
        return True

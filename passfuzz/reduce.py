"""Graph-level reduction, after Hypothesis has shrunk a finding.

Hypothesis shrinks the choice sequence behind a Program: it deletes nodes, picks simpler ops,
smaller shapes and values near zero, and every candidate is re-generated, so it is valid by
construction. Some simplifications are out of its reach because they are not a smaller choice
sequence: skipping a node whose operand already has the right type, or cutting the graph above
a node by turning that node into a parameter holding the values it computed. This reducer tries
those moves greedily, to a fixed point or until its time is up.

Every candidate goes through ``graph.analyse`` before it is run, so reduction can never
produce a Program that generation could not (an index out of range, a zero divisor); and a
candidate is kept only if it shows the *same* fingerprint, so the reducer cannot slip from one
bug to another.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable, Iterator

import numpy as np

from .catalogue.base import ValueInfo, numpy_dtype, same_type
from .graph import analyse, evaluate
from .program import Node, Param, Program, ProgramError


def _replace_uses(program: Program, old: int, new: int) -> Program:
    values = tuple(Node(v.op, tuple(new if a == old else a for a in v.args), v.attrs) if isinstance(v, Node) else v
                   for v in program.values)
    return replace(program, values=values,
                   outputs=tuple(new if o == old else o for o in program.outputs)).without_unused()


def _as_param(program: Program, index: int) -> Program | None:
    """``program`` with value ``index`` replaced by a weight-free input holding its values."""
    infos = analyse(program, check_values=False)
    info = infos[index]
    if not isinstance(info, ValueInfo):  # a tuple value: its parts are cut instead
        return None
    sub = replace(program, values=program.values[:index + 1], outputs=(index,))
    array = np.asarray(evaluate(sub)[0]).astype(numpy_dtype(info.dtype))
    if not np.all(np.isfinite(array.astype("float64"))):
        return None
    lo, hi = float(array.min()), float(array.max())
    param = Param(tuple(info.shape), info.dtype, min(lo, info.lo), max(hi, info.hi), array.tolist(), "input")
    values = program.values[:index] + (param,) + program.values[index + 1:]
    return replace(program, values=values).without_unused()


class Reducer:
    def __init__(self, interesting: Callable[[Program], bool], budget_seconds: float = 60.0):
        self.interesting = interesting
        self.budget_seconds = budget_seconds
        self.attempts = 0

    def candidates(self, program: Program) -> Iterator[Program]:
        yield program.without_unused()  # parameters nothing reads (Hypothesis cannot drop the first)
        if len(program.outputs) > 1:
            for k in range(len(program.outputs)):
                yield replace(program, outputs=program.outputs[:k] + program.outputs[k + 1:]).without_unused()
        infos = analyse(program, check_values=False)
        for index in range(len(program.values) - 1, -1, -1):
            value = program.values[index]
            if not isinstance(value, Node) or value.op == "const":
                continue
            for arg in dict.fromkeys(value.args):
                if same_type(infos[arg], infos[index]):
                    yield _replace_uses(program, index, arg)
            # Cutting an output whose operands are all parameters would leave nothing to test.
            if index not in program.outputs or \
                    any(isinstance(program.values[a], Node) and program.values[a].op != "const" for a in value.args):
                cut = _as_param(program, index)
                if cut is not None:
                    yield cut

    def reduce(self, program: Program) -> Program:
        deadline = time.monotonic() + self.budget_seconds
        progress = True
        while progress and time.monotonic() < deadline:
            progress = False
            for candidate in self.candidates(program):
                if time.monotonic() >= deadline:
                    break
                if _size(candidate) >= _size(program):
                    continue
                try:
                    analyse(candidate)
                except ProgramError:
                    continue
                self.attempts += 1
                if self.interesting(candidate):
                    program, progress = candidate, True
                    break
        return program


def _size(program: Program) -> tuple[int, int, int]:
    """Smaller is simpler: fewer ops, then fewer values, then fewer elements."""
    elements = sum(int(np.prod(p.shape, dtype=np.int64)) for _, p in program.params)
    return len(program.nodes), len(program.values), elements

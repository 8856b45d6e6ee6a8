"""Equivalence modulo inputs: the branches of ``main``'s If nodes that the Program's own arguments
do not take, and the Program with each of them pruned.

A dead branch computes nothing the outputs hold, so any other region of its type in its place
gives a Program that computes the same values *on these arguments* (Le et al., PLDI 2014). The
EMI oracle (passfuzz.judge.emi) compiles a Program and its ``pruned`` twin, each dead branch
replaced by the smallest region of its type (one of its parameters returned, else ``zeros``),
before and after the passes, and asks for bit-identical outputs: no tolerance, since the two run
the same live code. Pruning is a function of the Program, so a finding's record is the Program
alone and its twin is derived again by the reducer, ``replay`` and the reproducer.

Only If nodes of ``main`` are judged: the condition of one nested in a branch is a value of the
branch, which numpy would have to evaluate region by region.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .catalogue.base import NO_REFERENCE, ValueInfo, same_type
from .graph import analyse, evaluate_all
from .program import Node, Program, ProgramError


def dead_branches(program: Program) -> list[tuple[int, str]]:
    """(node index, "then" or "else") of each If of ``main``, the branch its condition does not
    take on the Program's own arguments."""
    ifs = [i for i, v in enumerate(program.values) if isinstance(v, Node) and v.op == "if"]
    if not ifs:
        return []
    with np.errstate(all="ignore"):
        values = evaluate_all(program)
    conditions = [(i, values[program.values[i].args[0]]) for i in ifs]
    # a condition an opaque kernel computes has no numpy value: which branch runs is not known
    return [(i, "else" if bool(taken) else "then") for i, taken in conditions if taken is not NO_REFERENCE]


def smallest_region(operands: list, result) -> dict | None:
    """The region of least content returning ``result``'s type from ``operands`` (their facts): a
    parameter of that type, else ``zeros`` of a tensor type; None for a tuple no parameter has."""
    for k, info in enumerate(operands):
        if isinstance(info, ValueInfo) == isinstance(result, ValueInfo) and same_type(info, result):
            return {"values": [], "outputs": [k]}
    if isinstance(result, ValueInfo):
        zeros = {"op": "zeros", "args": [], "attrs": {"shape": list(result.shape), "dtype": result.dtype}}
        return {"values": [zeros], "outputs": [len(operands)]}
    return None


def with_region(program: Program, node: int, branch: str, region: dict) -> Program:
    """``program`` with the If at ``node`` holding ``region`` as its ``branch``."""
    values = list(program.values)
    values[node] = Node(values[node].op, values[node].args, {**values[node].attrs, branch: region})
    return replace(program, values=tuple(values))


def pruned(program: Program) -> Program | None:
    """``program`` with every dead branch of ``main`` replaced by its ``smallest_region``; None
    when none changes (no If, or every dead branch is already the smallest)."""
    try:
        infos = analyse(program, check_values=False)
        dead = dead_branches(program)
    except (ProgramError, ValueError, TypeError):
        return None
    result = program
    for node, branch in dead:
        operands = [infos[a] for a in program.values[node].args[1:]]
        smallest = smallest_region(operands, infos[node])
        if smallest is not None and smallest != program.values[node].attrs[branch]:
            result = with_region(result, node, branch, smallest)
    if result is program:
        return None
    try:
        analyse(result, check_values=False)
    except ProgramError:
        return None
    return result

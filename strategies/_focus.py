"""Focused generation: most steps draw one of a few ops (those a pass matches) and wire it to the
focused node drawn before it, so the ways two of them can meet are common instead of rare.

A focused step draws an op of the focus and a *relation* to the previous focused node:

* ``feed``: the previous node's value is an operand of the new one, at a drawn operand position
  (chains come from consecutive feeds);
* ``share``: the new node reads one of the previous node's operands;
* ``twice``: one value fills every operand the new node takes from the graph (``add(x, x)``);
* ``free``: the op's own proposal, unsteered.

Steering works through the catalogue's own ``propose`` (so helpers it adds, a clip before a take,
come along and validity stays by construction): the sketch it sees offers only the wanted value
at the steered operand, where that value qualifies. A proposal that still missed the relation (it
made a new constant instead, say) is undone and tried again a few times, then kept unsteered.

Every draw shrinks toward 0: the first op of the focus, ``feed`` at the first operand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from hypothesis import strategies as st

from passfuzz.catalogue import OpDef, OpError
from passfuzz.catalogue.base import TupleInfo
from passfuzz.program import Node

RELATIONS = ("feed", "share", "twice", "free")
_ATTEMPTS = 3  # steered tries before the unsteered proposal


class _SteeredSketch:
    """The sketch a steered proposal sees: its ``candidates`` calls (one per operand the proposal
    reads from the graph, in operand order for most ops) offer only ``value`` at the steered
    ones, where ``value`` qualifies, and with ``fresh`` nothing at the later unsteered ones, so
    the proposal makes a new constant or parameter there (what a rewrite's ``is_const`` needs);
    everything else is the real sketch."""

    def __init__(self, sketch, value: int, positions: set[int] | None, fresh: bool = False):
        self._sketch, self._value, self._positions = sketch, value, positions  # None: every call
        self._fresh, self._calls = fresh, 0

    def __getattr__(self, name):
        return getattr(self._sketch, name)

    def candidates(self, accept, tuples: bool = False) -> list[int]:
        call, self._calls = self._calls, self._calls + 1
        info = self._sketch.infos[self._value]
        steered = self._positions is None or call in self._positions
        if steered and (tuples or not isinstance(info, TupleInfo)) and accept(info):
            return [self._value]
        if self._fresh and not steered and call > 0:
            return []
        return self._sketch.candidates(accept, tuples)


@dataclass
class Focus:
    """The ops to focus on, and the last focused node of the program being drawn."""

    ops: Sequence[OpDef]
    last: int | None = None
    nodes: list[int] = field(default_factory=list)  # every focused node drawn so far

    def step(self, draw, sketch, chooser) -> int:
        """Add one focused op (with its helpers) related to the last focused node; return the
        number of nodes added."""
        op = self.ops[draw(st.integers(0, len(self.ops) - 1))]
        relation = RELATIONS[draw(st.integers(0, len(RELATIONS) - 1))]
        position = draw(st.integers(0, 2))
        fresh = draw(st.booleans())
        size = len(sketch.values)
        if not op.applicable(sketch) and not _fresh_operand(sketch, chooser, op):
            return 0
        anchor = self.last if self.last is not None else size - 1
        previous = sketch.values[anchor]
        shared = list(previous.args) if isinstance(previous, Node) and previous.args else [anchor]
        target = {"feed": anchor, "twice": anchor,
                  "share": shared[draw(st.integers(0, len(shared) - 1))] if relation == "share" else anchor}
        if relation != "free":
            value = target[relation]
            # The drawn operand position first, then the others: where the value does not fit
            # (a matmul's right side of the wrong shape), another position may.
            tries = [None] * _ATTEMPTS if relation == "twice" else \
                [{p} for p in (position, *(p for p in range(_ATTEMPTS) if p != position))]
            for positions in tries:
                if sketch.attempt(lambda: self._propose_related(op, sketch, chooser, value, positions, relation, fresh)):
                    return self._added(op, sketch, size)
        if sketch.attempt(lambda: op.propose(sketch, chooser)):
            return self._added(op, sketch, size)
        return 0

    @staticmethod
    def _propose_related(op: OpDef, sketch, chooser, value: int, positions, relation: str, fresh: bool) -> None:
        size = len(sketch.values)
        op.propose(_SteeredSketch(sketch, value, positions, fresh), chooser)
        node = _newest(sketch, op.name, size)
        reads = node.args.count(value) if node is not None else 0
        if reads < (2 if relation == "twice" else 1):
            raise OpError(f"{op.name} missed the {relation} relation")  # undone by attempt

    def _added(self, op: OpDef, sketch, size: int) -> int:
        node = _newest(sketch, op.name, size)
        if node is not None:
            self.last = max(i for i in range(size, len(sketch.values)) if sketch.values[i] is node)
            self.nodes.append(self.last)
        return max(1, sum(1 for v in sketch.values[size:] if isinstance(v, Node) and v.op != "const"))


def _newest(sketch, name: str, size: int):
    """The last node of op ``name`` added since ``size``, or None."""
    return next((v for v in reversed(sketch.values[size:]) if isinstance(v, Node) and v.op == name), None)


# Ranks and dtypes a fresh first operand is tried in, when nothing in the graph is one the op
# accepts (conv2d wants rank 3 or 4, bitwise ops integers); the shape's dims are drawn.
_RANKS = (2, 4, 3, 1, 0)


def _fresh_operand(sketch, chooser, op: OpDef) -> bool:
    """Add a new runtime input the op accepts as its first operand; False if none is found."""
    dims = [chooser.integer(1, 4) for _ in range(max(_RANKS))]
    for rank in _RANKS:
        for dtype in sketch.dtypes:
            lo, hi = (0, 1) if dtype == "bool" else (-4, 4)
            shape = tuple(dims[:rank])

            def add() -> None:
                index = sketch.add_param(shape, dtype, lo, hi, "input")
                if not op.accepts(sketch.infos[index]):
                    raise OpError("not an operand of this op")

            if sketch.attempt(add):
                return True
    return False

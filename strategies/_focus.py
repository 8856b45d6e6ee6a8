"""Focused generation: most steps draw one of a few ops (those a pass matches) and wire it to the
focused node drawn before it, so the ways two of them can meet are common instead of rare.

A focused step draws an op of the focus and a *relation* to the previous focused node:

* ``feed``: the previous node's value is an operand of the new one, at a drawn operand position
  (chains come from consecutive feeds);
* ``share``: the new node reads one of the previous node's operands;
* ``twice``: the previous node's value fills every operand the new node takes from the graph
  (``add(x, x)``);
* ``mirror``: the new node reads the previous node's operands, in order (``maximum(a, b)`` then
  ``minimum(a, b)``);
* ``wrap``: the new node reads the previous node at a drawn position and its operands at the
  others (``where(less(a, b), a, b)``, ``subtract(x, f(x))``);
* ``free``: the op's own proposal, unsteered.

In some programs (one draw per program; three in four when the pass's source wants constants)
steered operands get fresh company: the unsteered operands become new constants rather than
existing values (what a rewrite that wants ``is_const`` looks for).

Where the pass's patterns nest one focused op inside another (``feeds``: ``floor_divide(add(x, c),
d)`` has add feeding floor_divide at operand 0), half the focused steps draw one such feed and
make it: the producer (unless the last focused node is one), then the consumer reading it at that
operand. The relations above still make every other way the ops can meet.

Steering works through the catalogue's own ``propose`` (so helpers it adds, a clip before a take,
come along and validity stays by construction): the sketch it sees offers only the wanted value
at the steered operand, where that value qualifies. A proposal that still missed the relation (it
made a new constant instead, say) is undone and tried at the other positions, then kept unsteered.

Every draw shrinks toward 0: the first op of the focus, ``feed`` at the first operand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from hypothesis import strategies as st

from passfuzz.ir.catalogue import OpDef, OpError
from passfuzz.ir.catalogue.base import TupleInfo
from passfuzz.ir.program import Node

# feed is listed twice: a value flowing from one focused op into the next is what most rewrites
# match, so it gets a double share of the draws.
RELATIONS = ("feed", "share", "feed", "twice", "mirror", "wrap", "free")
_POSITIONS = 3  # operand positions steered (most ops read at most three values from the graph)


class _SteeredSketch:
    """The sketch a steered proposal sees: its ``candidates`` calls (one per operand the proposal
    reads from the graph, in operand order for most ops) offer only the value ``steer`` gives
    for that call, where it qualifies, and at the unsteered ones every other value, or with
    ``fresh`` nothing, so the proposal makes a new constant or parameter there (what a
    rewrite's ``is_const`` needs); everything else is the real sketch."""

    def __init__(self, sketch, steer: dict[int, int] | int, fresh: bool = False):
        self._sketch, self._steer, self._fresh = sketch, steer, fresh  # an int steers every call
        self._calls = 0
        self.offered: int | str | None = None  # the value just offered, or "const" (fresh), for _SteeredChooser

    def __getattr__(self, name):
        return getattr(self._sketch, name)

    def candidates(self, accept, tuples: bool = False) -> list[int]:
        call, self._calls = self._calls, self._calls + 1
        value = self._steer if isinstance(self._steer, int) else self._steer.get(call)
        if value is not None:
            info = self._sketch.infos[value]
            if (tuples or not isinstance(info, TupleInfo)) and not getattr(info, "shape_value", False) and accept(info):
                self.offered = value
                return [value]
        if self._fresh and value is None and call > 0:
            self.offered = "const"
            return []
        # An unsteered operand is some other value: reading a steered one again is the twice
        # relation's job, and Hypothesis' favourite (the first candidate) is often that value.
        steered = {self._steer} if isinstance(self._steer, int) else set(self._steer.values())
        return [c for c in self._sketch.candidates(accept, tuples) if c not in steered]


class _SteeredChooser:
    """The chooser of a steered proposal: the choice right after a steered value was offered
    takes it where it is among the options (``operand`` would otherwise often make a new
    constant instead), and after a fresh operand was asked for, a new constant; every other
    choice is drawn as usual."""

    def __init__(self, chooser, sketch: _SteeredSketch):
        self._chooser, self._sketch = chooser, sketch

    def __getattr__(self, name):
        return getattr(self._chooser, name)

    def choice(self, options):
        offered, self._sketch.offered = self._sketch.offered, None
        options = list(options)
        if not options:  # fresh company left a proposal nothing to choose from: undo it (attempt)
            raise OpError("no operand left to choose from")
        if offered is not None and any(o == offered and type(o) is type(offered) for o in options):
            return offered
        return self._chooser.choice(options)


def _steerings(relation: str, anchor: int, operands: list[int], position: int, shared: int) -> list:
    """The steerings to try for ``relation``, best first: the drawn operand position, then the
    others (where the value does not fit one, a matmul's right side of the wrong shape, another
    may)."""
    positions = [position, *(p for p in range(_POSITIONS) if p != position)]
    if relation == "feed":
        return [{p: anchor} for p in positions]
    if relation == "share":
        return [{p: shared} for p in positions]
    if relation == "twice":
        return [anchor] * _POSITIONS
    if relation == "mirror":  # the same operands in the same order: maximum(a, b), minimum(a, b)
        return [dict(enumerate(operands))] * _POSITIONS
    # wrap: the node itself at one position, its operands in order at the others: where(a < b, a, b)
    steerings = []
    for p in positions:
        rest = iter(operands)
        steerings.append({k: anchor if k == p else next(rest, None) for k in range(_POSITIONS)})
    return [{k: v for k, v in s.items() if v is not None} for s in steerings]


@dataclass
class Focus:
    """The ops to focus on, and the last focused node of the program being drawn."""

    ops: Sequence[OpDef]
    # (producer, consumer, operand position) the pattern nests: the producer's value at that operand
    feeds: Sequence[tuple[OpDef, OpDef, int]] = ()
    last: int | None = None
    nodes: list[int] = field(default_factory=list)  # every focused node drawn so far
    constants: bool = False  # the pattern wants constants: most programs draw fresh company
    # Drawn once per program: a pattern with constants wants them at every node of it.
    fresh: bool | None = None

    def step(self, draw, sketch, chooser) -> int:
        """Add one focused op (with its helpers) related to the last focused node, or one feed
        the pattern nests; return the number of nodes added."""
        if self.fresh is None:  # with constants wanted, 0 (where shrinking goes) is fresh
            self.fresh = draw(st.integers(0, 3)) != 3 if self.constants else draw(st.booleans())
        if self.feeds and draw(st.booleans()):
            producer, consumer, position = self.feeds[draw(st.integers(0, len(self.feeds) - 1))]
            added = 0
            if self.last is None or getattr(sketch.values[self.last], "op", None) != producer.name:
                added = self._add(draw, sketch, chooser, producer, RELATIONS[draw(st.integers(0, len(RELATIONS) - 1))],
                                  draw(st.integers(0, _POSITIONS - 1)))
                if not added:
                    return 0
            return added + self._add(draw, sketch, chooser, consumer, "feed", position)
        op = self.ops[draw(st.integers(0, len(self.ops) - 1))]
        relation = RELATIONS[draw(st.integers(0, len(RELATIONS) - 1))]
        return self._add(draw, sketch, chooser, op, relation, draw(st.integers(0, _POSITIONS - 1)))

    def _add(self, draw, sketch, chooser, op: OpDef, relation: str, position: int) -> int:
        """Add ``op`` in ``relation`` to the last focused node (the drawn ``position`` first);
        return the number of nodes added (0: none)."""
        fresh = self.fresh
        size = len(sketch.values)
        if not op.applicable(sketch) and not _fresh_operand(sketch, chooser, op):
            return 0
        anchor = self.last if self.last is not None else size - 1
        if relation == "mirror":  # a node reading one value twice has no operands to mirror: an earlier one may
            anchor = next((n for n in reversed(self.nodes) if len(set(sketch.values[n].args)) > 1), anchor)
        previous = sketch.values[anchor]
        operands = list(previous.args) if isinstance(previous, Node) and previous.args else [anchor]
        shared = operands[draw(st.integers(0, len(operands) - 1))] if relation == "share" else anchor
        if relation != "free":
            for steer in _steerings(relation, anchor, operands, position, shared):
                if sketch.attempt(lambda: self._propose_related(op, sketch, chooser, steer, relation, fresh)):
                    return self._added(op, sketch, size)
        if sketch.attempt(lambda: op.propose(sketch, chooser)):
            return self._added(op, sketch, size)
        return 0

    @staticmethod
    def _propose_related(op: OpDef, sketch, chooser, steer, relation: str, fresh: bool) -> None:
        size = len(sketch.values)
        steered = _SteeredSketch(sketch, steer, fresh)
        op.propose(steered, _SteeredChooser(chooser, steered))
        node = _newest(sketch, op.name, size)
        wanted = {steer: 2} if isinstance(steer, int) else {v: list(steer.values()).count(v) for v in steer.values()}
        if node is None or any(node.args.count(v) < n for v, n in wanted.items()):
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

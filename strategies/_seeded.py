"""Programs drawn as mutations of seeds: existing programs (imported modules, corpus records).

Why mutations of seeds at all: a module from a pass's own tests already holds the pattern the
pass rewrites, in a form its author thought of; a few edits around it reach the variants the
author did not test, which random graphs reach rarely.

The draw: first how many mutations (0 to ``max_mutations``), then which seed, then each
mutation in turn. Shrinking lowers the count first, so a failing example goes back toward the
unmutated seed, and then the engine's reducer reduces that as it reduces any Program. Each
mutation is built with the catalogue (the op's ``propose``, its ``infer``) and the result is
checked by ``graph.analyse``, the one validity check: a mutation that leaves the program invalid
is skipped (the program stays as it was), so every program drawn is valid.

The mutations:
- ``retype``: a parameter's shape (one dim) or dtype changes, and every parameter of the same
  type with it, so elementwise partners stay compatible; their arguments are drawn afresh.
- ``revalue``: a parameter's argument is drawn afresh inside its declared range.
- ``edge_values``: a parameter's argument at the edges of its range: all zero (or the bound
  nearest zero), one value throughout (ties), or every element at one bound or the other.
- ``edge_shape``: one dim of a parameter, at any position, set to 1 or to a size that an integer
  attribute of the program (a stride, a repeat count, a section count) does not divide; its
  partners of the same type with it, as ``retype`` does.
- ``repropose``: a node's op is proposed again on the same operands (new attributes).
- ``replace``: another op, proposed on the node's operands, takes the node's place.
- ``insert``: an op proposed on the values before a drawn position; its result either replaces a
  value of the same type for the nodes after it, or becomes one more output.
- ``delete``: a node's users read an earlier value of the same type instead.
- ``splice``: the subgraph under a node of a seed (any seed) is copied in, each of its
  parameters mapped to a value of the same type or kept as a fresh parameter, and attached as
  ``insert`` attaches.

``emi_programs`` applies the node mutations to the If branches a Program's arguments do not take
(passfuzz.ir.emi), the variants the EMI oracle compares with their pruned twins.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Callable, Sequence

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from passfuzz.ir.catalogue import BY_NAME, DTYPES, OPS, OpError, ValueInfo, is_int
from passfuzz.ir.catalogue.base import fit, representable, same_type
from passfuzz.ir.catalogue.structure import IF, analyse_region
from passfuzz.ir.emi import dead_branches, with_region
from passfuzz.ir.graph import ProgramSketch, analyse
from passfuzz.ir.program import Node, Param, Program, ProgramError, numpy_dtype

from ._programs import FLOAT_RANGES, INT_RANGES, DrawChooser

MAX_SPLICE = 6  # most nodes a splice copies: the subgraph under a node, if no larger
# Most elements of an argument a mutation draws: Hypothesis draws each element, so a seed's
# 32768-element parameter would overrun its buffer; such a mutation is skipped.
MAX_DRAWN_ELEMENTS = 1024


def seeded_programs(seeds: Sequence[Program], *, ops: Sequence[str] | None = None, dtypes: Sequence[str] = DTYPES,
                    max_mutations: int = 4) -> st.SearchStrategy[Program]:
    """Programs that are ``seeds`` (valid Programs, e.g. from ``passfuzz.campaign.seeds.find_seeds``)
    after up to ``max_mutations`` mutations (see the module doc). ``ops`` and ``dtypes`` limit
    what mutations add (inserted ops, new parameters and constants, retyped parameters); the
    seeds themselves are drawn as they are.

    Examples shrink toward fewer mutations, i.e. back to an unmutated seed, then toward the
    first seed."""
    seeds = tuple(seeds)
    if not seeds:
        raise InvalidArgument("seeded_programs needs at least one seed")
    for k, seed in enumerate(seeds):
        try:
            analyse(seed)
        except ProgramError as exc:
            raise InvalidArgument(f"seed {k} is not a valid Program: {exc}") from None
    if ops is not None and set(ops) - set(BY_NAME):
        raise InvalidArgument(f"unknown op(s): {sorted(set(ops) - set(BY_NAME))}")
    if not dtypes or set(dtypes) - set(DTYPES):
        raise InvalidArgument(f"dtypes must be a non-empty subset of {DTYPES}")
    if max_mutations < 0:
        raise InvalidArgument("max_mutations must be at least 0")
    chosen = [op for op in (OPS if ops is None else [BY_NAME[n] for n in ops]) if op.drawable]
    mutator = _Mutator(seeds, chosen, tuple(dtypes))

    @st.composite
    def draw_seeded(draw) -> Program:
        count = draw(st.integers(0, max_mutations))
        program = seeds[draw(st.integers(0, len(seeds) - 1))]
        for _ in range(count):
            program = mutator.mutate(program, draw)
        return program

    return draw_seeded()


class _Mutator:
    def __init__(self, seeds: tuple[Program, ...], ops: list, dtypes: tuple[str, ...]):
        self.seeds, self.ops, self.dtypes = seeds, ops, dtypes
        # The order is what shrinking moves toward: the smallest edits first.
        self.kinds: list[Callable] = [self.revalue, self.edge_values, self.repropose, self.retype, self.edge_shape,
                                      self.delete, self.replace, self.insert, self.splice]

    def mutate(self, program: Program, draw) -> Program:
        """One mutation of ``program``, or ``program`` itself when the mutation drawn finds nothing to
        change or leaves the program invalid."""
        kind = self.kinds[draw(st.integers(0, len(self.kinds) - 1))]
        return self.apply(kind, program, DrawChooser(draw)) or program

    def apply(self, kind: Callable, program: Program, chooser) -> Program | None:
        """``kind`` applied to ``program``; None when it finds nothing to change, or when what it
        makes does not pass ``analyse``."""
        try:
            candidate = kind(program, analyse(program), chooser)
            if candidate is None:
                return None
            candidate = _with_arguments(candidate, chooser)
            analyse(candidate)
        except (ProgramError, OpError):
            return None
        return candidate

    # -- parameters ------------------------------------------------------------------------
    def revalue(self, program: Program, infos, chooser) -> Program | None:
        params = [i for i, _ in program.params]
        if not params:
            return None
        i = chooser.choice(params)
        values = list(program.values)
        values[i] = replace(values[i], value=None)  # drawn again by _with_arguments
        return replace(program, values=tuple(values))

    def edge_values(self, program: Program, infos, chooser) -> Program | None:
        """Boundary values random draws rarely give together: the kind (zeros, ties, extremes)
        shrinks toward zeros."""
        params = [i for i, _ in program.params]
        if not params:
            return None
        i = chooser.choice(params)
        old = program.values[i]
        lo, hi = _inward(old.dtype, old.lo, old.hi)
        if is_int(old.dtype):
            lo, hi = float(np.ceil(lo)), float(np.floor(hi))
        kind = chooser.integer(0, 2)
        if kind == 0:  # zeros, or the bound nearest zero
            array = np.full(old.shape, min(max(0.0, lo), hi))
        elif kind == 1:  # one value throughout
            array = np.full(old.shape, chooser.array((), old.dtype, lo, hi))
        else:  # each element at a bound
            array = np.where(chooser.array(old.shape, "bool", 0, 1), hi, lo)
        values = list(program.values)
        values[i] = replace(old, value=array.astype(numpy_dtype(old.dtype)).tolist())
        return replace(program, values=tuple(values))

    def retype(self, program: Program, infos, chooser) -> Program | None:
        params = [i for i, _ in program.params]
        if not params:
            return None
        old = program.values[chooser.choice(params)]
        shape = list(old.shape)
        if shape and chooser.boolean():  # one dim to another size (dims already of that size stay)
            axis = chooser.integer(0, len(shape) - 1)
            shape[axis] = chooser.integer(1, 4)
            dtype = old.dtype
        else:
            dtype = chooser.choice(self.dtypes)
        return _retyped(program, old, tuple(shape), dtype)

    def edge_shape(self, program: Program, infos, chooser) -> Program | None:
        """A size-1 axis at any position, or a size the program's integer attributes do not
        divide (n + 1 for each n from 2 to 8 among them), which random sizes of 1 to 4 rarely are."""
        params = [i for i, p in program.params if p.shape]
        if not params:
            return None
        old = program.values[chooser.choice(params)]
        divisors = sorted({n for v in program.values if isinstance(v, Node) for n in _integers(v.attrs) if 2 <= n <= 8})
        shape = list(old.shape)
        shape[chooser.integer(0, len(shape) - 1)] = chooser.choice([1, *(n + 1 for n in divisors)])
        return _retyped(program, old, tuple(shape), old.dtype)

    # -- nodes -----------------------------------------------------------------------------
    def repropose(self, program: Program, infos, chooser) -> Program | None:
        nodes = [i for i, v in enumerate(program.values) if isinstance(v, Node) and BY_NAME[v.op].propose]
        if not nodes:
            return None
        i = chooser.choice(nodes)
        return self._proposed_at(program, infos, i, BY_NAME[program.values[i].op], chooser)

    def replace(self, program: Program, infos, chooser) -> Program | None:
        nodes = [i for i, v in enumerate(program.values) if isinstance(v, Node) and v.op != "const"]
        if not nodes:
            return None
        i = chooser.choice(nodes)
        sketch = self._sketch(program, infos, i, chooser, operands=program.values[i].args)
        options = [op for op in self.ops if op.name != program.values[i].op and op.applicable(sketch)]
        if not options:
            return None
        return self._proposed_at(program, infos, i, chooser.choice(options), chooser)

    def _proposed_at(self, program, infos, i, op, chooser) -> Program | None:
        """``op`` proposed on the operands of node ``i`` (helpers it adds go just before it), in
        the node's place: its users read the new result."""
        sketch = self._sketch(program, infos, i, chooser, operands=program.values[i].args)
        if not op.applicable(sketch):
            return None
        op.propose(sketch, chooser)
        block = sketch.values[i:]
        if not block or not isinstance(block[-1], Node):
            return None
        return _with_block(program, i, block, drop=True)

    def insert(self, program: Program, infos, chooser, only=None) -> Program | None:
        """``only``: the op to insert (an OpDef), else one drawn."""
        at = chooser.integer(1, len(program.values))
        sketch = self._sketch(program, infos, at, chooser)
        options = [op for op in ([only] if only else self.ops) if op.applicable(sketch)]
        if not options:
            return None
        chooser.choice(options).propose(sketch, chooser)
        return self._attached(program, infos, at, sketch.values[at:], sketch.infos[-1], chooser, kept=only is not None)

    def delete(self, program: Program, infos, chooser) -> Program | None:
        nodes = [i for i, v in enumerate(program.values) if isinstance(v, Node)]
        i = chooser.choice(nodes) if nodes else None
        if i is None:
            return None
        earlier = [r for r in range(i) if _same(infos[r], infos[i])]
        if not earlier:
            return None
        return _redirected(program, i, chooser.choice(earlier), after=i).without_unused()

    def splice(self, program: Program, infos, chooser) -> Program | None:
        donor = self.seeds[chooser.integer(0, len(self.seeds) - 1)]
        cones = [(j, cone) for j in range(len(donor.values)) if isinstance(donor.values[j], Node)
                 for cone in [_cone(donor, j)] if sum(isinstance(donor.values[k], Node) for k in cone) <= MAX_SPLICE]
        if not cones:
            return None
        top, cone = chooser.choice(cones)
        donor_infos = analyse(donor)
        mapped: dict[int, int] = {}  # donor parameter -> a value of the program
        for k in cone:
            if isinstance(donor.values[k], Param):
                same = [r for r in range(len(program.values)) if _same(infos[r], donor_infos[k])]
                choice = chooser.choice(["fresh", *same])
                if choice != "fresh":
                    mapped[k] = choice
        at = chooser.integer(max(mapped.values(), default=-1) + 1, len(program.values))
        block, renumber = [], dict(mapped)
        for k in cone:
            if k in mapped:
                continue
            v = donor.values[k]
            if isinstance(v, Param):  # kept as a parameter of its own, typed statically
                v = replace(v, pack=(), dims=(), unknown_rank=False)
            else:
                v = Node(v.op, tuple(renumber[a] for a in v.args), v.attrs)
            renumber[k] = at + len(block)
            block.append(v)
        return self._attached(program, infos, at, block, donor_infos[top], chooser)

    # -- helpers ---------------------------------------------------------------------------
    def _sketch(self, program, infos, end, chooser, operands=None) -> ProgramSketch:
        """A sketch holding ``program``'s values before ``end``; with ``operands``, proposals may
        take only those (and what they add themselves) as operands."""
        sketch = ProgramSketch(chooser, self.dtypes, self.ops) if operands is None \
            else _OperandsSketch(chooser, self.dtypes, self.ops, set(operands), end)
        sketch.values, sketch.infos = list(program.values[:end]), list(infos[:end])
        return sketch

    def _attached(self, program, infos, at, block, result_info, chooser, kept: bool = False) -> Program | None:
        """``block`` inserted before ``at``; its last value either takes the place of an earlier
        value of its type for every node after the block, or becomes one more output. ``kept``:
        only the place of a value read after the block or output, so the block stays."""
        if not block or not isinstance(block[-1], Node):
            return None
        grown = _with_block(program, at, block)
        result = at + len(block) - 1
        same = [r for r in range(at) if _same(infos[r], result_info)]
        if kept:
            read = {a for v in program.values[at:] if isinstance(v, Node) for a in v.args} | set(program.outputs)
            same = [r for r in same if r in read]
        target = chooser.choice(["output", *same])
        if target == "output":
            return replace(grown, outputs=grown.outputs + (result,))
        return _redirected(grown, target, result, after=result).without_unused()

    def in_dead_branch(self, program: Program, chooser) -> Program | None:
        """A node mutation (repropose, delete, replace, insert, splice) of an If branch the
        Program's arguments do not take; None when there is none, or the mutation finds nothing
        to change or leaves the Program invalid. The branch is mutated as a Program whose
        parameters are the branch's and whose first output its result (the parameters are outputs
        too, so none is dropped); a mutation that adds a parameter is refused, a branch takes none."""
        dead = dead_branches(program)
        if not dead:
            return None
        node, branch = chooser.choice(dead)
        infos = analyse(program)
        operands = [infos[a] for a in program.values[node].args[1:]]
        if not all(isinstance(info, ValueInfo) for info in operands):
            return None  # a tuple is no parameter of a Program
        region = program.values[node].attrs[branch]
        params = tuple(Param(info.shape, info.dtype, info.lo, info.hi, None) for info in operands)
        nodes = tuple(Node(v["op"], tuple(v["args"]), v["attrs"]) for v in region["values"])
        body = Program(params + nodes, (region["outputs"][0], *range(len(params))))
        kind = chooser.choice([self.repropose, self.delete, self.replace, self.insert, self.splice])
        try:
            mutated = kind(body, analyse_region(region, operands), chooser)
            if mutated is None or any(a is not b for a, b in zip(mutated.values, params)) \
                    or any(isinstance(v, Param) or v.attrs.get("local") for v in mutated.values[len(params):]):
                return None
            values = [{"op": v.op, "args": list(v.args), "attrs": v.attrs} for v in mutated.values[len(params):]]
            candidate = with_region(program, node, branch, {"values": values, "outputs": [mutated.outputs[0]]})
            analyse(candidate)
        except (ProgramError, OpError):
            return None
        return candidate


def emi_programs(programs: st.SearchStrategy[Program], *, ops: Sequence[str] | None = None,
                 dtypes: Sequence[str] = DTYPES, max_mutations: int = 4) -> st.SearchStrategy[Program]:
    """Programs of ``programs`` whose untaken If branches carry up to ``max_mutations`` node
    mutations (``_Mutator.in_dead_branch``; spliced subgraphs come from the Program itself), the
    EMI oracle's variants (passfuzz.judge.emi). A Program whose arguments leave no If branch
    untaken first gets an If, on a drawn boolean (inserted as ``insert`` inserts an op: its
    condition an existing bool scalar or a new input), since few drawn programs hold one; the
    choices come first, so that Hypothesis' first, simplest examples of a round hold some too.
    Examples shrink toward fewer mutations and no If inserted, i.e. back to the Program drawn."""
    chosen = [op for op in (OPS if ops is None else [BY_NAME[n] for n in ops]) if op.drawable]

    @st.composite
    def draw_variant(draw) -> Program:
        insert, count = draw(st.booleans()), draw(st.integers(0, max_mutations))
        program = draw(programs)
        chooser, mutator = DrawChooser(draw), _Mutator((program,), chosen, tuple(dtypes))
        if insert and IF in chosen and not dead_branches(program):
            program = mutator.apply(partial(mutator.insert, only=IF), program, chooser) or program
        for _ in range(count):
            program = mutator.in_dead_branch(program, chooser) or program
        return program

    return draw_variant()


class _OperandsSketch(ProgramSketch):
    """A sketch whose proposals pick their operands among ``allowed`` (and what they add)."""

    def __init__(self, chooser, dtypes, ops, allowed: set[int], start: int):
        super().__init__(chooser, dtypes, ops)
        self.allowed, self.start = allowed, start

    def candidates(self, accept, tuples=False) -> list[int]:
        return [i for i in super().candidates(accept, tuples) if i in self.allowed or i >= self.start]


def _retyped(program: Program, old: Param, shape: tuple[int, ...], dtype: str) -> Program:
    """Every parameter of ``old``'s type (its partners in elementwise ops) given ``shape`` and
    ``dtype``, its argument to be drawn again."""
    lo, hi = _range_for(dtype, old.lo, old.hi)
    values = list(program.values)
    for i, p in program.params:
        if p.shape == old.shape and p.dtype == old.dtype:
            values[i] = replace(p, shape=shape, dtype=dtype, lo=lo, hi=hi, value=None, dims=(), unknown_rank=False)
    return program.with_live_symbols(tuple(values))


def _integers(attrs) -> list[int]:
    """The integers in an op's attributes, however nested (flags are not integers here)."""
    if isinstance(attrs, bool):
        return []
    if isinstance(attrs, int):
        return [attrs]
    if isinstance(attrs, dict):
        return [n for v in attrs.values() for n in _integers(v)]
    if isinstance(attrs, (list, tuple)):
        return [n for v in attrs for n in _integers(v)]
    return []


def _same(a, b) -> bool:
    return isinstance(a, ValueInfo) == isinstance(b, ValueInfo) and same_type(a, b)


def _range_for(dtype: str, lo: float, hi: float) -> tuple[float, float]:
    """The declared range a retyped parameter keeps: its old one where ``dtype`` holds it."""
    if dtype == "bool":
        return 0, 1
    lo, hi = fit(dtype, lo, hi)
    if is_int(dtype):
        lo, hi = float(int(-(-lo // 1))), float(int(hi // 1))
    if lo <= hi and representable(dtype, lo, hi):
        return lo, hi
    # A range holding no value of dtype (an integer dtype for [0.25, 0.75]): the first default
    # range, moved into dtype as well (uint8 holds no -8 of [-8, 8]; a draw of it overflows).
    return fit(dtype, *(INT_RANGES if is_int(dtype) else FLOAT_RANGES)[0])


def _with_block(program: Program, at: int, block: Sequence, drop: bool = False) -> Program:
    """``block`` inserted before value ``at`` (its operands already numbered as they will sit:
    below ``at`` the program's values, from ``at`` on its own). With ``drop``, value ``at`` is
    removed and the block's last value takes its place for every reader."""
    shift = len(block) - (1 if drop else 0)

    def moved(j: int) -> int:
        if j < at:
            return j
        return at + len(block) - 1 if drop and j == at else j + shift

    rest = program.values[at + (1 if drop else 0):]
    values = list(program.values[:at]) + list(block) + [
        Node(v.op, tuple(moved(a) for a in v.args), v.attrs) if isinstance(v, Node) else v for v in rest]
    return replace(program, values=tuple(values), outputs=tuple(dict.fromkeys(moved(o) for o in program.outputs)))


def _redirected(program: Program, old: int, new: int, after: int) -> Program:
    """Every node after ``after``, and every output, that reads ``old`` reads ``new`` instead."""
    values = [Node(v.op, tuple(new if a == old else a for a in v.args), v.attrs)
              if isinstance(v, Node) and k > after else v for k, v in enumerate(program.values)]
    outputs = tuple(dict.fromkeys(new if o == old else o for o in program.outputs))
    return replace(program, values=tuple(values), outputs=outputs)


def _cone(program: Program, top: int) -> list[int]:
    """``top`` and every value it is computed from, in program order."""
    cone, stack = {top}, [top]
    while stack:
        v = program.values[stack.pop()]
        if isinstance(v, Node):
            for a in v.args:
                if a not in cone:
                    cone.add(a)
                    stack.append(a)
    return sorted(cone)


def _with_arguments(program: Program, chooser) -> Program:
    """Arguments drawn for the parameters a mutation left without one."""
    if all(not isinstance(v, Param) or v.value is not None for v in program.values):
        return program
    if any(isinstance(v, Param) and v.value is None and np.prod(v.shape, dtype=np.int64) > MAX_DRAWN_ELEMENTS
           for v in program.values):
        raise OpError(f"an argument of more than {MAX_DRAWN_ELEMENTS} elements to draw")
    values = tuple(replace(v, value=chooser.array(v.shape, v.dtype, *_inward(v.dtype, v.lo, v.hi)).tolist())
                   if isinstance(v, Param) and v.value is None else v for v in program.values)
    return replace(program, values=values)


def _inward(dtype: str, lo: float, hi: float) -> tuple[float, float]:
    """[lo, hi] narrowed to bounds the dtype's draw can hold exactly (an imported or computed
    range such as -4.000004 is not a float32; bfloat16 is drawn as float32, then rounded), and an
    integer range moved into the dtype (a branch's parameter takes its operand's range, which
    for uint8 may reach below 0)."""
    if is_int(dtype):
        return fit(dtype, lo, hi)
    if dtype not in ("float32", "float16", "bfloat16"):
        return lo, hi
    width = np.float16 if dtype == "float16" else np.float32
    low, high = width(lo), width(hi)
    if low < lo:
        low = np.nextafter(low, width(np.inf))
    if high > hi:
        high = np.nextafter(high, width(-np.inf))
    return (float(low), float(high)) if low <= high else (lo, hi)

"""Hypothesis strategies for Programs, built on the op catalogue's ``propose`` functions."""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.extra import numpy as hnp

from passfuzz.ir.catalogue import BY_NAME, DTYPES, OPS, OpError, is_float, is_int
from passfuzz.ir.catalogue.base import (
    INTS,
    ValueInfo,
    differentiable_here,
    kinked_here,
    representable,
    valid,
    varying_where_held,
)
from passfuzz.ir.catalogue.motifs import motifs_within
from passfuzz.ir.graph import ProgramSketch
from passfuzz.ir.program import (
    Node,
    Param,
    PrimParam,
    Program,
    numpy_dtype,
    parameter_dependent,
)

from ._focus import Focus

# Declared element ranges of new parameters, simplest first. Positive ranges give divisors;
# small integers make ties and repeated values frequent, which rewrite bugs often need.
FLOAT_RANGES = [(-4.0, 4.0), (0.0, 4.0), (1.0, 4.0), (-4.0, -1.0)]
INT_RANGES = [(-8, 8), (0, 8), (1, 8), (0, 1)]


def tensor_values(shape: tuple[int, ...], dtype: str, lo: float, hi: float) -> st.SearchStrategy[np.ndarray]:
    """Arrays of ``shape`` and ``dtype`` with every element in [lo, hi]: no NaN, no infinity,
    no subnormal; exact zeros, negative zero and repeated values are all likely.

    Examples from this strategy shrink toward arrays of zeros (or of the bound nearest zero)."""
    if dtype == "bool":
        elements = st.booleans()
    elif is_int(dtype):
        elements = st.integers(int(np.ceil(lo)), int(np.floor(hi)))
    elif dtype == "bfloat16":  # float32 draws rounded to bfloat16, then moved back inside [lo, hi]
        elements = st.floats(lo, hi, width=32, allow_nan=False, allow_infinity=False,
                             allow_subnormal=False).map(lambda x: _bfloat16_within(x, lo, hi))
    else:
        width = {"float16": 16, "float64": 64}.get(dtype, 32)
        elements = st.floats(lo, hi, width=width, allow_nan=False, allow_infinity=False, allow_subnormal=False)
    return hnp.arrays(numpy_dtype(dtype), tuple(shape), elements=elements)


def _bfloat16_within(x: float, lo: float, hi: float) -> float:
    """The bfloat16 nearest to x, or its neighbour toward x when rounding left [lo, hi]."""
    value = np.array(x, numpy_dtype("bfloat16"))
    if value < lo or value > hi:
        value = np.nextafter(value, np.array(np.inf if value < lo else -np.inf, value.dtype))
    return float(value)


class DrawChooser:
    """The catalogue's Chooser, backed by a Hypothesis draw function."""

    def __init__(self, draw):
        self.draw = draw

    def choice(self, options):
        return self.draw(st.sampled_from(list(options)))

    def integer(self, lo, hi):
        return self.draw(st.integers(lo, hi))

    def boolean(self):
        return self.draw(st.booleans())

    def array(self, shape, dtype, lo, hi):
        return self.draw(tensor_values(shape, dtype, lo, hi))


def _param_spec(draw, dtypes: Sequence[str], max_rank: int):
    dtype = draw(st.sampled_from(list(dtypes)))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=max_rank)))
    ranges = [(0, 1)] if dtype == "bool" else INT_RANGES if is_int(dtype) else FLOAT_RANGES
    lo, hi = draw(st.sampled_from([r for r in ranges if representable(dtype, *r)]))
    return shape, dtype, lo, hi


def _symbolic_typing(draw, program: Program) -> Program:
    """``program`` with some parameters typed symbolically: a dim becomes a variable (reusing
    one that stands for the same size, or a new one), a whole parameter may get an unknown rank,
    and a variable may also be passed as an R.Shape parameter or be an R.Prim parameter itself
    (an input, or a weight when no input uses it). Only the typing changes, so the program stays
    valid; every choice shrinks toward the static typing."""
    if draw(st.integers(0, 2)) != 2:  # one choice for the whole program keeps shrinking it cheap
        return program
    sizes: dict[str, int] = {}
    values = list(program.values)
    for i, param in program.params:
        if param.pack or not draw(st.booleans()):  # the simplest choice keeps the parameter static
            continue
        if param.role == "input" and draw(st.integers(0, 4)) == 4:
            values[i] = replace(param, unknown_rank=True)
            continue
        dims = []
        for size in param.shape:
            same = [name for name, s in sizes.items() if s == size]
            name = draw(st.sampled_from(["", *same, f"n{len(sizes)}"]))
            sizes.setdefault(name, size) if name else None
            dims.append(name)
        if any(dims):
            values[i] = replace(param, dims=tuple(dims))
    used = [name for v in values if isinstance(v, Param) for name in v.dims if name]
    by_inputs = {name for v in values if isinstance(v, Param) and v.role == "input" for name in v.dims}
    shape_params, prim_params = [], []
    for name in dict.fromkeys(used):
        how = draw(st.integers(0, 3))  # 0, 1: defined by the tensors alone; 2: R.Shape; 3: R.Prim
        if how == 2:
            shape_params.append((name,))
        elif how == 3:  # a weight may define it only if no input uses it (inputs come first)
            role = "input" if name in by_inputs else draw(st.sampled_from(["input", "weight"]))
            prim_params.append(PrimParam(name, role))
    return replace(program, values=tuple(values), shape_params=tuple(shape_params), prim_params=tuple(prim_params))


def relax_programs(*, ops: Sequence[str] | None = None, dtypes: Sequence[str] = DTYPES, min_nodes: int = 1,
                   max_nodes: int = 10, max_params: int = 3, max_rank: int = 3,
                   motifs: bool = True, loss: bool = False, symbolic: bool = True,
                   focus: Sequence[str] = (), focus_constants: bool = False, focus_dtypes: Sequence[str] = (),
                   focus_feeds: Sequence[tuple[str, str, int]] = (),
                   motifs_for: Sequence[str] = (), match_cast: bool = True) -> st.SearchStrategy[Program]:
    """Well-typed Relax programs as passfuzz Programs (plain data; build them with
    ``passfuzz.relax.build.build_module``).

    Programs are DAGs: a value may feed several nodes, parameters are runtime inputs or
    weights (``num_input``), constants may be 0-d, and every value no node consumes is an
    output (several outputs make a tuple). Every index is in range, every integer divisor
    non-zero, no integer overflows and no float leaves its finite range, for any arguments in
    the declared parameter ranges.

    ``ops`` restricts the catalogue (names, see ``passfuzz.ir.catalogue.BY_NAME``); ``dtypes``
    restricts the dtypes of parameters and constants. With ``motifs``, about one step in five
    adds a motif instead of one op (``passfuzz.ir.catalogue.motifs``): a subgraph some pass
    rewrites, such as matmuls sharing an operand or batch_norm after conv2d; with ``ops``, only
    the motifs made of those ops.
    With ``symbolic``, some tensor parameters (not those inside a tuple) are typed with
    symbolic dims or an unknown rank, and some variables are passed as R.Shape parameters too
    or R.Prim parameters (see ``passfuzz.ir.program``); the arguments always have the drawn shapes.

    ``loss=True`` draws what ``relax.transform.Gradient`` differentiates: float32 tensor
    parameters, smooth ops and motifs only (``OpDef.smooth``; a proposal that adds any other
    node is undone), and one output, a 0-d float32 loss: the sum of every unconsumed value, each
    reduced with ``sum`` over all axes.

    ``focus`` names ops (those a pass matches) that most steps draw instead of the whole
    catalogue, each wired to the focused node before it: feeding it at a drawn operand, sharing
    an operand with it, reading it twice, reading its operands (``strategies._focus``); about
    one step in six still draws from the whole catalogue, and only motifs holding a focused op
    are mixed in. A focused step is what a step shrinks toward, so a reproducer keeps the ops
    the pass matches and loses the rest. ``focus_feeds`` lists (producer, consumer, operand
    position) of focused ops the pass's pattern nests; half the focused steps make one of them.
    ``focus_constants`` and ``focus_dtypes`` say what operands the pattern wants: most programs
    give focused nodes fresh constants, and draw parameters and constants in those dtypes.

    ``motifs_for`` names the passes being fuzzed: the motifs built for them (``Motif.passes``)
    are mixed in twice as often (two steps in five) and drawn three times in four, since a
    pass branches on more forms of its pattern (operand kinds, ranks, attributes) than a motif
    drawn among all the others would show often enough.

    ``match_cast=False`` draws modules that bind no ``match_cast`` (LiftTransformParams with
    ``shared_transform`` rejects one): no parameter is typed symbolically (``passfuzz.relax.build``
    match_casts such operands for most ops) and no op that binds one of its own (``OpDef.emit_in``)
    is drawn, nor a motif holding one.

    Examples from this strategy shrink toward fewer nodes, no motifs, ops earlier in the
    catalogue, smaller shapes, float32, and arguments near zero."""
    chosen = [op for op in (OPS if ops is None else [BY_NAME[n] for n in ops if n in BY_NAME]) if op.drawable]
    if ops is not None and set(ops) - set(BY_NAME):
        raise InvalidArgument(f"unknown op(s): {sorted(set(ops) - set(BY_NAME))}")
    if not match_cast:  # motifs_within below keeps the motifs made of what is left
        chosen = [op for op in chosen if op.emit_in is None]
        ops, symbolic = [op.name for op in chosen], False
    if loss:
        chosen, dtypes = [op for op in chosen if op.smooth], ("float32",)
        if not chosen:
            raise InvalidArgument("loss programs need at least one smooth op")
    if not dtypes or set(dtypes) - set(DTYPES):
        raise InvalidArgument(f"dtypes must be a non-empty subset of {DTYPES}")
    if not 0 <= min_nodes <= max_nodes or max_params < 1:
        raise InvalidArgument("need 0 <= min_nodes <= max_nodes and max_params >= 1")
    mixed = motifs_within(ops) if motifs else []
    if set(focus) - set(BY_NAME):
        raise InvalidArgument(f"unknown focus op(s): {sorted(set(focus) - set(BY_NAME))}")
    focused = [] if loss else [op for op in chosen if op.name in set(focus)]  # loss programs: smooth only
    if focused:  # a motif without a focused op only takes steps from the focus
        mixed = [motif for motif in mixed if motif.ops & set(focus) or set(motif.passes) & set(motifs_for)]
    preferred = [motif for motif in mixed if set(motif.passes) & set(motifs_for)]
    wanted_dtypes = [d for d in focus_dtypes if d in dtypes] if focused else []
    focused_names = {op.name for op in focused}
    feeds = [(BY_NAME[p], BY_NAME[c], k) for p, c, k in focus_feeds if {p, c} <= focused_names]

    @st.composite
    def draw_program(draw) -> Program:
        chooser = DrawChooser(draw)
        # 0, where shrinking goes, keeps the dtypes the focused rewrite checks for
        drawn = wanted_dtypes if wanted_dtypes and draw(st.integers(0, 3)) != 3 else dtypes
        sketch = ProgramSketch(chooser, drawn, chosen, const_dtypes=(*INTS, "bool") if loss else ())
        sketch.add_param(*_param_spec(draw, drawn, max_rank), role="input")
        while len(sketch.values) < max_params and draw(st.booleans()):
            sketch.add_param(*_param_spec(draw, drawn, max_rank), role=draw(st.sampled_from(["input", "weight"])))
        # Hypothesis favours index 0 of a choice; a per-program offset spreads that favour over
        # the catalogue, while shrinking the offset to 0 still leads toward the simplest ops.
        offset = draw(st.integers(0, len(chosen) - 1)) if chosen else 0
        steps = 0
        focus_state = Focus(focused, feeds, constants=focus_constants) if focused else None
        # One continue-or-stop choice per node keeps deleting a node a local change for the shrinker.
        # Focused programs take at least two steps: one focused op alone meets none.
        least = min(max_nodes, max(min_nodes, 2)) if focus_state else min_nodes
        while steps < max_nodes and (steps < least or draw(st.integers(0, 4)) != 0):
            # 0 (what the shrinker moves to) is a plain op; a motif counts as the ops it added.
            if mixed and draw(st.integers(0, 4)) >= (3 if preferred else 4):
                # 0, where shrinking goes, is a motif built for the passes being fuzzed
                pool = preferred if preferred and draw(st.integers(0, 3)) != 3 else mixed
                motif = pool[draw(st.integers(0, len(pool) - 1))]
                size = len(sketch.values)
                build = lambda: motif.build(sketch, chooser)  # noqa: E731
                sketch.attempt((lambda: _smooth_only(sketch, build)) if loss else build)
                steps += max(1, sum(1 for v in sketch.values[size:] if getattr(v, "op", "const") != "const"))
                continue
            if focus_state and draw(st.integers(0, 5)) != 5:  # 0, where shrinking goes, is focused
                steps += focus_state.step(draw, sketch, chooser) or 1
                continue
            # Draw from the fixed list and take the next applicable op from there: the same
            # choice keeps meaning the same op when an earlier node is shrunk away.
            start = (offset + draw(st.integers(0, len(chosen) - 1))) % len(chosen)
            op = next((op for op in chosen[start:] + chosen[:start] if op.applicable(sketch)), None)
            if op is None:
                break
            propose = (lambda: _smooth_only(sketch, lambda: op.propose(sketch, chooser))) if loss else \
                (lambda: op.propose(sketch, chooser))
            sketch.attempt(propose)  # may need a dtype not drawn: then nothing
            steps += 1
        if loss:  # Gradient differentiates tensor parameters: no tuple packing
            return sketch.finish([_add_loss(sketch)])
        program = _packed(draw, sketch.finish(sketch.sinks() or [len(sketch.values) - 1]))
        return _symbolic_typing(draw, program) if symbolic else program

    return draw_program()


def _packed(draw, program: Program) -> Program:
    """``program`` with some of its inputs passed in one tuple parameter, flat or nested (drawn
    last, so the shrinker can drop the tuple without touching the graph)."""
    inputs = [i for i, p in program.params if p.role == "input"]
    how = draw(st.sampled_from(["tensors", "tuple", "nested tuple"]))
    if how == "tensors":
        return program
    grouped = inputs[draw(st.integers(0, len(inputs) - 1)):]
    paths = [(0, k) for k in range(len(grouped))] if how == "tuple" else \
        [(0, 0)] + [(0, 1, k) for k in range(len(grouped) - 1)]
    values = list(program.values)
    for index, path in zip(grouped, paths):
        values[index] = replace(values[index], pack=path)
    return Program(tuple(values), program.outputs)


def _smooth_only(sketch: ProgramSketch, propose) -> None:
    """Run ``propose``; if it added a node of a non-smooth op (a helper such as a clip), raise
    OpError so that ``ProgramSketch.attempt`` undoes the whole proposal."""
    size = len(sketch.values)
    propose()
    if any(isinstance(v, Node) and not BY_NAME[v.op].smooth and v.op != "const" for v in sketch.values[size:]):
        raise OpError("a helper node is not smooth")
    # A float result of another dtype (a matmul's out_dtype, a *_like's dtype) never reaches the
    # float32 loss, since no smooth op casts: Gradient would not differentiate it.
    if any(isinstance(info, ValueInfo) and is_float(info.dtype) and info.dtype != "float32"
           for info in sketch.infos[size:]):
        raise OpError("a float result other than float32 never reaches the loss")
    varying = parameter_dependent(sketch.values)
    for v in sketch.values[size:]:
        if not isinstance(v, Node) or v.op == "const":
            continue
        op = BY_NAME[v.op]
        # A kink is kept KINK_MARGIN clear, so that the finite-difference step the oracle widens
        # the parameter ranges by (gradient.unjudgeable) keeps it clear too.
        limit = differentiable_here(op, v.attrs) or varying_where_held(op, v.attrs, v.args, varying) or \
            kinked_here(op, [_loosened(sketch.infos[a]) for a in v.args])
        if limit:
            raise OpError(limit)


KINK_MARGIN = 0.01


def _loosened(info):
    return replace(info, lo=info.lo - KINK_MARGIN, hi=info.hi + KINK_MARGIN) if isinstance(info, ValueInfo) else info


def _add_loss(sketch: ProgramSketch) -> int:
    """A 0-d float32 node: the sum of every sink (or of the last value), each summed over all its
    axes; a term whose sum could overflow is left out (the first one always fits: parameters and
    constants are drawn small)."""
    loss = None
    for index in sketch.sinks() or [len(sketch.values) - 1]:
        term = index
        if sketch.infos[index].dtype != "float32":
            continue
        if sketch.infos[index].rank:
            if not valid(BY_NAME["sum"].infer, [sketch.infos[index]], {"axis": None, "keepdims": False}):
                continue
            term = sketch.add("sum", [index], {"axis": None, "keepdims": False})
        if loss is None:
            loss = term
        elif valid(BY_NAME["add"].infer, [sketch.infos[loss], sketch.infos[term]]):
            loss = sketch.add("add", [loss, term])
    if loss is None:  # nothing summable: the first parameter alone (drawn in a small range)
        loss = sketch.add("sum", [0], {"axis": None, "keepdims": False}) if sketch.infos[0].rank else 0
    return loss

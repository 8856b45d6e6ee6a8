"""Motifs: small subgraphs that a given pass rewrites, which random op-by-op drawing rarely makes.

A random program seldom holds two matmuls sharing their left operand, or a batch_norm reading a
conv2d with a constant kernel, so the passes that rewrite those shapes would rarely fire. A motif
builds such a subgraph into a sketch, from catalogue ops only (``sketch.add``), so every value
still goes through its op's ``infer`` and a program with motifs is valid by construction. The
strategies mix motifs into random programs (``strategies.relax_programs``); each motif names the
passes it is built for, which the tests check by applying them.

A motif reads existing values where it can (so it is wired into the rest of the graph) and adds
parameters and constants otherwise. One that does not fit the sketch (a dtype the run does not
draw, a range that would leave its limit) raises ``OpError``, and ``ProgramSketch.attempt``
undoes what it added.

One pattern is not here: matmul's own ``propose`` (catalogue/linalg.py) sometimes draws its
right operand as ``take(weight, columns, axis=1)``, which ReorderTakeAfterMatmul rewrites; as
part of one op it shrinks with that op.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import BY_NAME
from .base import DTYPES, FLOATS, NUMERIC, Chooser, OpError, Sketch, ValueInfo, require, valid


@dataclass(frozen=True)
class Motif:
    name: str
    passes: tuple[str, ...]  # the passes it is built for
    ops: frozenset[str]  # the catalogue ops it may add (a run restricted by --ops uses only motifs within it)
    build: Callable[[Sketch, Chooser], None]


# -- helpers ------------------------------------------------------------------------------------

def _add(sketch: Sketch, op: str, args: list[int], attrs: dict | None = None) -> int:
    """Add a node if its op accepts these operands; else abandon the motif (OpError)."""
    attrs = attrs or {}
    require(valid(BY_NAME[op].infer, [sketch.infos[a] for a in args], attrs), f"{op} does not fit this motif")
    return sketch.add(op, args, attrs)


def _dtype(sketch: Sketch, choose: Chooser, options=FLOATS) -> str:
    allowed = [d for d in options if d in getattr(sketch, "dtypes", DTYPES)]
    require(bool(allowed), "no dtype of this motif is drawn")
    return choose.choice(allowed)


def _input(sketch: Sketch, choose: Chooser, dtype: str, ranks=(1, 2, 3), magnitude: float = 4.0,
           shape: tuple[int, ...] | None = None) -> int:
    """An activation-like operand: an existing value of ``dtype`` (wired into the graph) whose
    elements stay within ``magnitude``, or a new runtime input in [-magnitude, magnitude]. The
    new input comes first: shrinking then cuts the motif loose from the rest of the graph,
    which it can then delete."""
    def fits(info: ValueInfo) -> bool:
        return info.dtype == dtype and info.magnitude <= magnitude and \
            (info.shape == shape if shape is not None else info.rank in ranks)
    source = choose.choice(["input", *sketch.candidates(fits)])
    if source != "input":
        return source
    if shape is None:
        shape = tuple(choose.integer(1, 4) for _ in range(choose.choice(list(ranks))))
    return sketch.add_param(shape, dtype, -magnitude, magnitude, "input")


def _weight(sketch: Sketch, choose: Chooser, shape, dtype: str, lo: float = -1.0, hi: float = 1.0,
            const: bool | None = None) -> int:
    """A new weight parameter or constant (``const`` forces one of them)."""
    if const is None:
        const = choose.boolean()
    if const:
        return sketch.add_const(tuple(shape), dtype, lo, hi)
    return sketch.add_param(tuple(shape), dtype, lo, hi, "weight")


def _last(sketch: Sketch, index: int) -> int:
    return sketch.infos[index].shape[-1]


# -- the motifs ---------------------------------------------------------------------------------

def _matmul_chain(sketch: Sketch, choose: Chooser) -> None:
    """x @ (A @ B), which AdjustMatmulOrder turns into (x @ A) @ B, or the other way round."""
    dtype = _dtype(sketch, choose)
    x = _input(sketch, choose, dtype, ranks=(1, 2, 3))
    k, n, p = _last(sketch, x), choose.integer(1, 4), choose.integer(1, 4)
    a = _weight(sketch, choose, (k, n), dtype)
    b = _weight(sketch, choose, (n, p), dtype)
    if choose.boolean():
        _add(sketch, "matmul", [x, _add(sketch, "matmul", [a, b])])
    else:
        _add(sketch, "matmul", [_add(sketch, "matmul", [x, a]), b])


def _parallel_matmuls(sketch: Sketch, choose: Chooser) -> None:
    """Two or three matmuls sharing their left operand, each with or without a bias and an
    activation: what CombineParallelMatmul merges into one matmul and slices."""
    dtype = _dtype(sketch, choose)
    x = _input(sketch, choose, dtype, ranks=(1, 2, 3))
    k = _last(sketch, x)
    bias, activation = choose.boolean(), choose.choice([None, "relu", "silu", "gelu"])
    for _ in range(choose.integer(2, 3)):
        n = choose.integer(1, 4)
        y = _add(sketch, "matmul", [x, _weight(sketch, choose, (k, n), dtype, const=False)])
        if bias:
            y = _add(sketch, "add", [y, _weight(sketch, choose, (n,), dtype, const=False)])
        if activation:
            y = _add(sketch, activation, [y])


def _matmul_of_sum(sketch: Sketch, choose: Chooser) -> None:
    """x @ (A + B) with A and B computed at run time (ExpandMatmulOfSum leaves compile-time sums)."""
    dtype = _dtype(sketch, choose)
    x = _input(sketch, choose, dtype, ranks=(1, 2, 3))
    shape = (_last(sketch, x), choose.integer(1, 4))
    a = _input(sketch, choose, dtype, shape=shape)
    b = sketch.add_param(shape, dtype, -4, 4, "input")
    _add(sketch, "matmul", [x, _add(sketch, "add", [a, b])])


def _permutation(choose: Chooser, rank: int) -> list[int]:
    """A permutation other than the identity (rank >= 2)."""
    remaining, axes = list(range(rank)), []
    while remaining:
        axes.append(remaining.pop(choose.integer(0, len(remaining) - 1)))
    return axes if axes != sorted(axes) else axes[::-1]


def _permute_concat(sketch: Sketch, choose: Chooser) -> None:
    """concat(permute_dims(A), permute_dims(B), ...) with one permutation, which
    ReorderPermuteDimsAfterConcat turns into permute_dims(concat(A, B, ...))."""
    dtype = _dtype(sketch, choose, DTYPES)
    a = _input(sketch, choose, dtype, ranks=(2, 3))
    shape, axes = sketch.infos[a].shape, _permutation(choose, sketch.infos[a].rank)
    parts = [a] + [_input(sketch, choose, dtype, shape=shape) for _ in range(choose.integer(1, 2))]
    permuted = [_add(sketch, "permute_dims", [p], {"axes": axes}) for p in parts]
    _add(sketch, "concat", permuted, {"axis": choose.integer(0, len(shape) - 1)})


def _transpose_matmul(sketch: Sketch, choose: Chooser) -> None:
    """x @ permute_dims(W): FuseTransposeMatmul fuses the transpose into the matmul."""
    dtype = _dtype(sketch, choose, NUMERIC)
    x = _input(sketch, choose, dtype, ranks=(1, 2, 3))
    w = _weight(sketch, choose, (choose.integer(1, 4), _last(sketch, x)), dtype, -4, 4)
    _add(sketch, "matmul", [x, _add(sketch, "permute_dims", [w], {"axes": choose.choice([None, [1, 0]])})])


def _attention_block(sketch: Sketch, choose: Chooser) -> None:
    """softmax((x Wq) (x Wk)^T) (x Wv), written out: parallel projections for
    CombineParallelMatmul, a transposed key for FuseTransposeMatmul. Small weights keep the
    scores small, so a legal rounding difference cannot move the softmax past the tolerance.
    Without projections (what shrinking moves to) it is softmax(x x^T) x."""
    dtype = _dtype(sketch, choose)
    x = _input(sketch, choose, dtype, ranks=(2, 3), magnitude=1.0)
    d, h = _last(sketch, x), choose.integer(1, 4)
    if choose.integer(0, 3):
        q, k, v = (_add(sketch, "matmul", [x, _weight(sketch, choose, (d, h), dtype, -0.25, 0.25, const=False)])
                   for _ in range(3))
    else:
        q = k = v = x
    rank = sketch.infos[x].rank
    kt = _add(sketch, "permute_dims", [k], {"axes": list(range(rank - 2)) + [rank - 1, rank - 2]})
    scores = _add(sketch, "softmax", [_add(sketch, "matmul", [q, kt])], {"axis": -1})
    _add(sketch, "matmul", [scores, v])


def _conv_batch_norm(sketch: Sketch, choose: Chooser) -> None:
    """batch_norm(conv2d(x, constant kernel)) over the channels: FoldBatchnormToConv2D folds
    the normalisation into the kernel (it acts only on a constant kernel)."""
    dtype = _dtype(sketch, choose, ("float32",))
    x = _input(sketch, choose, dtype, ranks=(4,), magnitude=1.0)
    n, c, hh, ww = sketch.infos[x].shape
    o, kh, kw = choose.integer(1, 3), choose.integer(1, hh), choose.integer(1, ww)
    kernel = _weight(sketch, choose, (o, c, kh, kw), dtype, const=True)
    attrs = {"strides": [1, 1], "padding": [0, 0, 0, 0], "dilation": [1, 1], "groups": 1,
             "data_layout": "NCHW", "kernel_layout": "OIHW", "out_dtype": None}
    y = _add(sketch, "conv2d", [x, kernel], attrs)
    gamma, beta, mean = (_weight(sketch, choose, (o,), dtype, const=True) for _ in range(3))
    var = _weight(sketch, choose, (o,), dtype, 1.0, 4.0, const=True)
    _add(sketch, "batch_norm", [y, gamma, beta, mean, var],
         {"axis": 1, "epsilon": choose.choice([1e-5, 1e-3]), "index": 0})


def _repeated_subexpression(sketch: Sketch, choose: Chooser) -> None:
    """The same op on the same operands twice, both used: EliminateCommonSubexpr keeps one."""
    nodes = [i for i, v in enumerate(getattr(sketch, "values", ())) if getattr(v, "op", "const") != "const"]
    if nodes:
        node = sketch.values[choose.choice(nodes)]
        sketch.add(node.op, node.args, node.attrs)  # the same operands and attributes: valid again
        return
    dtype = _dtype(sketch, choose, NUMERIC)
    x = _input(sketch, choose, dtype)
    for _ in range(2):
        _add(sketch, "add", [x, x])


def _dead_code(sketch: Sketch, choose: Chooser) -> None:
    """Nodes no output reads (the sketch marks them dead): DeadCodeElimination removes them."""
    dtype = _dtype(sketch, choose, ("float32", "float16", "int32", "int64"))
    x = _input(sketch, choose, dtype)
    op, args = choose.choice([("negative", [x]), ("add", [x, x])])
    y = _add(sketch, op, args)
    if choose.boolean():
        y = _add(sketch, "reshape", [y], {"shape": [-1]})
    sketch.mark_dead(y)
    if y in sketch.sinks():  # nothing else is an output yet: give the program a live one
        _add(sketch, "reshape", [x], {"shape": [-1]})


def _same_size_shapes(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    size = 1
    for d in shape:
        size *= d
    shapes = [(size,), (1, size), (size, 1), tuple(shape[::-1]), tuple(shape)]
    return list(dict.fromkeys(s for s in shapes if s))


def _reshape_chain(sketch: Sketch, choose: Chooser) -> None:
    """reshape(reshape(x)), sometimes back to x's shape or to the shape it had:
    RemoveRedundantReshape collapses it; after LegalizeOps, RewriteDataflowReshape turns each
    reshape kernel back into a reshape."""
    dtype = _dtype(sketch, choose, DTYPES)
    x = _input(sketch, choose, dtype)
    shapes = _same_size_shapes(sketch.infos[x].shape)
    y = x
    for _ in range(choose.integer(2, 3)):
        y = _add(sketch, "reshape", [y], {"shape": list(choose.choice(shapes))})


def _constant_subgraph(sketch: Sketch, choose: Chooser) -> None:
    """An op on constants only, whose result meets the rest of the graph: FoldConstant
    computes it at compile time."""
    dtype = _dtype(sketch, choose, NUMERIC)
    x = _input(sketch, choose, dtype)
    shape = sketch.infos[x].shape
    a = sketch.add_const(shape, dtype, -2, 2)
    folded = _add(sketch, choose.choice(["add", "multiply", "maximum"]), [a, sketch.add_const(shape, dtype, -2, 2)])
    _add(sketch, "add", [x, folded])


MOTIFS: list[Motif] = [
    Motif("matmul_chain", ("AdjustMatmulOrder",), frozenset({"matmul"}), _matmul_chain),
    Motif("parallel_matmuls", ("CombineParallelMatmul", "FuseOps"),
          frozenset({"matmul", "add", "relu", "silu", "gelu"}), _parallel_matmuls),
    Motif("matmul_of_sum", ("ExpandMatmulOfSum",), frozenset({"matmul", "add"}), _matmul_of_sum),
    Motif("permute_concat", ("ReorderPermuteDimsAfterConcat",), frozenset({"permute_dims", "concat"}),
          _permute_concat),
    Motif("transpose_matmul", ("FuseTransposeMatmul",), frozenset({"matmul", "permute_dims"}), _transpose_matmul),
    Motif("attention_block", ("CombineParallelMatmul", "FuseTransposeMatmul"),
          frozenset({"matmul", "permute_dims", "softmax"}), _attention_block),
    Motif("conv_batch_norm", ("FoldBatchnormToConv2D",), frozenset({"conv2d", "batch_norm"}), _conv_batch_norm),
    Motif("repeated_subexpression", ("EliminateCommonSubexpr",), frozenset({"add"}), _repeated_subexpression),
    Motif("dead_code", ("DeadCodeElimination",), frozenset({"negative", "add", "reshape"}), _dead_code),
    Motif("reshape_chain", ("RemoveRedundantReshape", "RewriteDataflowReshape"), frozenset({"reshape"}),
          _reshape_chain),
    Motif("constant_subgraph", ("FoldConstant",), frozenset({"add", "multiply", "maximum"}), _constant_subgraph),
]
BY_MOTIF: dict[str, Motif] = {m.name: m for m in MOTIFS}


def motifs_within(ops) -> list[Motif]:
    """The motifs a run restricted to ``ops`` may use (every motif when ``ops`` is None)."""
    if ops is None:
        return list(MOTIFS)
    allowed = set(ops) | {"const"}
    return [m for m in MOTIFS if m.ops <= allowed]


__all__ = ["MOTIFS", "BY_MOTIF", "Motif", "OpError", "motifs_within"]

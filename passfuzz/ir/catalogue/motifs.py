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

Each motif draws the forms its pass's code branches on (passfuzz.passes.variants lists them),
not one convenient form: operand kinds (input, weight, constant, computed, one value twice),
ranks, attribute values. Matmul's own ``propose`` (catalogue/linalg.py) also draws its right
operand as ``take(weight, columns, axis)`` or a transposed weight; as part of one op it shrinks
with that op.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import BY_NAME
from .base import DTYPES, FLOATS, NUMERIC, Chooser, OpError, Sketch, ValueInfo, require, valid
from .linalg import OUT_DTYPES


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
    elements stay within ``magnitude``, or (half the time, and what shrinking moves to) a new
    runtime input in [-magnitude, magnitude] ([0, 1] for bool). The new input comes first:
    shrinking then cuts the motif loose from the rest of the graph, which it can then delete."""
    def fits(info: ValueInfo) -> bool:
        return info.dtype == dtype and info.magnitude <= magnitude and \
            (info.shape == shape if shape is not None else info.rank in ranks)
    existing = sketch.candidates(fits)
    if existing and choose.boolean():
        return choose.choice(existing)
    if shape is None:
        shape = tuple(choose.integer(1, 4) for _ in range(choose.choice(list(ranks))))
    lo, hi = (0, 1) if dtype == "bool" else (-magnitude, magnitude)
    return sketch.add_param(shape, dtype, lo, hi, "input")


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

def _tensor(sketch: Sketch, choose: Chooser, kind: str, shape, dtype: str, lo: float = -1.0, hi: float = 1.0) -> int:
    """An operand of ``shape`` of one kind: "input" (an existing value or a new runtime input),
    "weight" (a parameter after num_input: compile-time for the passes that ask), "const" (an
    inline constant) or "computed" (a new input negated: a value computed at run time)."""
    shape = tuple(shape)
    if kind == "weight":
        return sketch.add_param(shape, dtype, lo, hi, "weight")
    if kind == "const":
        return sketch.add_const(shape, dtype, lo, hi)
    if kind == "computed":
        return _add(sketch, "negative", [sketch.add_param(shape, dtype, lo, hi, "input")])
    return _input(sketch, choose, dtype, shape=shape, magnitude=max(abs(lo), abs(hi)))


KINDS = ("input", "weight", "const")


def _matrix_permutation(choose: Chooser, rank: int):
    """permute_dims axes for a matmul result of ``rank`` >= 2: mostly the last two swapped
    (None for 2-D, or written negative), sometimes a permutation that is no such swap
    (the identity, or another order of a batched result)."""
    swap = [*range(rank - 2), rank - 1, rank - 2]
    if choose.integer(0, 3) == 0:  # no swap: the identity, or another order of a batched result
        return choose.choice([list(range(rank)), *([[1, 0, 2], [2, 1, 0]] if rank == 3 else [])])
    return choose.choice([swap, [a - rank for a in swap], None if rank == 2 else swap])


def _chain_kinds(choose: Chooser) -> tuple[str, str, str]:
    """Kinds of a, b, c: a compile-time pair (weights), none, or drawn freely."""
    mode = choose.choice(["ab", "bc", "runtime", "any"])
    if mode == "ab":
        return "weight", "weight", "input"
    if mode == "bc":
        return "input", "weight", "weight"
    if mode == "runtime":
        return "input", choose.choice(["const", "input"]), choose.choice(["const", "input"])
    return tuple(choose.choice(KINDS) for _ in range(3))


def _matmul_chain(sketch: Sketch, choose: Chooser) -> None:
    """(a b) c or a (b c), which AdjustMatmulOrder reorders: a chosen pair computable at
    compile time (weights), none, or kinds drawn freely; a or c 1-D, one of them batched."""
    dtype = _dtype(sketch, choose)
    kinds = _chain_kinds(choose)
    n, r, m, p = (choose.integer(1, 4) for _ in range(4))
    batch = (choose.integer(1, 3),) if choose.integer(0, 2) == 0 else ()
    batched, one_d = choose.integer(0, 2), choose.integer(0, 3)  # which is batched; 0: a 1-D, 1: c 1-D
    lead = lambda k: batch if batched == k else ()  # noqa: E731
    a = _tensor(sketch, choose, kinds[0], (r,) if one_d == 0 else lead(0) + (n, r), dtype)
    b = _tensor(sketch, choose, kinds[1], lead(1) + (r, m), dtype)
    c = _tensor(sketch, choose, kinds[2], (m,) if one_d == 1 else lead(2) + (m, p), dtype)
    if choose.boolean():
        _add(sketch, "matmul", [_add(sketch, "matmul", [a, b]), c])
    else:
        _add(sketch, "matmul", [a, _add(sketch, "matmul", [b, c])])


def _permuted_matmul_chain(sketch: Sketch, choose: Chooser) -> None:
    """permute_dims(b a) c or a permute_dims(c b), AdjustMatmulOrder's permuted patterns, with
    the permutation a swap of the last two axes or not (the pattern accepts any axes)."""
    dtype = _dtype(sketch, choose)
    kinds = _chain_kinds(choose)
    n, r, m, p = (choose.integer(1, 4) for _ in range(4))
    batch = (choose.integer(1, 3),) if choose.boolean() else ()
    on_lhs = choose.boolean()
    first, second = (1, 0) if on_lhs else (2, 1)  # matmul(b, a) on the left, matmul(c, b) on the right
    x = _tensor(sketch, choose, kinds[first], batch + (n, r), dtype)
    y = _tensor(sketch, choose, kinds[second], (r, m), dtype)
    inner = _add(sketch, "matmul", [x, y])
    permuted = _add(sketch, "permute_dims", [inner], {"axes": _matrix_permutation(choose, sketch.infos[inner].rank)})
    shape = sketch.infos[permuted].shape
    if on_lhs:
        _add(sketch, "matmul", [permuted, _tensor(sketch, choose, kinds[2], (shape[-1], p), dtype)])
    else:
        _add(sketch, "matmul", [_tensor(sketch, choose, kinds[0], (p, shape[-2]), dtype), permuted])


def _parallel_matmuls(sketch: Sketch, choose: Chooser) -> None:
    """Two or three matmuls sharing their left operand, each with or without a bias and an
    activation, the same in every branch or not: what CombineParallelMatmul merges into one
    matmul and slices. The left operand an input or a weight, 2-D or batched; right operands
    weights or computed values of one rank. At most one twist per draw, since each alone decides
    whether the pass can merge: a constant or 1-D left operand, 1-D or constant right operands,
    one right operand in two branches, the left operand as a right operand, an out_dtype."""
    dtype = _dtype(sketch, choose)
    twist = choose.choice(["none", "none", "none", "lhs_constant", "lhs_1d", "rhs_1d", "rhs_constant", "same_rhs",
                           "itself", "out_dtype"])
    k = choose.integer(1, 4)
    batch = (choose.integer(1, 3),) if twist not in ("lhs_1d", "itself") and choose.boolean() else ()
    if twist == "lhs_1d":
        lhs_shape = (k,)
    elif twist == "itself":
        lhs_shape = (k, k)
    else:
        lhs_shape = batch + (choose.integer(1, 4), k)
    lhs_kind = "const" if twist == "lhs_constant" else choose.choice(["input", "weight"])
    x = _tensor(sketch, choose, lhs_kind, lhs_shape, dtype, -1.0, 1.0)
    rhs_rank = 1 if twist == "rhs_1d" else 2 if twist == "itself" else choose.choice([2, 3])
    epilogue = choose.choice(["none", "bias", "activation", "both", "mixed"])
    activation = choose.choice(list(ACTIVATIONS))
    out_dtype = choose.choice([dtype, *OUT_DTYPES.get(dtype, ())]) if twist == "out_dtype" else None
    attrs = {"out_dtype": out_dtype} if out_dtype else {}
    bias_rank = choose.integer(1, 2)  # one bias rank in every branch: the pass groups by it
    previous = None
    for branch in range(choose.integer(2, 3)):
        n = choose.integer(1, 4)
        rhs_shape = (k,) if rhs_rank == 1 else (batch or (choose.integer(1, 2),)) + (k, n) if rhs_rank == 3 else (k, n)
        if twist == "itself" and branch == 0:
            w = x
        elif twist == "same_rhs" and previous is not None:
            w = previous
        else:
            kind = "const" if twist == "rhs_constant" else choose.choice(["weight", "computed"])
            w = _tensor(sketch, choose, kind, rhs_shape, dtype)
        previous = w
        y = _add(sketch, "matmul", [x, w], attrs)
        if sketch.infos[y].rank and (epilogue in ("bias", "both") or epilogue == "mixed" and choose.boolean()):
            last = sketch.infos[y].shape[-1]
            y = _add(sketch, "add", [y, _tensor(sketch, choose, "const" if twist == "rhs_constant" else "weight",
                                                (1,) * (bias_rank - 1) + (last,), sketch.infos[y].dtype)])
        if epilogue in ("activation", "both") or epilogue == "mixed" and choose.boolean():
            _add(sketch, activation if epilogue != "mixed" else choose.choice(list(ACTIVATIONS)), [y])


ACTIVATIONS = ("relu", "gelu", "gelu_tanh", "silu")


def _matmul_of_sum(sketch: Sketch, choose: Chooser) -> None:
    """x @ (a + b), or x @ permute_dims(a + b), with at least one addend not a weight
    (ExpandMatmulOfSum leaves compile-time sums): addends of every kind, sometimes of
    different (broadcasting) shapes or one value twice; x 1-D to 3-D."""
    dtype = _dtype(sketch, choose)
    x = _input(sketch, choose, dtype, ranks=(choose.integer(1, 3),))
    k, n = _last(sketch, x), choose.integer(1, 4)
    permuted = choose.boolean()
    shape = (n, k) if permuted else (k, n)
    kinds = [choose.choice(["input", "computed", "const"]), choose.choice(["input", "weight", "const", "computed"])]
    a = _tensor(sketch, choose, kinds[0], shape, dtype, -2.0, 2.0)
    form = choose.choice(["same_shape", "broadcast", "twice"])
    if form == "twice":
        b = a
    else:
        b_shape = shape if form == "same_shape" else choose.choice([shape[-1:], (1, shape[-1]), (shape[0], 1)])
        b = _tensor(sketch, choose, kinds[1], b_shape, dtype, -2.0, 2.0)
        if choose.boolean():
            a, b = b, a
    total = _add(sketch, "add", [a, b])
    if permuted:
        total = _add(sketch, "permute_dims", [total], {"axes": choose.choice([None, [1, 0], [-1, -2]])})
    _add(sketch, "matmul", [x, total])


def _take_matmul(sketch: Sketch, choose: Chooser) -> None:
    """matmul(x, take(w, indices, axis)) in ReorderTakeAfterMatmul's two forms: columns of a
    weight taken on its last axis (x 1-D to 3-D, w 2-D or batched, indices constant or
    computed), and batched LoRA: a 3-D x with rows of a 3-D weight table taken on axis 0."""
    dtype = _dtype(sketch, choose, NUMERIC)
    if choose.integer(0, 3) == 0:  # LoRA: x (b1, b2, k), table (t, k, n), indices (b1,)
        b1, b2, k, n, t = (choose.integer(1, 3) for _ in range(5))
        x = _input(sketch, choose, dtype, shape=(b1, b2, k))
        table = _tensor(sketch, choose, choose.choice(["weight", "const"]), (t, k, n), dtype, -2.0, 2.0)
        indices = _index(sketch, choose, (b1,), t - 1)
        _add(sketch, "matmul", [x, _add(sketch, "take", [table, indices], {"axis": 0})])
        return
    x = _input(sketch, choose, dtype, ranks=(1, 2, 3), magnitude=4.0)
    k, m, columns = _last(sketch, x), choose.integer(1, 4), choose.integer(1, 4)
    batch = sketch.infos[x].shape[:-2] if sketch.infos[x].rank == 3 and choose.boolean() else ()
    if not batch and choose.integer(0, 3) == 0:
        batch = (choose.integer(1, 2),)
    weight = _tensor(sketch, choose, choose.choice(["weight", "const", "input"]), batch + (k, m), dtype, -2.0, 2.0)
    indices = _index(sketch, choose, (columns,), m - 1)
    # A positive axis: the pass compares the axis as given (axis + 1 == ndim).
    _add(sketch, "matmul", [x, _add(sketch, "take", [weight, indices], {"axis": len(batch) + 1})])


def _index(sketch: Sketch, choose: Chooser, shape, last: int) -> int:
    """1-D int64 indices in [0, last]: a constant, or computed (an integer input clipped into range)."""
    if choose.boolean():
        return sketch.add_const(tuple(shape), "int64", 0, last)
    raw = sketch.add_param(tuple(shape), "int64", -8, 8, "input")
    return _add(sketch, "clip", [raw], {"min": 0, "max": last})


def _permutation(choose: Chooser, rank: int) -> list[int]:
    """A permutation other than the identity (rank >= 2)."""
    remaining, axes = list(range(rank)), []
    while remaining:
        axes.append(remaining.pop(choose.integer(0, len(remaining) - 1)))
    return axes if axes != sorted(axes) else axes[::-1]


def _permute_concat(sketch: Sketch, choose: Chooser) -> None:
    """concat(permute_dims(A), permute_dims(B), ...) with one permutation (axes=None, explicit,
    or written negative; 2 to 5 parts, sometimes one value twice; a concat axis positive or
    negative), which ReorderPermuteDimsAfterConcat turns into permute_dims(concat(A, B, ...))."""
    dtype = _dtype(sketch, choose, DTYPES)
    a = _input(sketch, choose, dtype, ranks=(2, 3))
    shape, rank = sketch.infos[a].shape, sketch.infos[a].rank
    axes = choose.choice([None, _permutation(choose, rank)])
    if axes is not None and choose.boolean():
        axes = [x - rank for x in axes]
    parts = [a]
    for _ in range(choose.integer(1, 4)):
        parts.append(choose.choice(parts) if choose.integer(0, 3) == 0 else _input(sketch, choose, dtype, shape=shape))
    permuted = [_add(sketch, "permute_dims", [p], {"axes": axes}) for p in parts]
    if choose.integer(0, 3) == 0:  # one permuted value in two places
        permuted[-1] = permuted[0]
    axis = choose.integer(0, rank - 1)
    _add(sketch, "concat", permuted, {"axis": axis - rank if choose.boolean() else axis})


def _transpose_matmul(sketch: Sketch, choose: Chooser) -> None:
    """x @ permute_dims(w) with w's last two axes swapped (axes=None for 2-D, or explicit):
    FuseTransposeMatmul fuses the transpose into the matmul. x 1-D to 3-D, w 2-D to 4-D with
    batch dims that broadcast (sizes of 1), w a weight, a constant or x itself, integer
    dtypes, often an out_dtype."""
    dtype = _dtype(sketch, choose, NUMERIC)
    form = choose.choice(["plain", "itself", "broadcast"])
    if form == "broadcast":  # x (b, m, k) against w (1, n, k) or (b', 1, n, k): batch dims of 1 broadcast
        x = _input(sketch, choose, dtype, shape=(choose.integer(2, 3), choose.integer(1, 4), choose.integer(1, 4)))
        b, _, k = sketch.infos[x].shape
        batch = choose.choice([(1,), (choose.integer(2, 3), 1), (1, b)])
        w = _tensor(sketch, choose, choose.choice(["weight", "const"]), batch + (choose.integer(1, 4), k), dtype, -2.0, 2.0)
    else:
        x = _input(sketch, choose, dtype, ranks=(choose.integer(1, 3),))
        info = sketch.infos[x]
        if form == "itself" and info.rank >= 2:  # matmul(x, permute_dims(x))
            w = x
        else:
            batch = tuple(choose.integer(1, 3) for _ in range(choose.choice([0, 0, 1, 2])))
            if info.rank == 3 and batch:  # equal to x's batch dim where they meet
                batch = batch[:-1] + info.shape[:1]
            w = _tensor(sketch, choose, choose.choice(["weight", "const"]), batch + (choose.integer(1, 4), info.shape[-1]),
                        dtype, -2.0, 2.0)
    rank = sketch.infos[w].rank
    swap = [*range(rank - 2), rank - 1, rank - 2]
    # Negative axes are the same permutation, which the pass's check (a list comparison) refuses.
    axes = choose.choice([None, swap, swap, [a - rank for a in swap]] if rank == 2 else [swap, swap, [a - rank for a in swap]])
    out_dtype = choose.choice([None, *OUT_DTYPES.get(dtype, ())])
    _add(sketch, "matmul", [x, _add(sketch, "permute_dims", [w], {"axes": axes})],
         {"out_dtype": out_dtype} if out_dtype else {})


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
    """batch_norm(conv2d(x, constant kernel), constants)[0]: FoldBatchnormToConv2D folds the
    normalisation into the kernel (it acts only on constants). x an input, a computed value or
    a constant; strides, padding, dilation, groups and epsilon drawn; the batch_norm axis the
    channels, or (one in three) another axis of the channels' size: the batch axis of size 1, or
    a spatial axis as long as the channels (the pass does not read the axis)."""
    dtype = _dtype(sketch, choose, ("float32",))
    source = choose.choice(["input", "computed", "const"])
    other_axis = choose.integer(0, 2) == 0
    shape = (1 if other_axis else choose.integer(1, 2), choose.choice([1, 2, 4]), choose.integer(2, 4), choose.integer(2, 4))
    x = _tensor(sketch, choose, source, shape, dtype) if source != "input" else \
        _input(sketch, choose, dtype, ranks=(4,), magnitude=1.0, shape=shape if other_axis else None)
    n, c, hh, ww = sketch.infos[x].shape
    groups = 1 if other_axis else choose.choice([g for g in (1, 2, c) if c % g == 0])
    strides = [choose.integer(1, 2), choose.integer(1, 2)]
    padding = [choose.integer(0, 1) for _ in range(4)]
    dilation = [choose.integer(1, 2), choose.integer(1, 2)]
    if choose.boolean():  # the plain convolution
        strides, padding, dilation = [1, 1], [0, 0, 0, 0], [1, 1]
    # The kernel fits the padded input as finally drawn (a kernel chosen for a padding the plain
    # convolution then drops would leave no output).
    kh = choose.integer(1, max(1, min(3, (hh + padding[0] + padding[2] - 1) // dilation[0] + 1)))
    kw = choose.integer(1, max(1, min(3, (ww + padding[1] + padding[3] - 1) // dilation[1] + 1)))
    if other_axis:  # as many output channels as the batch (1), or as an output row or column
        spatial = [(size + before + after - dilation[k] * (kernel - 1) - 1) // strides[k] + 1
                   for k, (size, before, after, kernel) in enumerate(((hh, padding[0], padding[2], kh),
                                                                       (ww, padding[1], padding[3], kw)))]
        o = choose.choice([1, *spatial])
    else:
        o = groups * choose.integer(1, 2)
    kernel = _weight(sketch, choose, (o, c // groups, kh, kw), dtype, const=True)
    attrs = {"strides": strides, "padding": padding, "dilation": dilation, "groups": groups,
             "data_layout": "NCHW", "kernel_layout": "OIHW", "out_layout": "NCHW", "out_dtype": None}
    y = _add(sketch, "conv2d", [x, kernel], attrs)
    axis = choose.choice([a for a, d in enumerate(sketch.infos[y].shape) if d == o and a != 1]) if other_axis else 1
    gamma, beta, mean = (_weight(sketch, choose, (o,), dtype, const=True) for _ in range(3))
    var = _weight(sketch, choose, (o,), dtype, 1.0, 4.0, const=True)
    _add(sketch, "batch_norm", [y, gamma, beta, mean, var],
         {"axis": axis, "epsilon": choose.choice([1e-5, 1e-3, 0.1, 1.0]), "index": 0})


def _repeated_subexpression(sketch: Sketch, choose: Chooser) -> None:
    """The same computation twice, both used: EliminateCommonSubexpr keeps one. A node of the
    sketch repeated, or a new op on an operand and a constant, twice."""
    nodes = [i for i, v in enumerate(getattr(sketch, "values", ())) if getattr(v, "op", "const") != "const"]
    if nodes and choose.boolean():
        node = sketch.values[choose.choice(nodes)]
        sketch.add(node.op, node.args, node.attrs)  # the same operands and attributes: valid again
        return
    dtype = _dtype(sketch, choose, NUMERIC)
    x = _input(sketch, choose, dtype, ranks=(1, 2))
    c = sketch.add_const(sketch.infos[x].shape, dtype, 0, 2)
    for _ in range(2):
        _add(sketch, choose.choice(["add", "multiply"]) if False else "add", [x, c])


def _repeated_structure(sketch: Sketch, choose: Chooser) -> None:
    """Repeated computations EliminateCommonSubexpr meets in turn: a chain of two repeated (the
    second repeat matches once the first is replaced), a tuple built twice, or a split (a call
    and a TupleGetItem) read twice."""
    dtype = _dtype(sketch, choose, NUMERIC)
    x = _input(sketch, choose, dtype, ranks=(1, 2))
    how = choose.choice(["chain", "tuple", "split"])
    if how == "tuple":
        for _ in range(2):
            _add(sketch, "tuple", [x, x])
    elif how == "split" and sketch.infos[x].shape[0] >= 2:
        for _ in range(2):
            _add(sketch, "split", [x], {"indices": [1], "axis": 0, "index": 0})
    else:
        for _ in range(2):
            _add(sketch, "multiply", [_add(sketch, "add", [x, x]), x])


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
    """reshape(reshape(x)), sometimes back to x's shape or to the shape it had, with a -1 dim,
    or with the inner reshape used elsewhere too: RemoveRedundantReshape collapses it; after
    LegalizeOps, RewriteDataflowReshape turns each reshape kernel back into a reshape."""
    dtype = _dtype(sketch, choose, DTYPES)
    x = _input(sketch, choose, dtype)
    shapes = _same_size_shapes(sketch.infos[x].shape)
    y = x
    for step in range(choose.integer(1, 3)):
        shape = list(choose.choice(shapes))
        if choose.integer(0, 2) == 0:
            shape[choose.integer(0, len(shape) - 1)] = -1
        y = _add(sketch, "reshape", [y], {"shape": shape})
        if step == 0 and choose.integer(0, 3) == 0:  # the inner reshape read by another node too
            _add(sketch, "reshape", [y], {"shape": [-1]})


def _constant_subgraph(sketch: Sketch, choose: Chooser) -> None:
    """An op on constants only (of any dtype), sometimes a chain of two, or a split of a
    constant (a kernel with several results), whose result meets the rest of the graph:
    FoldConstant computes it at compile time."""
    dtype = _dtype(sketch, choose, DTYPES)
    x = _input(sketch, choose, dtype)
    shape = sketch.infos[x].shape
    a = sketch.add_const(shape, dtype, 0, 2)
    combine = "logical_or" if dtype == "bool" else "maximum"
    op = choose.choice(["logical_and", combine, "split"] if dtype == "bool" else ["add", "multiply", "maximum", "split"])
    if op == "split" and shape and shape[0] >= 2:
        whole = sketch.add_const((shape[0] * 2,) + shape[1:], dtype, 0, 2)
        folded = _add(sketch, "split", [whole], {"sections": 2, "axis": 0, "index": choose.integer(0, 1)})
    else:
        folded = _add(sketch, combine if op == "split" else op, [a, sketch.add_const(shape, dtype, 0, 2)])
    if choose.boolean():
        folded = _add(sketch, combine, [folded, sketch.add_const(shape, dtype, 0, 1)])
    _add(sketch, combine, [x, folded])


def _matmul_epilogue(sketch: Sketch, choose: Chooser) -> None:
    """A matmul (out_dtype sometimes named as its own dtype), maybe an elementwise op on it, then
    a reader: a concat of both (a tuple operand; elementwise results fused into it), another
    matmul, an add of the input or of a bias broadcast over an elementwise result (kFollow in
    ToMixedPrecision), a softmax (no policy: kNever) or a sum. FuseOps
    groups the epilogue with the matmul (kOutEWiseFusable); in a float32 program
    ToMixedPrecision computes the matmul in float16 and casts around it."""
    dtype = _dtype(sketch, choose, ("float32", "float32", "float16", "bfloat16"))
    x = _input(sketch, choose, dtype, ranks=(2,), magnitude=2.0)
    k = _last(sketch, x)
    w = _tensor(sketch, choose, choose.choice(["weight", "const", "input"]), (k, k), dtype)
    y = _add(sketch, "matmul", [x, w], {"out_dtype": dtype} if choose.boolean() else {})
    e = _add(sketch, choose.choice(["relu", "negative"]), [y]) if choose.boolean() else y
    reader = choose.choice(["concat", "matmul", "add", "bias", "softmax", "sum"])
    if reader == "concat":
        _add(sketch, "concat", [e, y] if e != y else [y, _add(sketch, "negative", [x])], {"axis": choose.choice([0, -1])})
    elif reader == "matmul":
        _add(sketch, "matmul", [e, w])
    elif reader == "add":
        _add(sketch, "add", [e, x])
    elif reader == "bias":  # broadcast over the rows of an elementwise result: a broadcasting consumer
        e = e if e != y else _add(sketch, "relu", [y])
        _add(sketch, "add", [e, _tensor(sketch, choose, choose.choice(["weight", "const"]), (k,), dtype)])
    elif reader == "softmax":
        _add(sketch, "softmax", [e], {"axis": -1})
    else:
        _add(sketch, "sum", [e], {"axis": [1], "keepdims": choose.boolean()})


MOTIFS: list[Motif] = [
    Motif("matmul_chain", ("AdjustMatmulOrder",), frozenset({"matmul", "negative"}), _matmul_chain),
    Motif("permuted_matmul_chain", ("AdjustMatmulOrder",), frozenset({"matmul", "permute_dims", "negative"}),
          _permuted_matmul_chain),
    Motif("parallel_matmuls", ("CombineParallelMatmul", "FuseOps"),
          frozenset({"matmul", "add", "negative", *ACTIVATIONS}), _parallel_matmuls),
    Motif("matmul_of_sum", ("ExpandMatmulOfSum",), frozenset({"matmul", "add", "negative", "permute_dims"}),
          _matmul_of_sum),
    Motif("take_matmul", ("ReorderTakeAfterMatmul",), frozenset({"matmul", "take", "clip"}), _take_matmul),
    Motif("permute_concat", ("ReorderPermuteDimsAfterConcat",), frozenset({"permute_dims", "concat"}),
          _permute_concat),
    Motif("transpose_matmul", ("FuseTransposeMatmul",), frozenset({"matmul", "permute_dims"}), _transpose_matmul),
    Motif("attention_block", ("CombineParallelMatmul", "FuseTransposeMatmul"),
          frozenset({"matmul", "permute_dims", "softmax"}), _attention_block),
    Motif("conv_batch_norm", ("FoldBatchnormToConv2D",), frozenset({"conv2d", "batch_norm", "negative"}),
          _conv_batch_norm),
    Motif("repeated_subexpression", ("EliminateCommonSubexpr",), frozenset({"add"}), _repeated_subexpression),
    Motif("repeated_structure", ("EliminateCommonSubexpr",), frozenset({"add", "multiply", "tuple", "split"}),
          _repeated_structure),
    Motif("dead_code", ("DeadCodeElimination",), frozenset({"negative", "add", "reshape"}), _dead_code),
    Motif("reshape_chain", ("RemoveRedundantReshape", "RewriteDataflowReshape"), frozenset({"reshape"}),
          _reshape_chain),
    Motif("constant_subgraph", ("FoldConstant",), frozenset({"add", "multiply", "maximum", "split", "logical_and",
                                                             "logical_or"}), _constant_subgraph),
    Motif("matmul_epilogue", ("FuseOps", "ToMixedPrecision"),
          frozenset({"matmul", "relu", "negative", "concat", "add", "softmax", "sum"}), _matmul_epilogue),
]
BY_MOTIF: dict[str, Motif] = {m.name: m for m in MOTIFS}


def motifs_within(ops) -> list[Motif]:
    """The motifs a run restricted to ``ops`` may use (every motif when ``ops`` is None)."""
    if ops is None:
        return list(MOTIFS)
    allowed = set(ops) | {"const"}
    return [m for m in MOTIFS if m.ops <= allowed]


__all__ = ["MOTIFS", "BY_MOTIF", "Motif", "OpError", "motifs_within"]

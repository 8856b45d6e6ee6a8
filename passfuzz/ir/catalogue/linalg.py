"""Linear algebra: matmul (1-D operands, broadcast batch dims, out_dtype), linear, einsum, outer."""

from __future__ import annotations

import numpy as np

from passfuzz.ir.program import numpy_dtype

from .base import (
    NUMERIC,
    Chooser,
    OpDef,
    Sketch,
    ValueInfo,
    broadcast,
    checked,
    is_int,
    operand,
    pick,
    probe,
    representable,
    require,
    smooth,
    valid,
)

# out_dtype a matmul may be asked for, per operand dtype (all measured on llvm). Relax casts the
# operands to out_dtype first and accumulates there, so overflow is checked in out_dtype.
OUT_DTYPES = {"float16": ("float32",), "float32": ("float16",), "bfloat16": ("float32",), "float64": (), "int8": ("int32",),
              "uint8": ("int32",), "int32": ("int64",), "int64": ()}


def product_range(a: ValueInfo, b: ValueInfo, count: int) -> tuple[float, float]:
    """The range of a sum of ``count`` products x*y with x in a, y in b (0 included: an empty
    or zero-padded sum). Every partial sum of any accumulation order lies inside it too."""
    products = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return count * min(min(products), 0), count * max(max(products), 0)


def out_dtype_of(a: ValueInfo, attrs: dict) -> str:
    """The result dtype of a contraction with an optional ``out_dtype`` attribute; checks that
    the operands survive the cast Relax applies before multiplying."""
    out = attrs.get("out_dtype")
    if out is None or out == a.dtype:
        return a.dtype
    require(out in OUT_DTYPES.get(a.dtype, ()), f"out_dtype {out} is not drawn for {a.dtype} operands")
    return out


def _operands_fit(out: str, *args: ValueInfo) -> None:
    for x in args:
        require(representable(out, x.lo, x.hi), f"operand range [{x.lo:g}, {x.hi:g}] does not fit out_dtype {out}")


def _contract_ref(f, args: list[np.ndarray], out: str) -> np.ndarray:
    """``f`` of the operands cast to ``out`` and then computed exactly (int64) or in float64."""
    acc, out_type = "int64" if is_int(out) else "float64", numpy_dtype(out)
    return np.asarray(f(*[a.astype(out_type).astype(acc) for a in args])).astype(out_type)


# -- matmul -------------------------------------------------------------------------------------

def _matmul_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 2 and set(attrs) <= {"out_dtype"}, "matmul takes two operands and an optional out_dtype")
    a, b = args
    require(a.dtype == b.dtype and a.dtype in NUMERIC, "matmul needs one numeric dtype (bool fails in codegen)")
    require(a.rank >= 1 and b.rank >= 1, "matmul needs operands of rank >= 1")
    out = out_dtype_of(a, attrs)
    _operands_fit(out, a, b)
    a_shape = (1,) + a.shape if a.rank == 1 else a.shape
    b_shape = b.shape + (1,) if b.rank == 1 else b.shape
    require(a_shape[-1] == b_shape[-2], f"matmul inner dims differ: {a.shape} @ {b.shape}")
    batch = broadcast(a_shape[:-2], b_shape[:-2])
    shape = batch + ((a_shape[-2],) if a.rank > 1 else ()) + ((b_shape[-1],) if b.rank > 1 else ())
    lo, hi = product_range(a, b, a_shape[-1])
    return checked(shape, out, lo, hi, a.exact and b.exact and is_int(out) and is_int(a.dtype))


def _accepts(info: ValueInfo) -> bool:  # a fresh (k, 4) right operand would do
    return info.dtype in NUMERIC and info.rank >= 1 and \
        valid(_matmul_infer, [info, probe(info, shape=(info.shape[-1], 4))])


def _matmul_propose(sketch: Sketch, choose: Chooser) -> None:
    lhs = pick(sketch, choose, _accepts)
    a = sketch.infos[lhs]
    k, batch = a.shape[-1], a.shape[:-2]
    n = choose.integer(1, 4)
    shapes = [(k, n), batch + (k, n)] + ([(1,) + batch[1:] + (k, n)] if batch else [(2, k, n)]) + [(k,)]
    # out_dtype over its whole range: none, the operands' own dtype named, or a wider/narrower one
    outs = [None, a.dtype, *(o for o in OUT_DTYPES[a.dtype] if valid(_matmul_infer, [a, probe(a, shape=(k, n))], {"out_dtype": o}))]
    attrs = {"out_dtype": choose.choice(outs)} if choose.boolean() else {}
    accept = lambda b: valid(_matmul_infer, [a, b], attrs)  # noqa: E731
    form = choose.choice(["operand", "take", "transposed"])
    if form == "operand":
        rhs = operand(sketch, choose, shapes, a.dtype, -4, 4, accept=accept)
    elif form == "take":  # a weight whose columns a take selects: the pattern ReorderTakeAfterMatmul rewrites
        m = choose.integer(1, 4)
        shape = choose.choice([(k, m), batch + (k, m)])
        weight = sketch.add_param(shape, a.dtype, -4, 4, "weight")
        columns = sketch.add_const((n,), "int64", 0, m - 1)
        # A positive axis: ReorderTakeAfterMatmul matches axis=1, not the equivalent axis=-1.
        rhs = sketch.add("take", [weight, columns], {"axis": len(shape) - 1})
    else:  # a weight stored transposed, (..., n, k): the pattern FuseTransposeMatmul rewrites
        shape = choose.choice([(n, k), batch + (n, k)])
        weight = sketch.add_param(shape, a.dtype, -4, 4, "weight")
        rank = len(shape)
        swap = [*range(rank - 2), rank - 1, rank - 2]
        rhs = sketch.add("permute_dims", [weight], {"axes": choose.choice([None, swap] if rank == 2 else [swap])})
    if not accept(sketch.infos[rhs]):  # an existing operand's range may overflow in a narrower out_dtype
        attrs = {}
    sketch.add("matmul", [lhs, rhs], attrs)


MATMUL = smooth(OpDef("matmul", _matmul_infer,
               lambda R, args, at: R.op.matmul(*args, out_dtype=at.get("out_dtype")),
               lambda args, at: _contract_ref(np.matmul, args, at.get("out_dtype") or args[0].dtype.name),
               _matmul_propose, _accepts,
               notes="numpy semantics for 1-D operands and batch broadcasting. out_dtype casts the operands "
                     "first and accumulates in out_dtype (int8 @ int8 -> int32 does not wrap at 127)."))

# -- linear -------------------------------------------------------------------------------------


def _linear_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) in (2, 3) and not attrs, "linear takes (x, w) or (x, w, b)")
    x, w = args[:2]
    require(w.rank == 2, "linear's weight is drawn 2-D (out_features, in_features)")
    product = _matmul_infer([x, ValueInfo(w.shape[::-1], w.dtype, w.lo, w.hi, w.exact)], {})
    if len(args) == 2:
        return product
    b = args[2]
    require(b.dtype == x.dtype, "linear's bias must share the dtype")
    shape = broadcast(product.shape, b.shape)
    require(shape == product.shape, f"bias {b.shape} must broadcast to the product {product.shape}")
    return checked(shape, x.dtype, product.lo + b.lo, product.hi + b.hi, product.exact and b.exact)


def _linear_accepts(info: ValueInfo) -> bool:
    return info.dtype in NUMERIC and info.rank >= 1 and \
        valid(_linear_infer, [info, probe(info, -1, 1, shape=(1, info.shape[-1])), probe(info, -1, 1, shape=(1,))])


def _linear_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _linear_accepts)
    info = sketch.infos[x]
    n = choose.integer(1, 4)
    wrange = choose.choice([r for r in [(-4, 4), (-1, 1)] if valid(_linear_infer, [info, probe(info, *r, (n, info.shape[-1]))])]
                           or [(-1, 1)])
    if not valid(_linear_infer, [info, probe(info, *wrange, (n, info.shape[-1]))]):
        n = 1
    w = operand(sketch, choose, [(n, info.shape[-1])], info.dtype, *wrange,
                accept=lambda i: valid(_linear_infer, [info, i]))
    args, wi = [x, w], sketch.infos[w]
    if choose.boolean() and valid(_linear_infer, [info, wi, probe(info, -1, 1, (n,))]):
        args.append(operand(sketch, choose, [(n,), (1,), ()], info.dtype, -1, 1,
                            accept=lambda i: valid(_linear_infer, [info, wi, i])))
    sketch.add("linear", args)


def _linear_ref(args, attrs):
    x, w = args[:2]
    out = _contract_ref(lambda a, b: np.matmul(a, b.T), [x, w], x.dtype.name)
    if len(args) == 3:
        acc = "int64" if is_int(x.dtype.name) else "float64"
        out = (out.astype(acc) + args[2].astype(acc)).astype(x.dtype)
    return out


LINEAR = OpDef("linear", _linear_infer, lambda R, args, at: R.op.linear(*args), _linear_ref, _linear_propose,
               _linear_accepts,
               notes="x @ w.T (+ b). Relax has no linear op: R.op.linear emits permute_dims, matmul and add.")

# -- einsum -------------------------------------------------------------------------------------

EQUATIONS = ("ij,jk->ik", "bij,bjk->bik", "ij->ji", "ii->i", "ij->i")


def _einsum_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(set(attrs) == {"subscripts"} and attrs["subscripts"] in EQUATIONS, "einsum equation not drawn")
    inputs, output = attrs["subscripts"].split("->")
    terms = inputs.split(",")
    require(len(args) == len(terms), f"einsum {attrs['subscripts']} takes {len(terms)} operands")
    require(len({a.dtype for a in args}) == 1 and args[0].dtype in NUMERIC, "einsum needs one numeric dtype")
    dims: dict[str, int] = {}
    for term, a in zip(terms, args):
        require(len(term) == a.rank, f"operand of rank {a.rank} for subscript {term}")
        for letter, d in zip(term, a.shape):
            require(dims.setdefault(letter, d) == d, f"dim {letter} differs: {dims[letter]} vs {d}")
    count = int(np.prod([d for letter, d in dims.items() if letter not in output], dtype=np.int64))
    shape = [dims[letter] for letter in output]
    x = args[0]
    if len(args) == 1:
        lo, hi = min(x.lo, x.lo * count), max(x.hi, x.hi * count)
        exact = x.exact and (count == 1 or is_int(x.dtype))
    else:
        lo, hi = product_range(args[0], args[1], count)
        exact = all(a.exact for a in args) and is_int(x.dtype)
    return checked(shape, x.dtype, lo, hi, exact)


def _einsum_options(info: ValueInfo) -> list[str]:
    def fresh(eq: str) -> list[ValueInfo]:
        term = eq.split("->")[0].split(",")
        if len(term) == 1:
            return [info]
        dims = dict(zip(term[0], info.shape))
        return [info, probe(info, -1, 1, shape=tuple(dims.get(c, 2) for c in term[1]))]
    return [eq for eq in EQUATIONS if valid(_einsum_infer, fresh(eq), {"subscripts": eq})]


def _einsum_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, lambda i: i.dtype in NUMERIC and bool(_einsum_options(i)))
    info = sketch.infos[x]
    eq = choose.choice(_einsum_options(info))
    terms = eq.split("->")[0].split(",")
    args = [x]
    if len(terms) == 2:
        dims = dict(zip(terms[0], info.shape))
        n = choose.integer(1, 4)
        shape = tuple(dims.get(c, n) for c in terms[1])
        rrange = choose.choice([r for r in [(-4, 4), (-1, 1)]
                                if valid(_einsum_infer, [info, probe(info, *r, shape)], {"subscripts": eq})])
        args.append(operand(sketch, choose, [shape], info.dtype, *rrange,
                            accept=lambda i: valid(_einsum_infer, [info, i], {"subscripts": eq})))
    sketch.add("einsum", args, {"subscripts": eq})


def _einsum_ref(args, attrs):
    out = args[0].dtype.name
    return _contract_ref(lambda *xs: np.einsum(attrs["subscripts"], *xs), args, out)


EINSUM = OpDef("einsum", _einsum_infer, lambda R, args, at: R.op.einsum(args, at["subscripts"]), _einsum_ref,
               _einsum_propose, lambda i: i.dtype in NUMERIC and bool(_einsum_options(i)),
               notes=f"Only the equations {', '.join(EQUATIONS)} are drawn. The result keeps the operand dtype "
                     "(integer sums do not widen; overflow is never drawn).")

# -- outer --------------------------------------------------------------------------------------


def _outer_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 2 and not attrs, "outer takes two operands")
    a, b = args
    require(a.dtype == b.dtype and a.dtype in NUMERIC, "outer needs one numeric dtype")
    require(a.rank == 1 and b.rank == 1, "outer needs 1-D operands (Relax rejects others)")
    products = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return checked((a.shape[0], b.shape[0]), a.dtype, min(products), max(products),
                   a.exact and b.exact and is_int(a.dtype))


_outer_accepts = lambda i: i.dtype in NUMERIC and i.rank == 1 and valid(_outer_infer, [i, probe(i, -1, 1)])  # noqa: E731


def _outer_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _outer_accepts)
    info = sketch.infos[x]
    n = choose.integer(1, 4)
    rrange = choose.choice([r for r in [(-4, 4), (-1, 1)] if valid(_outer_infer, [info, probe(info, *r, (n,))])])
    y = operand(sketch, choose, [(n,), (1,), (2,), (3,), (4,)], info.dtype, *rrange,
                accept=lambda i: valid(_outer_infer, [info, i]))
    sketch.add("outer", [x, y])


OUTER = OpDef("outer", _outer_infer, lambda R, args, at: R.op.outer(*args),
              lambda args, at: _contract_ref(np.outer, args, args[0].dtype.name), _outer_propose, _outer_accepts,
              notes="1-D operands only: Relax rejects others (numpy.outer would flatten them).")

OPS = [MATMUL, OUTER, LINEAR, EINSUM]

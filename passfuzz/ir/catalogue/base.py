"""The mechanism behind the op catalogue: value facts, the op entry, the chooser protocol.

Every op is one ``OpDef``. Its ``infer`` is the single statement of the op's type rule *and*
of its value-range rule: it computes the result's shape, dtype, value interval and exactness
from the operands' facts, and raises ``OpError`` for anything TVM would reject or that would be
undefined behaviour at run time (an index out of range, an integer divisor that may be zero,
integer overflow, a float leaving its finite range). Generation, reduction and loading all
validate through it, so a Program that passes ``infer`` everywhere is valid by construction.

``propose`` is how the strategies instantiate an op: it picks operands and attributes with an
abstract ``Chooser`` (Hypothesis in ``strategies/``, anything else in tests), and may add helper
nodes first, e.g. a ``clip`` that makes a computed index valid for ``take``.

Exactness: a value is *exact* when every correct compilation must compute it bit for bit the
same (integers, bools, and floats that only went through data movement, negation, max/min and
the like). Floats that went through arithmetic may differ in the last bits after a legal
rewrite (reassociation, FMA contraction). Ops that turn such a difference into a discrete one
(comparisons, float-to-int casts) accept only exact float operands, so a tiny legal rounding
difference can never become a false alarm.
"""

from __future__ import annotations

import random
from dataclasses import KW_ONLY, dataclass, replace
from typing import Any, Callable, Protocol, Sequence, TypeVar

import numpy as np

T = TypeVar("T")

FLOATS = ("float32", "float16", "bfloat16", "float64")
INTS = ("int32", "int64", "int8", "uint8")
NUMERIC = FLOATS + INTS
# bfloat16 and float64 after the older dtypes: Hypothesis shrinks a choice toward its first options.
DTYPES = tuple(d for d in NUMERIC if d not in ("bfloat16", "float64")) + ("bfloat16", "float64", "bool")

# The range an integer value may reach: overflow is undefined behaviour in TVM's codegen. int64
# stops short of its limit so that bounds computed in float64 stay exact.
INT_RANGE = {"int32": (-2**31, 2**31 - 1), "int64": (-2**62, 2**62), "int8": (-128, 127), "uint8": (0, 255)}
# Largest magnitude a float value may reach: far from overflow, so that a rewrite's legal
# rounding difference stays a rounding difference.
# bfloat16 has float32's exponent range, so float32's limit; float64 keeps it too (the bounds
# are computed in float64, and a larger limit would find nothing a smaller one does not).
FLOAT_LIMIT = {"float32": 1e12, "float16": 1e4, "bfloat16": 1e12, "float64": 1e12}
# Relative tolerance of a float comparison; the absolute part scales with the value bound.
# bfloat16 keeps 8 significant bits, so one rounding errs by up to 2**-8 (0.4%) relative;
# 2**-4 allows 16 of them, for a legal rewrite that reorders a chain of roundings (float16's
# 2e-2 is about 40 of its 2**-11). float64's 1e-9 is far more than float32's 1700 roundings of
# 2**-53 (2e-13): room for math functions that are not correctly rounded in float64.
RTOL = {"float32": 1e-4, "float16": 2e-2, "bfloat16": 2**-4, "float64": 1e-9}


class OpError(ValueError):
    """The operands or attributes are not valid for this op."""


class _NoReference:
    """What the numpy reference gives for a value it cannot compute: an opaque kernel's
    (``call_tir``) and every value computed from one. The oracle compares such an output between
    the original and the optimized module only."""

    def __repr__(self) -> str:
        return "NO_REFERENCE"


NO_REFERENCE = _NoReference()


def is_float(dtype: str) -> bool:
    return dtype in FLOATS


def is_float_array(x) -> bool:
    """A numpy array of floats, float64 included: the gradient's twin computes in float64, and a
    reference that widened it to int64 as a non-float would truncate it."""
    return x.dtype.kind == "f" or is_float(x.dtype.name)


def is_int(dtype: str) -> bool:
    return dtype in INTS


def representable(dtype: str, lo: float, hi: float) -> bool:
    if dtype == "bool":
        return 0 <= lo and hi <= 1
    if is_int(dtype):
        low, high = INT_RANGE[dtype]
        return low <= lo and hi <= high
    return -FLOAT_LIMIT[dtype] <= lo and hi <= FLOAT_LIMIT[dtype]


def fit(dtype: str, lo: float, hi: float) -> tuple[float, float]:
    """[lo, hi] moved into what ``dtype`` represents: ops ask for operands in dtype-free ranges
    such as [-4, 4], which a uint8 operand meets as [0, 4] (and [-4, -1] as [0, 3])."""
    if not is_int(dtype):
        return lo, hi
    low, high = INT_RANGE[dtype]
    if hi < low:
        lo, hi = low, low + (hi - lo)
    return max(lo, low), min(hi, high)


@dataclass(frozen=True)
class ValueInfo:
    """What is statically known of a value: its type, a bound on its elements, exactness."""

    shape: tuple[int, ...]
    dtype: str
    lo: float
    hi: float
    exact: bool = True
    # Do lo and hi bound the elements? Not for a float computed by an opaque kernel (``call_tir``)
    # or from one: lo and hi are then a nominal [-1, 1] that holds zero and negatives, so an op
    # that needs its operand's range (a log, a divisor) refuses it, and the value is inexact.
    bounded: bool = True
    # An R.Shape of shape[0] sizes, not a tensor: only ops with ``OpDef.takes_shapes`` read one.
    shape_value: bool = False

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def magnitude(self) -> float:
        return max(abs(self.lo), abs(self.hi))

    def excludes_zero(self, margin: float = 0.0) -> bool:
        return self.lo > margin or self.hi < -margin


@dataclass(frozen=True)
class TupleInfo:
    """What is statically known of a tuple value: the facts of each item (tensors or tuples)."""

    items: tuple  # of ValueInfo | TupleInfo

    @property
    def exact(self) -> bool:
        return all(item.exact for item in self.items)



def leaves(info) -> list[ValueInfo]:
    """The tensors of a value, in the order a VM result flattens them (depth first)."""
    if isinstance(info, TupleInfo):
        return [leaf for item in info.items for leaf in leaves(item)]
    return [info]


def unbounded(info):
    """``info`` with its float tensors marked unbounded and inexact (see ``ValueInfo.bounded``):
    their values come from an opaque kernel. Integers and bools keep their range, which an op
    derives from its operands' types or from the dtype's limits, never from float bounds alone."""
    if isinstance(info, TupleInfo):
        return TupleInfo(tuple(unbounded(item) for item in info.items))
    return replace(info, bounded=False, exact=False) if is_float(info.dtype) else info


def same_type(a, b) -> bool:
    """Same Relax type: equal shapes and dtypes, item by item for tuples."""
    if isinstance(a, TupleInfo) or isinstance(b, TupleInfo):
        return isinstance(a, TupleInfo) and isinstance(b, TupleInfo) and len(a.items) == len(b.items) \
            and all(same_type(x, y) for x, y in zip(a.items, b.items))
    return a.shape == b.shape and a.dtype == b.dtype


# Relative rounding slack of a float result: the bounds are computed in float64, the values
# in the tensor's own precision (about twice its unit roundoff, 2**-24, 2**-11, 2**-8, 2**-53).
ROUNDING = {"float32": 1e-6, "float16": 1e-3, "bfloat16": 8e-3, "float64": 1e-15}


def checked(shape, dtype: str, lo: float, hi: float, exact: bool) -> ValueInfo:
    """A result ValueInfo, after checking its range is representable without overflow."""
    if dtype in ROUNDING:
        lo, hi = lo - abs(lo) * ROUNDING[dtype], hi + abs(hi) * ROUNDING[dtype]
    if not representable(dtype, lo, hi):
        raise OpError(f"result range [{lo:g}, {hi:g}] may overflow {dtype}")
    return ValueInfo(tuple(int(d) for d in shape), dtype, float(lo), float(hi), exact)


def require(condition: bool, message: str) -> None:
    if not condition:
        raise OpError(message)


def normalize_axis(axis: int, rank: int) -> int:
    require(isinstance(axis, int) and -rank <= axis < rank, f"axis {axis} out of range for rank {rank}")
    return axis % rank


def signed_axis(choose: Chooser, axis: int, rank: int) -> int:
    """``axis`` as an op is given it: itself or (half the time) its negative alias ``axis - rank``.
    Relax normalizes a negative axis in each op's type rule, and again, separately, in each
    gradient and legalization that reads it: a path the non-negative form never takes."""
    return axis - rank if choose.boolean() else axis


class Chooser(Protocol):
    """The source of every choice an op makes when it is instantiated."""

    def choice(self, options: Sequence[T]) -> T: ...

    def integer(self, lo: int, hi: int) -> int: ...

    def boolean(self) -> bool: ...

    def array(self, shape: tuple[int, ...], dtype: str, lo: float, hi: float) -> np.ndarray: ...


class RandomChooser:
    """A Chooser from a seeded ``random.Random``, for drawing outside Hypothesis (probes, tests);
    arrays hold elements drawn uniformly in [lo, hi]."""

    def __init__(self, seed):
        self.rng = seed if isinstance(seed, random.Random) else random.Random(seed)

    def choice(self, options):
        return self.rng.choice(list(options))

    def integer(self, lo, hi):
        return self.rng.randint(lo, hi)

    def boolean(self):
        return self.rng.random() < 0.5

    def array(self, shape, dtype, lo, hi):
        def element():
            if dtype == "bool":
                return self.rng.random() < 0.5
            return self.rng.randint(int(np.ceil(lo)), int(np.floor(hi))) if is_int(dtype) else self.rng.uniform(lo, hi)

        return np.array([element() for _ in range(int(np.prod(shape, dtype=int)))]).reshape(shape)


class Sketch(Protocol):
    """A Program under construction, as ops see it while proposing (see passfuzz.ir.graph)."""

    infos: list[ValueInfo]
    depth: int  # 0 in main, 1 inside a function body or branch, ...
    ops: Sequence | None  # the OpDefs a function body or branch may draw (None: all)

    def candidates(self, accept: Callable[[ValueInfo], bool], tuples: bool = False) -> list[int]: ...

    def region(self, params: Sequence) -> "Sketch": ...  # a function body or branch taking ``params``

    def add(self, op: str, args: Sequence[int], attrs: dict | None = None) -> int: ...

    def add_const(self, shape: tuple[int, ...], dtype: str, lo: float, hi: float) -> int: ...

    def add_param(self, shape: tuple[int, ...], dtype: str, lo: float, hi: float, role: str) -> int: ...


@dataclass(frozen=True)
class OpDef:
    """One op of the catalogue; see the module docstring for the contract of each part."""

    name: str
    infer: Callable[[list[ValueInfo], dict], ValueInfo]
    emit: Callable[[Any, list, dict], Any]  # (tvm.relax, operand exprs, attrs) -> expr
    reference: Callable[[list[np.ndarray], dict], np.ndarray] | None  # None: no reference (NO_REFERENCE)
    propose: Callable[[Sketch, Chooser], None] | None  # None: never drawn as a node of its own
    accepts: Callable[[ValueInfo], bool]  # can this value be the first operand?
    notes: str = ""  # where the Relax op differs from its numpy counterpart
    _: KW_ONLY  # the flags below are named where they are set
    takes_tuples: bool = False  # may an operand be a tuple? (else only tensors are offered)
    # May an operand be a scalar parameter typed R.Prim (``Param.prim``)? TVM's binary ops take a
    # PrimValue on either side and legalize it as a scalar; every other op takes tensors only.
    takes_prims: bool = False
    # May an operand be an R.Shape value (``ValueInfo.shape_value``)? Only the shape ops' are.
    takes_shapes: bool = False
    # Infinitely differentiable on every operand range ``infer`` accepts (no kink, no discrete
    # output, domains kept away from singularities by the range rule), float in and float out:
    # what Gradient's loss programs are drawn from (passfuzz.judge.gradient), so that finite
    # differences are meaningful by construction. Helpers a propose adds must be smooth too.
    # An op with ``kinks`` is smooth only on the operand ranges ``kinks`` accepts.
    smooth: bool = False
    # Why relax.transform.Gradient cannot differentiate the op with these attributes, as TVM says
    # so itself ('' when it can): a loss program leaves such a node out (its gradient's assertion
    # or an op its legalization refuses is a documented limit, not a bug).
    undifferentiable: Callable[[dict], str] | None = None
    # For an op smooth only away from some points (abs and relu at 0, maximum at a tie): why
    # operands with these facts may reach such a point ('' when they keep clear of it). A loss
    # program holds the op only where its operands' ranges, widened by a finite-difference step,
    # keep clear (passfuzz.judge.gradient.unjudgeable checks it).
    kinks: Callable[[list[ValueInfo]], str] | None = None
    # (attrs) -> the operand positions TVM documents its gradient does not reach (nll_loss's
    # targets and weights, a fill value: ``no_grad``): a loss program computes none of them from a
    # parameter, or the gradient would be wrong by design.
    held_constant: Callable[[dict], tuple[int, ...]] | None = None
    # May it be emitted on operands typed with symbolic dims (relax_build match_casts them to
    # their static shape otherwise)? True only where no attribute depends on a concrete dim.
    symbolic: bool = False
    # For ops that bind values of their own (a match_cast): (BlockBuilder, tvm.relax, operand
    # exprs, attrs, a unique name prefix) -> expr; relax_build calls it instead of ``emit``.
    emit_in: Callable[[Any, Any, list, dict, str], Any] | None = None
    # Why TVM cannot compile the op with these attributes ('' when it can): the importer rejects
    # such a node, since a module holding it fails to build before any pass runs.
    unbuildable: Callable[[dict], str] | None = None
    # Must each operand be a variable (a checkpoint marker's type rule refuses anything else)?
    # relax_build then binds a constant operand, which it otherwise writes inline, first.
    var_operands: bool = False
    # Drawn by generation and mutation? False: proposed only to teach the importer its forms, held
    # only by imported modules (see the op's notes for why).
    drawn: bool = True

    @property
    def drawable(self) -> bool:
        return self.propose is not None and self.drawn

    def applicable(self, sketch: Sketch, drawing: bool = True) -> bool:
        """May ``propose`` add a node of it to ``sketch`` (``drawing=False``: to learn its import
        forms, for an op not drawn too)?"""
        usable = self.drawable if drawing else self.propose is not None
        return usable and bool(sketch.candidates(self.accepts, self.takes_tuples))


def smooth(op: OpDef, undifferentiable: Callable[[dict], str] | None = None,
           kinks: Callable[[list[ValueInfo]], str] | None = None,
           held_constant: Callable[[dict], tuple[int, ...]] | None = None) -> OpDef:
    """``op`` marked smooth (see ``OpDef.smooth``, ``undifferentiable``, ``kinks``, ``held_constant``)."""
    return replace(op, smooth=True, undifferentiable=undifferentiable, kinks=kinks, held_constant=held_constant)


class _WholeSketch:
    """The sketch a whole-tuple op's propose hands its part's propose: the node the part adds
    becomes the whole call (``index`` dropped); everything else is the real sketch."""

    def __init__(self, sketch: Sketch, part: str, whole: OpDef):
        self._sketch, self._part, self._whole = sketch, part, whole

    def __getattr__(self, name):
        return getattr(self._sketch, name)

    def add(self, op: str, args: Sequence[int], attrs: dict | None = None) -> int:
        if op != self._part:
            return self._sketch.add(op, args, attrs)
        attrs = {k: v for k, v in (attrs or {}).items() if k != "index"}
        # the part's propose made its one field valid; another field may refuse these operands
        self._whole.infer([self._sketch.infos[a] for a in args], attrs)
        return self._sketch.add(self._whole.name, args, attrs)


def whole_tuple(part: OpDef, fields: int, notes: str = "") -> OpDef:
    """The tuple every field of which ``part`` takes one of (``part`` emits a call followed by
    TupleGetItem(attrs["index"]), as batch_norm does): the call alone, ``fields`` fields long, as
    TVM's tests bind and return it (``gv = R.nn.batch_norm(...); return gv``). Its facts, emit and
    reference are the part's, field by field. Not drawn: the part already is, and a tuple read
    item by item is the same program; it teaches the importer the whole call."""

    def at(attrs: dict, index: int) -> dict:
        return {**attrs, "index": index}

    def infer(args, attrs):
        require("index" not in attrs, f"{part.name}_tuple takes no index")
        return TupleInfo(tuple(part.infer(args, at(attrs, i)) for i in range(fields)))

    def reference(args, attrs):
        return tuple(part.reference(args, at(attrs, i)) for i in range(fields))

    def propose(sketch: Sketch, choose: Chooser) -> None:
        part.propose(_WholeSketch(sketch, part.name, whole), choose)

    whole = replace(part, name=f"{part.name}_tuple", infer=infer, reference=reference, propose=propose,
                    emit=lambda R, args, attrs: part.emit(R, args, at(attrs, 0)).tuple_value,
                    notes=notes or f"{part.name}'s whole tuple of {fields} fields, each as {part.name} gives it.",
                    drawn=False, smooth=False, undifferentiable=None, kinks=None, held_constant=None)
    return whole


def varying_where_held(op: OpDef, attrs: dict, args: Sequence[int], varying: set[int]) -> str:
    """Why a node of ``op`` on ``args`` breaks ``OpDef.held_constant``, given the indices of the
    values computed from a parameter ('' when it does not)."""
    held = op.held_constant(attrs) if op.held_constant is not None else ()
    bad = [k for k in held if k < len(args) and args[k] in varying]
    return f"{op.name}'s operand {bad[0]} is computed from a parameter, and TVM's gradient does not reach it " \
        "(no_grad)" if bad else ""


def differentiable_here(op: OpDef, attrs: dict) -> str:
    """Why Gradient cannot differentiate ``op`` with ``attrs`` ('' when it can)."""
    return op.undifferentiable(attrs) if op.undifferentiable is not None else ""


def kinked_here(op: OpDef, args: Sequence) -> str:
    """Why ``op`` may not be smooth on operands with the facts ``args`` ('' when it is)."""
    if op.kinks is None:
        return ""
    if any(not isinstance(a, ValueInfo) or not a.bounded for a in args):
        return f"{op.name}: an operand's range is unknown, so its kink may lie inside"
    return op.kinks(list(args))


def kink_at_zero(name: str) -> Callable[[list[ValueInfo]], str]:
    """``OpDef.kinks`` of a unary op that bends at 0 (abs, relu)."""
    def kinks(args: list[ValueInfo]) -> str:
        (x,) = args
        return "" if x.excludes_zero() else f"{name} bends at 0, inside its operand's range [{x.lo:g}, {x.hi:g}]"
    return kinks


def kink_at_tie(name: str) -> Callable[[list[ValueInfo]], str]:
    """``OpDef.kinks`` of maximum and minimum: they bend where the operands tie."""
    def kinks(args: list[ValueInfo]) -> str:
        a, b = args
        return "" if a.lo > b.hi or b.lo > a.hi else \
            f"{name} bends where its operands tie, and their ranges [{a.lo:g}, {a.hi:g}], [{b.lo:g}, {b.hi:g}] meet"
    return kinks


# -- operand helpers shared by the ops' propose functions -------------------------------------

def valid(infer: Callable[[list[ValueInfo], dict], ValueInfo], args: list[ValueInfo], attrs: dict | None = None) -> bool:
    """Would ``infer`` accept these operands? Lets propose choose only among valid operands."""
    try:
        infer(args, attrs or {})
        return True
    except OpError:
        return False


def probe(like: ValueInfo, lo: float = -4, hi: float = 4, shape: tuple[int, ...] | None = None) -> ValueInfo:
    """The facts of a fresh operand: ``like``'s dtype, elements in [lo, hi] (as ``fit`` moves it)."""
    return ValueInfo(like.shape if shape is None else shape, like.dtype, *fit(like.dtype, lo, hi), True)


def pick(sketch: Sketch, choose: Chooser, accept: Callable[[ValueInfo], bool], tuples: bool = False) -> int:
    options = sketch.candidates(accept, tuples)
    if not options:
        raise OpError("no operand qualifies")  # OpDef.applicable() prevents this
    return choose.choice(options)


def operand(sketch: Sketch, choose: Chooser, shapes: Sequence[tuple[int, ...]], dtype: str,
            lo: float, hi: float, accept: Callable[[ValueInfo], bool] = lambda info: True) -> int:
    """An operand of one of ``shapes`` and ``dtype``: an existing value for which ``accept``
    holds, or a new constant or parameter with elements drawn in [lo, hi]. Existing values come
    first, so shrinking prefers reusing the graph over growing it."""
    wanted = {tuple(s) for s in shapes}
    existing = sketch.candidates(lambda i: i.shape in wanted and i.dtype == dtype and accept(i))
    source = choose.choice([*existing, "const", "param"])
    if not isinstance(source, str):
        return source
    shape = tuple(choose.choice(list(shapes)))
    if source == "const":
        return sketch.add_const(shape, dtype, lo, hi)
    return sketch.add_param(shape, dtype, lo, hi, choose.choice(["input", "weight"]))


def broadcastable_shapes(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Shapes that broadcast against ``shape`` to ``shape`` itself: same shape first, then scalar,
    then the trailing dims, then the same shape with each dim set to 1."""
    out = [tuple(shape), ()]
    for k in range(1, len(shape)):
        out.append(tuple(shape[k:]))
    for k, d in enumerate(shape):
        if d != 1:
            out.append(tuple(1 if j == k else s for j, s in enumerate(shape)))
    seen, unique = set(), []
    for s in out:
        if s not in seen:
            seen.add(s)
            unique.append(s)
    return unique


def broadcast(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return tuple(int(d) for d in np.broadcast_shapes(*shapes))
    except ValueError:
        raise OpError(f"shapes {shapes} do not broadcast") from None

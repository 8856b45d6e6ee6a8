"""Relax IRModule -> Program: the inverse of passfuzz.relax.build, for every op the catalogue knows.

An op is recognised without an inverse written per op. Each OpDef is emitted once on placeholder
operands (samples drawn by its own ``propose``), which gives its *pattern*: the expression tree
its ``emit`` produces, keyed by its root (a Relax op name, a tuple, an item of a tuple). A binding
is matched against the patterns of its root, descending into values bound once in the same body
(an op that emits several bindings, like ``masked_fill`` or ``split``'s item); the placeholders
give its operands. The attributes are then searched among the literals of the matched tree (its
calls' attribute fields, literal arguments, shapes, scalar constants, item indices), same-named
fields first, and a candidate is accepted only when re-emitting the OpDef with them on the same
operands gives the same expression: the import is exact by construction, and the catalogue stays
the one place per op.

The Program is plain data and the module does not say everything it holds: the declared value
range of each parameter and, for consts and parameters, their place among the values. ``canonical``
is the normal form the import gives (parameters first, in ``main``'s order; each constant just
before its first consumer; a constant operand of an If inside the branches that read it, as
relax_build writes it inline there; an If's operands in the order its branches first read them), so
``import_module(build_module(p), arguments=p.arguments())`` equals ``canonical(p)`` up to the
parameters' ranges, which the importer infers: the simplest candidate range holding the
arguments for which ``graph.analyse`` accepts the Program (narrower ones for indices, divisors,
log domains), or else a ``clip`` after the parameter, or last float parameters near one
(``import_notes`` lists what was done).

Match_casts vanish (a program's values have static shapes; the typing of parameters carries the
symbolic dims), and so do aliases and R.output. Two calls are read without a pattern: a
``R.call_tir`` of a PrimFunc the module holds becomes an opaque kernel node (catalogue/kernels.py,
the PrimFunc as TVMScript), and a ``layout_transform``'s index map is read into its OpDef's plain
form. A parameter typed without a dtype or a shape takes a concrete choice (``_tensor_param``,
``UNKNOWN_RANK_SHAPES``). Anything else raises ImportRejected, whose message is one line naming
the construct and where it is.
"""

from __future__ import annotations

import ast
import functools
import heapq
import itertools
import math
import random
import re
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import tvm
from tvm import relax
import tvm_ffi
from tvm_ffi import structural_equal

from passfuzz.ir.catalogue import BY_NAME, OPS
from passfuzz.ir.catalogue.base import DTYPES, RandomChooser, TupleInfo, fit, is_int, representable
from passfuzz.ir.catalogue.kernels import INTEGER_OPERAND_RANGE
from passfuzz.ir.catalogue.structure import analyse_region
from passfuzz.ir.graph import ProgramSketch, analyse
from passfuzz.ir.program import Node, Param, PrimParam, Program, ProgramError, dim_names, dim_value, numpy_dtype

# Declared ranges tried for a parameter without a given one, simplest first; the later ones make
# indices, divisors and log domains valid (an index range [0, axis-1] is added per use).
FLOAT_RANGES = [(-4.0, 4.0), (0.5, 4.0), (1.0, 4.0), (0.0, 4.0), (-1.0, 1.0), (-0.5, 0.5)]
# The last resort for float parameters, where neither these nor a clip make a module valid: values
# near one keep repeated powers (x ** 3 ** 3 ** 3) inside the base range power accepts.
NEAR_ONE = (0.95, 1.05)
INT_RANGES = [(-8, 8), (1, 4), (0, 8), (1, 8), (0, 1), (0, 3), (0, 2), (0, 0), (-2, 2)]
MAX_ATTEMPTS = 400  # attribute assignments tried per candidate OpDef
# Shapes tried, in order, for a parameter of unknown rank that neither an argument nor a match_cast
# sizes (``x: R.Tensor``, as TVM's tests write a parameter whose type does not matter)
UNKNOWN_RANK_SHAPES = [(2, 3), (3,), (2, 3, 4), ()]
# Dtypes tried, in order, for a parameter without one that neither an argument nor a match_cast
# gives (``R.Tensor((2, 3))``; TVM's tests add R.const(1), an int32, to one)
UNKNOWN_DTYPES = ["float32", "int32", "int64", "bool", "float16"]


# The global functions registered when this module is first imported: TVM's own, which every
# process that builds and runs a Program has, and not those a test file registers for itself
# (campaign/seeds.py imports this module before it executes a file).
TVM_FUNCTIONS = frozenset(tvm_ffi.registry.list_global_func_names())


# Global functions that compute a new value from their operands and do nothing else: an
# ``R.call_packed`` of one (an impure call, written before RemovePurityChecking made it so, or in
# an impure function) is the ``call_pure_packed`` node the Program has. Other functions called so
# may write into their operands or keep state, and stay rejected.
PURE_PACKED = frozenset({"vm.builtin.copy"})


class ImportRejected(ValueError):
    """The module holds something passfuzz's Program cannot express; the message is one line."""


# -- patterns: what each OpDef emits ---------------------------------------------------------------

@dataclass(frozen=True)
class Pattern:
    op: Any  # the OpDef
    expr: Any  # its emit on placeholder operands
    holes: tuple  # the placeholders (relax Vars), in operand order
    attrs: dict  # the sample's attributes (their keys and kinds)
    size: int  # calls and items in the tree: bigger patterns are tried first


def _root_key(expr) -> str:
    if isinstance(expr, relax.Call):
        return getattr(expr.op, "name", "call")
    if isinstance(expr, relax.TupleGetItem):
        return "item:" + _root_key(expr.tuple_value)
    if isinstance(expr, relax.Tuple):
        return "tuple"
    if isinstance(expr, relax.Var):  # a DataflowVar too
        return "var"
    return type(expr).__name__


def _tree_size(expr) -> int:
    if isinstance(expr, relax.Call):
        return 1 + sum(_tree_size(a) for a in expr.args)
    if isinstance(expr, relax.TupleGetItem):
        return 1 + _tree_size(expr.tuple_value)
    if isinstance(expr, relax.Tuple):
        return 1 + sum(_tree_size(a) for a in expr.fields)
    return 0


def _type(info):
    if isinstance(info, TupleInfo):
        return relax.TupleType([_type(i) for i in info.items])
    if info.shape_value:
        return relax.ShapeType(ndim=info.shape[0])
    return relax.TensorType(info.shape, info.dtype)


_SAMPLE_PARAMS = [((4, 4), "float32", -4, 4), ((2, 3, 4), "int32", 0, 3), ((1, 4), "float32", 0.5, 4),
                  ((4, 4), "bool", 0, 1), ((2,), "int64", 0, 1), ((3, 1, 2), "float16", -4, 4)]


@functools.cache
def patterns() -> dict[str, list[Pattern]]:
    """Root key -> the patterns of the OpDefs whose emit has that root, biggest first. Computed
    once: each op is proposed on small sketches until a few samples of distinct shapes appear."""
    found: dict[str, list[Pattern]] = {}
    for op in OPS:
        if op.emit is None or op.emit_in is not None or op.propose is None:
            continue
        seen = set()
        for seed in range(60):
            chooser = RandomChooser(seed)
            sketch = ProgramSketch(chooser)
            for k, (shape, dtype, lo, hi) in enumerate(_SAMPLE_PARAMS):
                if (seed + k) % 3:
                    sketch.add_param(shape, dtype, lo, hi, "input")
            if not op.applicable(sketch, drawing=False) or not sketch.attempt(lambda: op.propose(sketch, chooser)):
                continue
            for v, args in [(v, v.args) for v in sketch.values if getattr(v, "op", None) == op.name]:
                holes = tuple(relax.Var(f"h{k}", _type(sketch.infos[a])) for k, a in enumerate(args))
                try:
                    expr = op.emit(relax, list(holes), v.attrs)
                except Exception:  # noqa: BLE001 - a sample the emit refuses teaches nothing
                    continue
                # a call's arity too: an optional argument left out (strided_slice's strides) is another form
                key = (_root_key(expr), len(holes), tuple(sorted(v.attrs)), len(getattr(expr, "args", ())))
                if key in seen:
                    continue
                seen.add(key)
                found.setdefault(key[0], []).append(Pattern(op, expr, holes, dict(v.attrs), _tree_size(expr)))
            if len(seen) >= 4:
                break
    for key in found:  # of two alike, the one reading a literal as an attribute (fewer holes) first
        found[key].sort(key=lambda p: (-p.size, len(p.attrs), len(p.holes)))
    return found


_PIECES: dict = {}  # id of a pattern of patterns() (cached, so alive) -> its pieces


def _pieces(pattern: Pattern) -> tuple:
    """The nodes the importer reads ``pattern``'s emit as without that pattern itself, in the local
    numbering of ``_read_back`` (operands first), or () where only the pattern reads it."""
    if id(pattern) not in _PIECES:
        _PIECES[id(pattern)] = () if pattern.size < 2 else \
            _read_nodes(pattern.holes, pattern.expr, _Importer(tvm.IRModule({}), "f", reading=pattern)) or ()
    return _PIECES[id(pattern)]


def _composite(pattern: Pattern) -> bool:
    """Is ``pattern`` the composition of other OpDefs' emits? ``linear`` is ``permute_dims`` then
    ``matmul`` (then ``add``), ``masked_fill`` is ``full_like`` then ``where``: Relax has no op of
    their own, so the module cannot tell such an OpDef from its pieces. The importer reads the
    pieces, the finer Program (each piece an op the reducer and the mutations can move on its
    own), and ``canonical`` expands a composite node into them; the generator keeps drawing the
    composite, which puts the pieces together in the shapes they fit."""
    return len(_pieces(pattern)) > 1


# -- literals: what attributes can be made of ---------------------------------------------------------

def _python(value):
    """A TVM attribute or literal as the plain value a Program attribute holds."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):  # a dtype field is a str subclass
        return str(value)
    if isinstance(value, tvm.tirx.IntImm):
        return bool(value.value) if str(value.ty) == "bool" else int(value.value)
    if isinstance(value, tvm.tirx.FloatImm):
        return float(value.value)
    if isinstance(value, relax.ShapeExpr):
        return [_python(v) for v in value.values]
    if isinstance(value, relax.Tuple):
        return [_python(v) for v in value.fields]
    if isinstance(value, tvm.ir.expr.GenericConst):
        array = value.value.numpy()
        return array.item() if array.ndim == 0 else array.tolist()
    if hasattr(value, "value") and isinstance(getattr(value, "value"), (str, int, float)):  # StringImm and kin
        return value.value
    if isinstance(value, (list, tuple)) or type(value).__name__ in ("Array", "List"):
        return [_python(v) for v in value]
    text = str(value)
    return None if text in ("", "void") else text


def _attr_fields(attrs) -> dict:
    if attrs is None:
        return {}
    names = [n for n in dir(attrs) if not n.startswith("_") and n not in ("same_as", "get_int", "get_str",
                                                                             "get_int_tuple", "id_", "is_")]
    out = {}
    for n in names:
        try:
            value = getattr(attrs, n)
        except Exception:  # noqa: BLE001
            continue
        if not callable(value):
            out[n] = _python(value)
    return out


def _literals(expr, holes_used, inline) -> list[tuple[str, Any]]:
    """(name, value) of every literal in a matched tree: attribute fields by name, literal
    arguments and item indices under a positional name."""
    out: list[tuple[str, Any]] = []

    def walk(e):
        e = inline.get(e, e)
        if any(e.same_as(h) for h in holes_used):
            return
        if isinstance(e, relax.Call):
            out.extend(_attr_fields(e.attrs).items())
            for a in e.args:
                walk(a)
        elif isinstance(e, relax.TupleGetItem):
            out.append(("index", int(e.index)))
            walk(e.tuple_value)
        elif isinstance(e, relax.Tuple):
            if e.fields and not any(isinstance(f, relax.Var) for f in e.fields):
                out.append(("", _python(e)))
            for f in e.fields:
                walk(f)
        elif not isinstance(e, relax.Var):
            out.append(("", _python(e)))
            if isinstance(e, (tvm.tirx.IntImm, tvm.tirx.FloatImm)):  # a prim value carries a dtype
                out.append(("dtype", str(e.ty)))

    walk(expr)
    return out


def _kind(value) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return type(value).__name__


def _as_kind(value, kind: str, named: bool) -> list:
    """``value`` read as a literal of ``kind``: a bool constant is also the number 0 or 1 (a fill
    value of a bool tensor, one_hot's on/off values); a field of the attribute's own name holding
    an int is also a one-item axis list, and one holding a one-item list also that item."""
    if isinstance(value, bool) and kind == "number":
        return [int(value)]
    if named and isinstance(value, int) and not isinstance(value, bool) and kind == "list":
        return [[value]]
    if named and isinstance(value, list) and len(value) == 1 and kind == "number":
        return [value[0]]
    return []


def _attr_candidates(pattern: Pattern, literals) -> list[dict]:
    """Attribute dicts to try, most likely first. Per attribute, its options in order: same-named
    fields of the sample value's kind, unnamed literals (arguments, constants, prim values) of
    that kind, then literals named otherwise, literals converted to that kind, the remaining
    same-named fields, the sample's own value, None. Dicts come in order of the sum of their
    options' ranks, so an attribute found late does not multiply the tries of every other."""
    options = []
    for key, sample in pattern.attrs.items():
        kind = _kind(sample)
        named = [v for n, v in literals if n == key]
        alike = [v for v in named if _kind(v) == kind]
        unnamed = [v for n, v in literals if n == "" and _kind(v) == kind]
        similar = [v for n, v in literals if n not in ("", key) and _kind(v) == kind]
        converted = [c for n, v in literals if n in ("", key) for c in _as_kind(v, kind, n == key)]
        values = []
        for v in alike + unnamed + similar + converted + named + [sample, None]:
            if not any(type(v) is type(w) and v == w for w in values):
                values.append(v)
        options.append(values)
    keys = list(pattern.attrs)
    for ranks in itertools.islice(_by_rank_sum([len(o) for o in options]), MAX_ATTEMPTS):
        yield {key: options[k][r] for k, (key, r) in enumerate(zip(keys, ranks))}


def _by_rank_sum(sizes: list[int]):
    """Every index tuple below ``sizes``, in order of the sum of its indices (then lexicographic)."""
    start = (0,) * len(sizes)
    heap, seen = [(0, start)], {start}
    while heap:
        total, ranks = heapq.heappop(heap)
        yield ranks
        for k in range(len(ranks)):
            if ranks[k] + 1 < sizes[k]:
                step = ranks[:k] + (ranks[k] + 1,) + ranks[k + 1:]
                if step not in seen:
                    seen.add(step)
                    heapq.heappush(heap, (total + 1, step))


# -- matching ------------------------------------------------------------------------------------------

def _match(pattern, actual, holes: dict, absorbed: list, body) -> bool:
    """Does ``actual`` have the shape of ``pattern``? Fills ``holes`` (placeholder -> expr) and
    ``absorbed`` (local vars bound once, whose values the match descended into)."""
    if isinstance(pattern, relax.Var):
        for h, e in holes.items():
            if h.same_as(pattern):
                return e.same_as(actual)
        holes[pattern] = actual
        return True
    # a tuple of operands bound to a var of its own is a tuple node (relax_build writes an op's
    # operand tuple inline), which an op taking a tuple reads as one operand
    if isinstance(actual, relax.Var) and body.absorbable(actual) and not _operand_tuple(pattern):
        absorbed.append(actual)
        return _match(pattern, body.bound[actual], holes, absorbed, body)
    if isinstance(pattern, relax.Call):
        if not isinstance(actual, relax.Call) or not actual.op.same_as(pattern.op) or len(actual.args) != len(pattern.args):
            return False
        return all(_match(p, a, holes, absorbed, body) for p, a in zip(pattern.args, actual.args))
    if isinstance(pattern, relax.TupleGetItem):
        return isinstance(actual, relax.TupleGetItem) and \
            _match(pattern.tuple_value, actual.tuple_value, holes, absorbed, body)
    if isinstance(pattern, relax.Tuple):
        if not isinstance(actual, relax.Tuple):
            return False
        if _operand_tuple(pattern):
            return _variadic(pattern, actual, holes)
        if all(_literal(f) for f in pattern.fields) and all(_literal(f) for f in actual.fields):
            return True  # a tuple of literals (strided_slice's begin, end, ...) of any length
        return len(actual.fields) == len(pattern.fields) and \
            all(_match(p, a, holes, absorbed, body) for p, a in zip(pattern.fields, actual.fields))
    # a literal (attribute values are searched afterwards): any literal, of any dtype
    return not isinstance(actual, (relax.Call, relax.Tuple, relax.TupleGetItem, relax.Var))


def _operand_tuple(pattern) -> bool:
    return isinstance(pattern, relax.Tuple) and bool(pattern.fields) and all(isinstance(f, relax.Var) for f in pattern.fields)


def _literal(expr) -> bool:
    return not isinstance(expr, (relax.Call, relax.Tuple, relax.TupleGetItem, relax.Var))


def _variadic(pattern, actual, holes) -> bool:
    """A tuple of operands (concat, stack, tuple): any number of items, each an operand."""
    if not actual.fields:
        return False
    holes["*"] = list(actual.fields)
    return True


def _same(emitted, actual, inline) -> bool:
    """Is the expression ``emitted`` the same as ``actual`` with the absorbed vars inlined?"""
    actual = inline.get(actual, actual)
    if isinstance(emitted, relax.Call):
        return isinstance(actual, relax.Call) and emitted.op.same_as(actual.op) and \
            len(emitted.args) == len(actual.args) and \
            all(_same(e, a, inline) for e, a in zip(emitted.args, actual.args)) and \
            structural_equal(emitted.attrs, actual.attrs) and \
            len(emitted.ty_args) == len(actual.ty_args) and \
            all(structural_equal(e, a) for e, a in zip(emitted.ty_args, actual.ty_args))
    if isinstance(emitted, relax.TupleGetItem):
        return isinstance(actual, relax.TupleGetItem) and emitted.index == actual.index and \
            _same(emitted.tuple_value, actual.tuple_value, inline)
    if isinstance(emitted, relax.Tuple):
        return isinstance(actual, relax.Tuple) and len(emitted.fields) == len(actual.fields) and \
            all(_same(e, a, inline) for e, a in zip(emitted.fields, actual.fields))
    if isinstance(emitted, relax.Var):
        return emitted.same_as(actual)
    return structural_equal(emitted, actual)


# -- bodies --------------------------------------------------------------------------------------------

def _children(expr) -> list:
    """The sub-expressions of ``expr`` a reference can sit in (bindings, bodies and branches too)."""
    if isinstance(expr, relax.Call):
        return [expr.op, *expr.args]
    if isinstance(expr, relax.Tuple):
        return list(expr.fields)
    if isinstance(expr, relax.TupleGetItem):
        return [expr.tuple_value]
    if isinstance(expr, relax.If):
        return [expr.cond, expr.true_branch, expr.false_branch]
    if isinstance(expr, relax.SeqExpr):
        return [b.value for block in expr.blocks for b in block.bindings] + [expr.body]
    if isinstance(expr, relax.Function):
        return [expr.body]
    return []


def _references(expr, kind):
    """Every occurrence of a node of ``kind`` in ``expr``, nested functions and branches included."""
    if isinstance(expr, kind):
        yield expr
    for child in _children(expr):
        yield from _references(child, kind)


def _uses(expr, counts: dict) -> None:
    """Count the references to each relax Var in ``expr``."""
    for var in _references(expr, relax.Var):
        counts[var] = counts.get(var, 0) + 1


class _Body:
    """One function body or branch being imported into a value list (main's or a region's)."""

    def __init__(self, importer, where: str, values: list, scope: dict, seq, leaf_map=None, outputs_tuple=True):
        self.importer, self.where, self.values, self.scope = importer, where, values, scope
        # main returns several outputs as one tuple; a function body or branch returns one value,
        # which may be a tuple node
        self.outputs_tuple = outputs_tuple
        self.leaf_map = leaf_map  # in a branch: main's tuple-parameter items -> the branch's parameters
        self.bindings = [b for block in seq.blocks for b in block.bindings]
        self.bound = {b.var: b.value for b in self.bindings if isinstance(b, relax.VarBinding)}
        self.uses: dict = {}
        _uses(seq, self.uses)
        self.item_uses: dict = {}  # the references that read one item (``t[0]``)
        for item in _references(seq, relax.TupleGetItem):
            if isinstance(item.tuple_value, relax.Var):
                self.item_uses[item.tuple_value] = self.item_uses.get(item.tuple_value, 0) + 1
        self.result = seq.body
        self.claimed: set = set()  # vars whose bindings a matched op absorbed

    def absorbable(self, var) -> bool:
        """Can a match descend into ``var``'s binding? When it is read once; or when it is an op's
        tuple (split's parts, a batch_norm's fields) read only item by item: each item read is then
        a node of its own with the op repeated, as the catalogue writes one (``split`` is split and
        one item)."""
        value = self.bound.get(var)
        once = self.uses.get(var, 0) == 1 or (isinstance(value, relax.Call) and isinstance(value.ty, relax.TupleType)
                                              and self.item_uses.get(var, 0) == self.uses.get(var, 0))
        return value is not None and once and not var.same_as(self.result) \
            and isinstance(value, (relax.Call, relax.TupleGetItem, relax.Tuple)) \
            and not (isinstance(value, relax.Call) and not isinstance(value.op, tvm.ir.Op))

    def fail(self, binding, message: str):
        raise ImportRejected(f"cannot import {self.where}: binding {binding.var.name} = "
                             f"{_brief(binding.value)}: {message}")

    def operand(self, expr, binding) -> int:
        """The value index of an operand expression."""
        if isinstance(expr, relax.Var) and expr in self.scope:
            return self.scope[expr]
        if isinstance(expr, tvm.ir.expr.GenericConst):
            for known, index in self.scope.items():
                if known.same_as(expr):
                    return index
            array = expr.value.numpy()
            dtype = str(expr.value.dtype)
            if dtype not in DTYPES:
                self.fail(binding, f"a constant of dtype {dtype} is not among passfuzz's dtypes")
            self.values.append(Node("const", (), {"shape": list(array.shape), "dtype": dtype,
                                                  "value": array.tolist()}))
            self.scope[expr] = self.importer.index(self.values)
            return self.scope[expr]
        if isinstance(expr, relax.TupleGetItem):
            leaf = self.importer.tuple_leaf(expr)
            if leaf is not None:
                if self.leaf_map is not None and leaf not in self.leaf_map:
                    self.fail(binding, "reads an item of a tuple parameter the branch does not take")
                return leaf if self.leaf_map is None else self.leaf_map[leaf]
        if isinstance(expr, (tvm.tirx.IntImm, tvm.tirx.FloatImm)) and str(expr.ty) in DTYPES:
            # a literal R.prim_value (0.27: the IntImm itself): a const marked prim, written so again
            self.values.append(Node("const", (), {"shape": [], "dtype": str(expr.ty), "value": _python(expr),
                                                  "prim": True}))
            return self.importer.index(self.values)
        if isinstance(expr, relax.Tuple) and expr.fields:  # written inline (``f((a, b))``): a tuple node
            items = tuple(self.operand(e, binding) for e in expr.fields)
            self.values.append(Node("tuple", items, {}))
            return self.importer.index(self.values)
        if isinstance(expr, relax.Var) and expr in self.importer.leaves and self.leaf_map is None:
            self.scope[expr] = self.whole_tuple(self.importer.leaves[expr])  # once, as a constant is
            return self.scope[expr]
        self.fail(binding, f"operand {_brief(expr)} is not a value passfuzz can name")

    def whole_tuple(self, entry) -> int:
        """A tuple parameter of main read whole (``R.concat(t)``): a tuple node of its items marked
        ``parameter``, which relax_build writes as the parameter again."""
        items = tuple(self.whole_tuple(e) if isinstance(e, tuple) else e for e in entry)
        self.values.append(Node("tuple", items, {"parameter": True}))
        return self.importer.index(self.values)

    def run(self) -> None:
        plan = {}
        result = self.bound.get(self.result) if isinstance(self.result, relax.Var) else None
        if isinstance(result, relax.Tuple) and self.outputs_tuple:  # several outputs, returned as one tuple: no node
            self.claimed.add(self.result)
        for b in self.bindings:  # items of nested tuple parameters are tuples of parameters
            if isinstance(b.value, relax.TupleGetItem) and isinstance(self.importer.tuple_entry(b.value), tuple):
                self.importer.leaves[b.var] = self.importer.tuple_entry(b.value)
        for b in reversed(self.bindings):
            if b.var in self.claimed:
                continue
            plan[b.var] = self.plan(b)
        for b in self.bindings:
            if b.var in self.claimed:
                continue
            self.emit(b, plan[b.var])

    def plan(self, b):
        value = b.value
        if isinstance(b, relax.MatchCast):
            return ("alias", value)
        if isinstance(value, relax.Var):
            return ("alias", value)
        if isinstance(value, relax.Function):  # read at each call (a closure each); one nothing calls is dead code
            if any(v.same_as(b.var) for v in _references(value.body, relax.Var)):
                self.fail(b, "a local function that calls itself")
            return ("skip", None)
        if isinstance(value, relax.If):
            return ("if", value)
        if isinstance(value, relax.Call) and isinstance(value.op, tvm.ir.GlobalVar):
            return ("call", value)
        if isinstance(value, relax.Call) and isinstance(value.op, relax.Var) and \
                isinstance(self.bound.get(value.op), relax.Function):
            return ("closure", value)
        if isinstance(value, relax.Call) and isinstance(value.op, tvm.ir.Op) and value.op.name == "relax.call_tir":
            return ("kernel", value)
        if isinstance(value, relax.Call) and isinstance(value.op, tvm.ir.Op) and \
                value.op.name == "relax.call_tir_inplace":
            if isinstance(self.values, _Offset):  # graph.check_inplace
                self.fail(b, "an in-place kernel inside a function body or branch")
            return ("kernel", value)
        if isinstance(value, relax.Call) and isinstance(value.op, tvm.ir.Op) and value.op.name == "relax.call_pure_packed":
            return ("packed", value)
        if isinstance(value, relax.Call) and isinstance(value.op, relax.ExternFunc) and \
                value.op.global_symbol in PURE_PACKED:
            return ("packed", value)
        if isinstance(value, relax.Call) and isinstance(value.op, tvm.ir.Op) and value.op.name == "relax.print":
            if isinstance(self.values, _Offset):  # build.py keeps effects in main (graph.check_effects)
                self.fail(b, "a print inside a function body or branch")
            text, *printed = value.args
            return ("op", ("print", printed, {"format": str(text.value)}))
        if isinstance(value, relax.Call) and isinstance(value.op, tvm.ir.Op) and \
                value.op.name == "relax.layout_transform":
            found = self.layout_transform(b)
            if found:
                return found
        if isinstance(value, relax.Call) and isinstance(value.op, tvm.ir.Op) and value.op.name == "relax.reshape":
            found = self.reshape_runtime(b)
            if found:
                return found
        if isinstance(value, relax.Call) and isinstance(value.op, tvm.ir.Op) and value.op.name == "relax.memory.view":
            found = self.view(b)
            if found:
                return found
        if isinstance(value, tvm.ir.expr.GenericConst):
            return ("constant", value)
        if isinstance(value, relax.TupleGetItem) and self.importer.tuple_leaf(value) is not None:
            return ("alias", value)
        if isinstance(value, relax.TupleGetItem) and self.importer.tuple_entry(value) is not None:
            return ("skip", None)  # a nested tuple parameter's item (see run)
        return self.op(b)

    def op(self, b):
        value = b.value
        key = _root_key(value)
        candidates = patterns().get(key, [])
        inner = value.tuple_value if isinstance(value, relax.TupleGetItem) else None
        items_first = []
        if isinstance(inner, relax.Var) and self.absorbable(inner):
            items = patterns().get("item:" + _root_key(self.bound[inner]), [])
            candidates = items + candidates
            # a call whose whole tuple is no drawn op (whole_tuple: batch_norm's) is read as the
            # drawn op of one field, which generation, mutation and contracts know, not as pieces
            if not any(p.op.drawable for p in patterns().get(_root_key(self.bound[inner]), [])):
                items_first = items
        if not candidates:
            what = f"op {key}" if isinstance(value, relax.Call) else f"a {type(value).__name__}"
            self.fail(b, f"{what} is not in passfuzz's catalogue")
        if self.importer.reading is None:  # the pieces first; a composite only where they fail to match,
            # or where a piece reads an R.Shape value, which may only sit in main: the drawn
            # shape_of is shape_to_tensor(shape_of(x)) in a function body too
            first = [p for p in candidates if _composite(p) and inner is None and any(
                isinstance(a, relax.Var) and isinstance(getattr(a, "ty", None), relax.ShapeType) and
                self.absorbable(a) for a in getattr(value, "args", ()))]
            first += [p for p in items_first if p not in first]
            candidates = first + [p for p in candidates if not _composite(p)] + \
                [p for p in candidates if _composite(p) and p not in first]
        else:
            candidates = [p for p in candidates if p is not self.importer.reading]
        for pattern in candidates:
            holes, absorbed = {}, []
            if not _match(pattern.expr, value, holes, absorbed, self):
                continue
            if "*" in holes:
                operands = holes.pop("*")
            else:
                if len(holes) != len(pattern.holes):
                    continue
                operands = [holes[h] for h in pattern.holes]
            if any(isinstance(o, relax.ShapeExpr) for o in operands):  # a literal shape is no operand: an attribute
                continue
            inline = {v: self.bound[v] for v in absorbed}
            literals = _literals(value, operands, inline)
            for attrs in _attr_candidates(pattern, literals):
                try:
                    emitted = pattern.op.emit(relax, operands, attrs)
                except Exception:  # noqa: BLE001 - attributes the op refuses are not these
                    continue
                if _same(emitted, value, inline):
                    why = pattern.op.unbuildable(attrs) if pattern.op.unbuildable is not None else ""
                    if why:
                        self.fail(b, f"op {key}: {why}")
                    self.claimed.update(absorbed)
                    return ("op", (pattern.op.name, operands, attrs))
        self.fail(b, f"op {key}: its attributes or operands match no OpDef of passfuzz's catalogue")

    def layout_transform(self, b):
        """layout_transform(x, index_map, pad_value): its index map read into the plain data the
        catalogue's op holds (``catalogue/layout.py``), and accepted, as every op is, only when
        that op emits the same call again."""
        call = b.value
        index_map, pad = call.attrs.index_map, call.attrs.pad_value
        axes = list(index_map.initial_indices)
        try:
            exprs = [_index_expr(e, axes) for e in index_map.final_indices]
        except ValueError:
            return None
        attrs = {"index_map": exprs, "pad_value": None if pad is None else _python(pad.value)}
        if axes and str(axes[0].ty) != "int64":
            attrs["index_dtype"] = str(axes[0].ty)
        try:
            emitted = BY_NAME["layout_transform"].emit(relax, [call.args[0]], attrs)
        except Exception:  # noqa: BLE001 - what the op cannot emit is not this op
            return None
        return ("op", ("layout_transform", [call.args[0]], attrs)) if _same(emitted, call, {}) else None

    def view(self, b):
        """memory.view(x, shape, dtype, relative_byte_offset), each of the last three an empty tuple
        or a null value (bound to a var of its own, as TVMScript writes it) where not given: read
        into the attributes of catalogue/shapes.py's ``view``, and accepted, as every op is, only
        when that op emits the same call again."""
        call = b.value
        x, shape, dtype, offset = call.args
        nulls = {}
        if isinstance(dtype, relax.Var) and self.absorbable(dtype) and \
                getattr(self.bound[dtype].op, "name", "") == "relax.null_value":
            nulls[dtype] = self.bound[dtype]
        attrs = {}
        if isinstance(shape, relax.ShapeExpr) and all(isinstance(d, tvm.tirx.IntImm) for d in shape.values):
            attrs["shape"] = [int(d.value) for d in shape.values]
        if isinstance(dtype, tvm.ir.expr.GenericConst) or type(dtype).__name__ == "DataTypeImm":
            attrs["dtype"] = str(dtype.value)
        if isinstance(offset, tvm.tirx.IntImm):
            attrs["offset"] = int(offset.value)
        try:
            emitted = BY_NAME["view"].emit(relax, [x], attrs)
        except Exception:  # noqa: BLE001 - what the op cannot emit is not this op
            return None
        if not _same(emitted, call, nulls):
            return None
        self.claimed.update(nulls)
        return ("op", ("view", [x], attrs))

    def reshape_runtime(self, b):
        """reshape(x, (v...)) with (v...) defined by a match_cast of tensor_to_shape(shape_to_tensor(
        shape_of(like))) in this body: catalogue/shapes.py's reshape_runtime."""
        x, shape = b.value.args
        if not isinstance(shape, relax.ShapeExpr) or not all(isinstance(v, relax.Var) for v in shape.values):
            return None
        for cast in self.bindings:
            if isinstance(cast, relax.MatchCast) and isinstance(cast.ty, relax.ShapeType) and \
                    len(cast.ty.values) == len(shape.values) and \
                    all(a.same_as(c) for a, c in zip(shape.values, cast.ty.values)):
                chain, expr = [cast.var], cast.value
                for name in ("relax.tensor_to_shape", "relax.shape_to_tensor", "relax.shape_of"):
                    if not isinstance(expr, relax.Var) or not isinstance(self.bound.get(expr), relax.Call) or \
                            self.bound[expr].op.name != name:
                        return None
                    chain.append(expr)
                    expr = self.bound[expr].args[0]
                self.claimed.update(chain)
                return ("op", ("reshape_runtime", [x, expr], {}))
        return None

    def emit(self, b, plan) -> None:
        kind, what = plan
        if kind == "skip":
            return
        if kind == "alias":
            source = what
            if isinstance(source, relax.TupleGetItem):
                self.scope[b.var] = self.operand(source, b)
            elif source in self.scope:
                self.scope[b.var] = self.scope[source]
            elif isinstance(source, tvm.ir.expr.GenericConst):
                self.scope[b.var] = self.operand(source, b)
            elif isinstance(b, relax.MatchCast) and isinstance(source, relax.Var) and \
                    isinstance(source.ty, relax.ShapeType):
                return  # a shape match_cast outside reshape_runtime defines no value
            else:
                self.fail(b, f"reads {_brief(source)}, which is not a value passfuzz can name")
            return
        if kind == "constant":
            self.scope[b.var] = self.operand(what, b)
            return
        if kind == "op":
            name, operands, attrs = what
            args = tuple(self.operand(e, b) for e in operands)
            self.values.append(Node(name, args, attrs))
        elif kind == "kernel":
            operands, attrs = self.importer.kernel(what, self, b)
            self.values.append(Node("call_tir", tuple(self.operand(e, b) for e in operands), attrs))
        elif kind == "packed":
            operands, attrs = self.importer.packed(what, self, b)
            self.values.append(Node("call_pure_packed", tuple(self.operand(e, b) for e in operands), attrs))
        elif kind == "call":
            function = self.importer.function(what.op, b)
            args = tuple(self.operand(e, b) for e in what.args)
            body = self.importer.region(function.params, function.body, f"{self.where} -> {what.op.name_hint}")
            self.values.append(Node("call", args, {"local": False, "body": body}))
        elif kind == "closure":
            function = self.bound[what.op]
            args = tuple(self.operand(e, b) for e in what.args)
            body = self.importer.region(function.params, function.body, f"{self.where} -> closure {what.op.name}")
            self.values.append(Node("call", args, {"local": True, "body": body}))
        elif kind == "if":
            cond = self.operand(what.cond, b)
            refs: list = []
            for branch in (what.true_branch, what.false_branch):
                _outer_refs(branch, self, refs, set())
            args = [self.operand(e, b) for e in refs]
            leaf_map = {self.importer.tuple_leaf(e): k for k, e in enumerate(refs)
                        if isinstance(e, relax.TupleGetItem)}
            regions = {key: self.importer.region(refs, branch, f"{self.where} -> {key} branch of {b.var.name}",
                                                 leaf_map)
                       for key, branch in (("then", what.true_branch), ("else", what.false_branch))}
            self.values.append(Node("if", (cond, *args), regions))
        self.scope[b.var] = self.importer.index(self.values)

    def finish(self) -> list[int]:
        result = self.result
        if isinstance(result, relax.Tuple) and result.fields and not self.outputs_tuple:
            # a function body returning ``(a, b)`` written inline returns one value, a tuple node
            self.values.append(Node("tuple", tuple(self.resolve(f) for f in result.fields), {}))
            return [self.importer.index(self.values)]
        if isinstance(result, relax.Tuple):
            return [self.resolve(f) for f in result.fields]
        if isinstance(result, relax.Var) and isinstance(self.bound.get(result), relax.Tuple) and \
                result in self.claimed:
            return [self.resolve(f) for f in self.bound[result].fields]
        return [self.resolve(result)]

    def resolve(self, expr) -> int:
        if isinstance(expr, relax.Var) and expr in self.scope:
            return self.scope[expr]
        if isinstance(expr, (tvm.ir.expr.GenericConst, relax.TupleGetItem)) or \
                (isinstance(expr, relax.Tuple) and expr.fields) or \
                (isinstance(expr, relax.Var) and expr in self.importer.leaves and self.leaf_map is None):
            return self.operand(expr, _Pseudo(expr))
        raise ImportRejected(f"cannot import {self.where}: its result {_brief(expr)} is not a value")


class _Pseudo:
    """A stand-in binding for messages about a function's result."""

    def __init__(self, expr):
        self.value, self.var = expr, relax.Var("result", None)


def _outer_refs(expr, body: _Body, refs: list, bound: set) -> None:
    """The outer values a branch reads (vars of ``body``'s scope, items of tuple parameters), in
    the order it first reads them."""
    def leaf(e):
        return body.importer.tuple_leaf(e) if isinstance(e, relax.TupleGetItem) else None

    def add(e):  # one tuple item read in both branches is two expressions, and one operand
        if not any(e.same_as(r) or (leaf(e) is not None and leaf(e) == leaf(r)) for r in refs):
            refs.append(e)

    if isinstance(expr, relax.Var):
        if expr not in bound and expr in body.scope:
            add(expr)
    elif isinstance(expr, relax.TupleGetItem):
        if body.importer.tuple_leaf(expr) is not None:
            add(body.importer.leaf_expr(expr))
        else:
            _outer_refs(expr.tuple_value, body, refs, bound)
    elif isinstance(expr, relax.Call):
        for a in expr.args:
            _outer_refs(a, body, refs, bound)
    elif isinstance(expr, relax.Tuple):
        for f in expr.fields:
            _outer_refs(f, body, refs, bound)
    elif isinstance(expr, relax.If):
        for e in (expr.cond, expr.true_branch, expr.false_branch):
            _outer_refs(e, body, refs, bound)
    elif isinstance(expr, relax.SeqExpr):
        for block in expr.blocks:
            for b in block.bindings:
                entry = body.importer.tuple_entry(b.value) if isinstance(b.value, relax.TupleGetItem) else None
                if isinstance(entry, tuple):  # an item of a nested tuple parameter, read further below
                    body.importer.leaves[b.var] = entry
                    continue
                _outer_refs(b.value, body, refs, bound)
                bound.add(b.var)
        _outer_refs(expr.body, body, refs, bound)
    elif isinstance(expr, relax.Function):
        _outer_refs(expr.body, body, refs, bound | set(expr.params))


def _brief(expr) -> str:
    if isinstance(expr, relax.Call):
        name = getattr(expr.op, "name", None) or getattr(expr.op, "name_hint", "?")
        return f"{name.replace('relax.', 'R.')}(...)"
    if isinstance(expr, relax.Var):
        return expr.name
    return type(expr).__name__


# -- the module ------------------------------------------------------------------------------------------

class _Importer:
    def __init__(self, mod, function: str, reading: Pattern | None = None):
        self.mod, self.entry = mod, function
        self.reading = reading  # a pattern read without itself, to tell whether it is composite
        self.leaves: dict = {}  # tuple parameter var -> nested tuple of value indices
        self.kernels: dict = {}  # a PrimFunc's GlobalVar -> its TVMScript (kernel_text)
        self.fixed: dict = {}  # symbolic variable -> the size a kernel's buffer gives the dim it types
        self.depth = 0

    @staticmethod
    def index(values) -> int:
        return len(values) - 1 + getattr(values, "offset", 0)

    def tuple_leaf(self, expr):
        """The value index an item chain of a tuple parameter names (None if it is no such chain)."""
        entry = self.tuple_entry(expr)
        return entry if isinstance(entry, int) else None

    def tuple_entry(self, expr):
        """The entry (a value index, or a tuple of them) an item chain of a tuple parameter names."""
        path = []
        while isinstance(expr, relax.TupleGetItem):
            path.append(int(expr.index))
            expr = expr.tuple_value
        if not path or not isinstance(expr, relax.Var) or expr not in self.leaves:
            return None
        entry = self.leaves[expr]
        for k in reversed(path):
            if not isinstance(entry, tuple) or k >= len(entry):
                return None
            entry = entry[k]
        return entry

    def leaf_expr(self, expr):
        return expr

    def function(self, gvar, binding):
        function = self.mod[gvar]
        if not isinstance(function, relax.Function):
            raise ImportRejected(f"cannot import {self.entry}: binding {binding.var.name} calls "
                                 f"{gvar.name_hint}, which is not a Relax function")
        return function

    def kernel(self, call, body, binding) -> tuple[list, dict]:
        """The operands and attributes of an opaque kernel node (passfuzz/ir/catalogue/kernels.py)
        for ``R.call_tir(kernel, (operands...), out_ty)`` or ``R.call_tir_inplace``."""
        if len(call.args) != 2 or not isinstance(call.args[1], relax.Tuple):
            body.fail(binding, "a call_tir with symbolic arguments, or operands not written as a tuple")
        function = self.mod[call.args[0]]
        if not isinstance(function, tvm.tirx.PrimFunc):
            body.fail(binding, "a call_tir of something other than a PrimFunc")
        operands = list(call.args[1].fields)
        inplace = call.op.name == "relax.call_tir_inplace"
        name, text = self.kernel_text(call.args[0], function)
        if text is None:
            body.fail(binding, f"kernel {name}'s TVMScript does not parse back to it")
        sizes = {} if inplace else _size_operands(function, text, operands, body.scope)
        inputs = [_static_type(getattr(e, "ty", None)) for e in operands]
        prims = [k for k, e in enumerate(operands) if isinstance(getattr(e, "ty", None), tvm.ir.PrimType)
                 and str(e.ty.dtype) in DTYPES and (str(e.ty.dtype) != "int64" or e in body.scope)]
        extents = {str(p.name): [int(d.value) if isinstance(d, tvm.tirx.IntImm) else None for d in p.shape]
                   for p in function.params if getattr(p, "shape", None) is not None}  # static dims, by buffer
        for k in prims:  # a scalar the kernel takes (an R.Prim parameter: graph.check_prims)
            inputs[k] = [[], str(operands[k].ty.dtype)]
            param = function.params[k] if k < len(function.params) else None
            if param is None or not isinstance(param.ty, tvm.ir.PrimType) or str(param.ty.dtype) != inputs[k][1]:
                body.fail(binding, f"a call_tir passing an R.Prim {inputs[k][1]} where the kernel takes "
                                   f"{getattr(param, 'ty', 'nothing')}")
            if any(v.same_as(param) for v in _buffer_size_vars(function)):
                body.fail(binding, "a call_tir passing a drawn R.Prim value where the kernel takes a size its "
                                   "buffers' shapes name (TVM's check of them would fail)")
            if is_int(inputs[k][1]) and \
                    not _stored_only(text, str(param.name), extents, INTEGER_OPERAND_RANGE[1]):
                body.fail(binding, f"a call_tir passing a drawn R.Prim {inputs[k][1]} the kernel indexes, loops or "
                                   "branches with (nothing keeps it inside the buffers it reaches)")
        for k in sizes:
            inputs[k] = [[], "int64"]
        outputs, is_tuple = _opaque_types("call_tir", inputs, call, body, binding)
        for (shape, _), param in zip(inputs + outputs, function.params):
            buffer = getattr(param, "shape", None)  # a buffer parameter's shape (a scalar has none)
            if buffer is None or len(buffer) != len(shape):
                continue
            for d, b in zip(shape, buffer):  # a size the kernel's buffer fixes
                if isinstance(b, tvm.tirx.IntImm) and isinstance(d, int) and d != int(b.value):
                    body.fail(binding, f"a call_tir operand or result of dim {d} where the kernel's buffer has {b.value}")
                if isinstance(b, tvm.tirx.IntImm) and isinstance(d, str) and d.isidentifier():
                    self.fixed.setdefault(d, int(b.value))
        unwritten = _unreferenced_outputs(function, len(inputs), len(outputs))
        if unwritten:
            body.fail(binding, f"a call_tir of a kernel that never writes its output {unwritten[0]} "
                               "(its value would be uninitialized memory)")
        partly = _partly_written_outputs(function, len(inputs), len(outputs))
        if partly:
            body.fail(binding, f"a call_tir of a kernel that writes part of its output {partly[0]} "
                               "(the rest would be uninitialized memory)")
        outside = _out_of_bounds_store(function, text)
        if outside:
            body.fail(binding, f"a call_tir of a kernel that stores outside a buffer (TVM's OOBChecker); kernel "
                               f"{name} stores {outside}, past the allocation once built")
        kept = [k for k in range(len(operands)) if k not in sizes]  # the operands that are values
        prims = [kept.index(k) for k in prims]
        extra = {"inplace": [int(j) for j in call.attrs.inplace_indices]} if inplace else \
            {"sizes": [[k, d] for k, d in sizes.items()]} if sizes else {}
        return [operands[k] for k in kept], {
            "name": name, "kernel": text, "inputs": [inputs[k] for k in kept], "outputs": outputs,
            "tuple": is_tuple, **({"prims": prims} if prims else {}), **extra}

    def packed(self, call, body, binding) -> tuple[list, dict]:
        """The operands and attributes of an opaque ``call_pure_packed`` node (catalogue/kernels.py)
        for ``R.call_pure_packed(name, operands..., ty_args=...)``, or ``R.call_packed`` of a
        function known pure (``PURE_PACKED``)."""
        callee, *operands = [call.op, *call.args] if isinstance(call.op, relax.ExternFunc) else call.args
        name = callee.global_symbol
        if name not in TVM_FUNCTIONS:
            body.fail(binding, f"a call_pure_packed of {name}, which TVM does not register")
        inputs = [_static_type(getattr(e, "ty", None)) for e in operands]
        outputs, is_tuple = _opaque_types("call_pure_packed", inputs, call, body, binding)
        return operands, {"name": name, "inputs": inputs, "outputs": outputs, "tuple": is_tuple}

    def kernel_text(self, gvar, function) -> tuple[str, str | None]:
        """A kernel's name and TVMScript (an IRModule holding only it), or None where the text does
        not parse back to the same PrimFunc. ``main`` is renamed, since the Program's module has
        its own."""
        name = gvar.name_hint if gvar.name_hint != "main" else "main_kernel"
        if gvar not in self.kernels:
            if function.attrs is not None and "global_symbol" in function.attrs:
                function = function.with_attr("global_symbol", name)
            self.kernels[gvar] = _kernel_script(name, function)
        return name, self.kernels[gvar]

    def region(self, params, seq, where: str, leaf_map=None) -> dict:
        """A function body or branch as a region over ``params`` (its parameters, or the outer
        values a branch reads)."""
        if isinstance(seq, relax.Function):
            seq = seq.body
        values = _Offset(len(params))
        scope = {p: k for k, p in enumerate(params) if isinstance(p, relax.Var)}
        body = _Body(self, where, values, scope, seq, leaf_map if leaf_map is not None else {}, outputs_tuple=False)
        body.run()
        outputs = body.finish()
        if len(outputs) != 1:
            raise ImportRejected(f"cannot import {where}: a function body returns one value here")
        return {"values": [{"op": n.op, "args": list(n.args), "attrs": n.attrs} for n in values],
                "outputs": outputs}


def _size_operands(function, text: str, operands: list, scope: dict) -> dict:
    """Position -> dim text (``_dim_text``) of each kernel operand that is a size: an int64 literal
    or expression of symbolic variables, where the kernel takes a scalar its buffers' shapes name
    (``T.int64`` ``n`` beside a buffer of ``(n * 2,)``: TVM checks those shapes against the tensors
    at the call) or that it only stores (``out[0] = m``, ``_stored_only``). Either way the operand
    is the size the Program's static shapes fix, no value, and reaches past no buffer."""
    shaped = _buffer_size_vars(function)
    sizes = {}
    for k, (e, param) in enumerate(zip(operands, function.params)):
        ty = getattr(e, "ty", None)
        if isinstance(ty, tvm.ir.PrimType) and str(ty.dtype) == "int64" and e not in scope and \
                isinstance(param.ty, tvm.ir.PrimType) and _dim_text(e) is not None and \
                (any(v.same_as(param) for v in shaped) or _stored_only(text, param.name)):
            sizes[k] = _dim_text(e)
    return sizes


# What a scalar only stored may pass through on its way into a store: arithmetic, casts, a choice
_STORED_THROUGH = (ast.BinOp, ast.UnaryOp, ast.Call, ast.Attribute, ast.Constant, ast.Load)


def _passes_value(call: ast.Call, arg) -> bool:
    """Is ``arg`` a value ``call`` passes on: cast (``T.Cast``), or chosen (``T.if_then_else``,
    ``T.Select``, not as their condition)?"""
    name = call.func.attr if isinstance(call.func, ast.Attribute) else None
    return arg in call.args and (name == "Cast" or (name in ("if_then_else", "Select") and arg is not call.args[0]))


def _stored_only(text: str, name: str, extents: dict | None = None, most: int = 0) -> bool:
    """Does the kernel (its TVMScript) read the scalar ``name`` only in values it stores
    (``out[vi] = m``, through arithmetic and ``T.Cast``), never in an index, a loop's or block's
    bounds, a condition or a binding, where a value nothing checks could reach past a buffer?
    With ``extents`` (buffer name -> its static dims), a bare index of a buffer's axis longer
    than ``most`` (``A[r, vj]``, r drawn in [0, most]) is a bounded read too."""
    function = next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef))
    parents = {child: node for node in ast.walk(function) for child in ast.iter_child_nodes(node)}
    uses = [n for stmt in function.body for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id == name]
    for use in uses:
        if extents is not None and _bare_index_within(use, parents, extents, most):
            continue
        node = use
        while not (isinstance(parents.get(node), ast.Assign) and parents[node].value is node):
            parent = parents.get(node)
            if not isinstance(parent, _STORED_THROUGH) or \
                    (isinstance(parent, ast.Call) and not _passes_value(parent, node)):
                return False
            node = parent
        if not all(isinstance(t, ast.Subscript) for t in parents[node].targets):
            return False
    return bool(uses)


def _bare_index_within(use: ast.Name, parents: dict, extents: dict, most: int) -> bool:
    """Is ``use`` a whole index of a buffer axis whose static extent exceeds ``most``?"""
    parent = parents.get(use)
    indices = parent.elts if isinstance(parent, ast.Tuple) else [use]
    subscript = parents.get(parent) if isinstance(parent, ast.Tuple) else parent
    if not isinstance(subscript, ast.Subscript) or not isinstance(subscript.value, ast.Name) or \
            subscript.slice is not (parent if isinstance(parent, ast.Tuple) else use):
        return False
    dims = extents.get(subscript.value.id)
    axis = next(k for k, index in enumerate(indices) if index is use)
    return dims is not None and axis < len(dims) and isinstance(dims[axis], int) and dims[axis] > most


def _buffer_size_vars(function) -> list:
    """The variables a kernel's buffer parameters' shapes name."""
    return [v for p in function.params for d in (getattr(p, "shape", None) or ())
            for v in tvm.tirx.analysis.undefined_vars(d, [])]


def _opaque_types(what: str, inputs: list, call, body, binding) -> tuple[list, bool]:
    """The result types of an opaque call (``call_tir``, ``call_pure_packed``), from its
    ``ty_args``, once its operands' (``inputs``) are known to be ones a Program holds; and whether
    it returns a tuple."""
    if any(t is None for t in inputs):
        body.fail(binding, f"a {what} operand not a tensor of one of passfuzz's dtypes, its dims sizes or variables")
    ty = call.ty_args[0] if len(call.ty_args) == 1 else None
    outputs = [_static_type(t) for t in (ty.fields if isinstance(ty, relax.TupleType) else [ty])]
    if not outputs or any(t is None for t in outputs):
        body.fail(binding, f"a {what} whose result is not a tensor of passfuzz's dtypes, its dims sizes or variables")
    return outputs, isinstance(ty, relax.TupleType)


class _Offset(list):
    """A region's value list: indices count its parameters first."""

    def __init__(self, offset: int):
        super().__init__()
        self.offset = offset


def import_module(mod: tvm.IRModule, *, function: str = "main", arguments: list | None = None,
                  seed: int = 0, argument_ranges: bool = False) -> Program:
    """The Program of ``mod[function]`` (and the functions it calls); see the module docstring.
    ``arguments`` are the function's arguments in parameter order; without them the importer
    chooses symbolic dims, ranges and values (deterministic in ``seed``). With
    ``argument_ranges`` each parameter's declared range is its argument's own (a real model's
    weights: the simplest wider ranges, tried first otherwise, let a deep network's value bounds
    grow past any float limit, and searching them costs minutes on a thousand nodes)."""
    program, _ = import_with_notes(mod, function=function, arguments=arguments, seed=seed,
                                   argument_ranges=argument_ranges)
    return program


def import_with_notes(mod: tvm.IRModule, *, function: str = "main", arguments: list | None = None,
                      seed: int = 0, argument_ranges: bool = False) -> tuple[Program, list[str]]:
    """``import_module`` and the notes on what the importer chose: ranges narrowed for a use,
    clips inserted after a parameter."""
    if argument_ranges and arguments is None:
        raise ValueError("argument_ranges needs the arguments")
    names = [g.name_hint for g in mod.get_global_vars()]
    if function not in names:
        raise ImportRejected(f"cannot import {function}: the module has no function {function}")
    func = mod[function]
    if not isinstance(func, relax.Function):
        raise ImportRejected(f"cannot import {function}: it is not a Relax function")
    _check_reachable(mod, function)
    given = list(arguments) if arguments is not None else None
    if given is not None and len(given) != len(func.params):
        raise ImportRejected(f"cannot import {function}: {len(given)} arguments for {len(func.params)} parameters")
    try:
        return _import_function(mod, function, func, given, seed, argument_ranges)
    except ImportRejected as first:
        for chosen in _specializations(func, given, seed):
            try:
                specialized = _specialized(func, chosen)
            except Exception:  # noqa: BLE001, S112 - TVM finds the body ill-typed at these sizes
                continue
            try:
                program, notes = _import_function(mod, function, specialized, given, seed, argument_ranges,
                                                   typed_by=func, chosen=chosen)
            except ImportRejected:
                continue
            return program, notes + [f"its body specialized at {', '.join(f'{n} = {v}' for n, v in chosen.items())}"]
        raise first from None


# Sizes tried, in order, for the symbolic variables of a body that imports only specialized (below)
SPECIALIZED_SIZES = [4, 2, 3, 8]


def _specializations(func, given, seed: int) -> list[dict]:
    """Where a body does not import as it is written (an op whose attributes hold symbolic
    variables, ``R.reshape(x, (n // 4, 4))``, ``R.zeros((n, n))``): the sizes to try binding the
    variables its parameters' types name to, all alike first, then drawn. The parameters keep
    their symbolic types and the body takes static shapes, which is how every Program is built
    (passfuzz.relax.build); the Program then runs for those sizes only, as a kernel's fixed buffer
    makes one do. Not with given arguments (they fix the sizes), nor for a variable an R.Prim
    parameter is (the value the body reads)."""
    if given is not None:
        return []
    prims = {p.name for p in func.params if isinstance(p.ty, tvm.ir.PrimType)}
    names = sorted(_typing_names(func.params) - prims)
    if not names:
        return []
    rng = random.Random(seed)
    return [dict.fromkeys(names, size) for size in SPECIALIZED_SIZES] + \
        [{n: rng.randint(2, 8) for n in names} for _ in range(2)]


def _specialized(func, sizes: dict):
    """``func`` with its symbolic variables bound to ``sizes`` and the arithmetic on them that this
    leaves in operands (``(n + 1,)`` of a strided_slice: TVM simplifies shapes only) folded."""
    from tvm.relax.expr_functor import PyExprMutator, mutator

    analyzer = tvm.sym.Analyzer()

    def folded(e):
        return analyzer.simplify(e) if isinstance(getattr(e, "ty", None), tvm.ir.PrimType) and \
            not isinstance(e, (relax.Var, tvm.tirx.IntImm, tvm.tirx.FloatImm)) else None

    @mutator
    class Folding(PyExprMutator):
        def visit_tuple_(self, op):
            return relax.Tuple([folded(f) if folded(f) is not None else self.visit_expr(f) for f in op.fields])

        def visit_call_(self, op):
            args = [folded(a) if folded(a) is not None else self.visit_expr(a) for a in op.args]
            return relax.Call(self.visit_expr(op.op), args, op.attrs, op.ty_args)

    return Folding().visit_expr(func.bind_symbolic_vars(sizes))


def _import_function(mod, function: str, func, given, seed: int, argument_ranges: bool, typed_by=None,
                     chosen: dict | None = None) -> tuple[Program, list[str]]:
    """``import_with_notes`` of ``func``; ``typed_by``: the function whose parameters' types the
    Program's parameters take (``func`` with its symbolic variables bound to ``chosen``)."""
    importer = _Importer(mod, function)
    typed_by = func if typed_by is None else typed_by
    num_input = func.attrs.get("num_input") if func.attrs is not None and "num_input" in func.attrs else None
    num_input = len(func.params) if num_input is None else int(num_input)
    sizes = {**_symbol_sizes(typed_by, given, function), **(chosen or {})}
    typing = _typing_names(typed_by.params)
    values: list = []
    scope: dict = {}
    shape_params, prim_params, groups = [], [], 0
    for k, (p, bound) in enumerate(zip(typed_by.params, func.params)):
        role = "input" if k < num_input else "weight"
        ty = p.ty
        where = f"cannot import {function}: parameter {p.name}"
        if type(ty).__name__ == "PrimType" and str(ty.dtype) != "int64":
            # a scalar value (an int64 one a type names is a symbolic variable): drawn and ranged as a tensor of
            # shape () would be, passed to the VM as a Python value
            if str(ty.dtype) not in DTYPES:
                raise ImportRejected(f"{where}: an R.Prim parameter of dtype {ty.dtype}, not among passfuzz's dtypes")
            value = np.asarray(given[k], numpy_dtype(str(ty.dtype))) if given is not None else None
            values.append(Param((), str(ty.dtype), 0, 0, value, role, prim=True))
            scope[bound] = len(values) - 1
        elif type(ty).__name__ == "PrimType" and p.name not in typing:
            # an int64 scalar no parameter's type names (``index: T.int64`` read by a take): a value
            values.append(Param((), "int64", 0, 0, None if given is None else np.asarray(given[k], "int64"),
                                role, prim=True))
            scope[bound] = len(values) - 1
        elif type(ty).__name__ == "PrimType":
            prim_params.append(PrimParam(p.name, role))
            sizes.setdefault(p.name, int(given[k]) if given is not None else None)
        elif isinstance(ty, relax.ShapeType) and role == "input" and \
                not _typing_names([q for q in typed_by.params if not q.same_as(p)]) & _typing_names([p]) and \
                all(isinstance(v, relax.Var) for v in (ty.values or [])):
            # sizes no other parameter's type names (``s: R.Shape(ndim=2)``): a value
            values.append(_shape_value_param(ty, given[k] if given is not None else None, where))
            scope[bound] = len(values) - 1
        elif isinstance(ty, relax.ShapeType):
            if role != "input" or not all(isinstance(v, relax.Var) for v in (ty.values or [])) or not ty.values:
                raise ImportRejected(f"{where}: an R.Shape parameter is an input naming variables, or sizes "
                                     "no other parameter names, only")
            shape_params.append(tuple(v.name for v in ty.values))
            if given is not None:
                for v, d in zip(ty.values, given[k]):
                    sizes.setdefault(v.name, int(d))
        elif isinstance(ty, relax.TupleType):
            entry = _tuple_params(ty, values, (groups,), given[k] if given is not None else None, where, role)
            importer.leaves[bound] = entry
            groups += 1
        elif isinstance(ty, relax.TensorType):
            values.append(_tensor_param(ty, role, (), given[k] if given is not None else None, where, typed_by, p))
            scope[bound] = len(values) - 1
            for name, size in zip(values[-1].dims, values[-1].shape or ()):
                if name.isidentifier() and size is not None:
                    sizes.setdefault(name, size)
        else:
            raise ImportRejected(f"{where}: of type {ty}, which passfuzz cannot express")
    body = _Body(importer, function, values, scope, func.body)
    body.run()
    outputs = body.finish()
    for name, size in importer.fixed.items():
        if sizes.setdefault(name, size) != size:
            raise ImportRejected(f"cannot import {function}: a kernel's buffer gives {name} = {size}, "
                                 f"the arguments {sizes[name]}")
    program = Program(tuple(values), tuple(outputs), tuple(shape_params), tuple(prim_params))
    shapeless = [i for i, v in enumerate(values) if isinstance(v, Param) and v.shape is None]
    typeless = [i for i, v in enumerate(values) if isinstance(v, Param) and v.dtype is None]
    if not shapeless and not typeless:
        return _settle_redrawn(program, sizes, given is not None, seed, function, argument_ranges)
    first = None
    # nothing fixes their shape or dtype: the first choice the body takes, one for all of them
    for dtype, shape in itertools.product(UNKNOWN_DTYPES if typeless else [None],
                                          UNKNOWN_RANK_SHAPES if shapeless else [None]):
        candidate = replace(program, values=tuple(
            replace(v, **({"shape": shape} if i in shapeless else {}), **({"dtype": dtype} if i in typeless else {}))
            for i, v in enumerate(values)))
        try:
            settled, notes = _settle_redrawn(candidate, sizes, given is not None, seed, function, argument_ranges)
        except ImportRejected as exc:
            first = first or exc
            continue
        return settled, notes + [f"parameter {settled.param_name(i)}: of unknown rank and shape, given {shape}"
                                 for i in shapeless] + \
            [f"parameter {settled.param_name(i)}: of unknown dtype, given {dtype}" for i in typeless]
    raise first


def _unreferenced_outputs(function, inputs: int, outputs: int) -> list[str]:
    """The output buffers of a destination-passing kernel its body never refers to. Such an output
    holds whatever the allocation held (TVM's tests write placeholder kernels as ``T.evaluate(0)``),
    so the original and the optimized module would read different garbage. A buffer referred to is
    taken as written: a kernel that only reads its output, or writes part of it, is not caught."""
    referenced = tvm.tirx.analysis.undefined_vars(function.body)
    return [str(param.name) for param in function.params[inputs:inputs + outputs]
            if not any(var.same_as(param) for var in referenced)]


def _partly_written_outputs(function, inputs: int, outputs: int) -> list[str]:
    """The output buffers of a destination-passing kernel that its stores cannot fill: fewer store
    executions (each store times the constant extents of the loops around it, an upper bound on the
    elements written) than the buffer has elements. TVM's tests write placeholder kernels that set
    one element (``out[0, 0] = T.float32(0)``); the rest would be different garbage in the original
    and the optimized module. Where no bound is known (a symbolic shape or extent, a while loop, a
    thread launch, the buffer passed to a call or matched by a block) the output is taken as written."""
    partly = []
    for buffer in function.params[inputs:inputs + outputs]:
        shape = getattr(buffer, "shape", None)
        if shape is None or not all(isinstance(d, tvm.tirx.IntImm) for d in shape):
            continue
        bound = _elements_stored(function.body, buffer)
        if bound is not None and bound < math.prod(int(d.value) for d in shape):
            partly.append(str(buffer.name))
    return partly


_OUT_OF_BOUNDS = re.compile(r"on buffer (\S+) dimension (\d+)\. index (.+?) with bounds (\[.+?\]) is outside "
                            r"the range (\[.+?\])\.")


def _out_of_bounds_store(function, text: str) -> str:
    """The first store of ``function`` that TVM's OOBChecker proves outside its buffer ('' for
    none). TVM's tests hold kernels written for a structural comparison only, e.g. a (64, 64)
    buffer indexed up to 511 (test_transform_fuse_ops.py test_layer_norm_silu): built, such a
    kernel writes past its allocation and the module dies of SIGSEGV. Stores only: a load the
    checker flags may sit in a ``T.if_then_else`` branch that its condition keeps in bounds (TVM's
    legalization of layout_transform with padding), which the checker does not see; a store is
    guarded by an ``if`` statement, which it does."""
    from tvm.s_tir.analysis import OOBChecker
    from tvm.s_tir.schedule import ScheduleError

    try:
        OOBChecker()(tvm.IRModule({"main": function}))
    except ScheduleError as exc:
        flagged = _OUT_OF_BOUNDS.findall(str(exc))
    else:
        return ""
    stores = {(node.targets[0].value.id, k, ast.unparse(index))
              for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Assign)
              and isinstance(node.targets[0], ast.Subscript) and isinstance(node.targets[0].value, ast.Name)
              for k, index in enumerate(node.targets[0].slice.elts if isinstance(node.targets[0].slice, ast.Tuple)
                                        else [node.targets[0].slice])}
    return next((f"{buffer} dimension {dim} of range {shape} at {index} in {bounds}"
                 for buffer, dim, index, bounds, shape in flagged if (buffer, int(dim), index) in stores), "")


_STMT_FIELDS = ("seq", "body", "block", "init", "then_case", "else_case")


def _elements_stored(stmt, buffer) -> int | None:
    """An upper bound on the elements of ``buffer`` that ``stmt`` stores to, or None for none known."""
    kind = type(stmt).__name__
    if kind == "BufferStore":
        if not stmt.buffer.same_as(buffer):
            return 0
        lanes = [i.lanes for i in stmt.indices if isinstance(i, tvm.tirx.Ramp)]
        if not lanes:
            return 1
        return int(lanes[0]) if isinstance(lanes[0], (int, tvm.tirx.IntImm)) else None
    if kind == "Evaluate":  # a call may write the buffer through a pointer
        used = tvm.tirx.analysis.undefined_vars(stmt)
        return None if any(var.same_as(buffer) for var in used) else 0
    if kind == "SBlock" and len(stmt.match_buffers):
        return None
    if kind == "AttrStmt" and stmt.attr_key in ("thread_extent", "virtual_thread"):  # a launch: its extent repeats
        return None
    if kind not in ("For", "While", "SeqStmt", "IfThenElse", "SBlockRealize", "SBlock", "LetStmt", "Bind",
                    "AttrStmt", "AllocBuffer", "DeclBuffer", "AssertStmt"):
        return None
    total = 0
    for name in _STMT_FIELDS:
        children = getattr(stmt, name, None)
        for child in (children if name == "seq" else [children]) if children is not None else []:
            if not isinstance(child, tvm.tirx.Stmt):
                continue
            inner = _elements_stored(child, buffer)
            if inner is None:
                return None
            total += inner
    if kind == "While" and total:
        return None
    if kind == "For" and total:
        if not isinstance(stmt.extent, tvm.tirx.IntImm):
            return None
        total *= int(stmt.extent.value)
    return total


_KERNEL_SCRIPTS: dict = {}  # (name, structural hash) -> [(PrimFunc, its TVMScript or None)]


def _kernel_script(name: str, function) -> str | None:
    """``function`` as TVMScript (an IRModule holding it as ``name``), or None where the text does
    not parse back to it. Once per kernel and process: a test file's Before and Expected, and
    its tests one after another, call the same kernels, and a parse takes a tenth of a second."""
    known = _KERNEL_SCRIPTS.setdefault((name, tvm_ffi.structural_hash(function)), [])
    for seen, text in known:
        if structural_equal(seen, function):
            return text
    text = tvm.IRModule({name: function}).script()
    try:
        same = structural_equal(tvm.script.from_source(text)[name], function)
    except Exception:  # noqa: BLE001 - a printer or parser failure: the kernel cannot be kept
        same = False
    known.append((function, text if same else None))
    return known[-1][1]


_INDEX_EXPRS = {"Add": "+", "Sub": "-", "Mul": "*", "FloorDiv": "//", "FloorMod": "%"}


def _index_expr(expr, axes: list):
    """A TIR index expression as the plain data of catalogue/layout.py's index maps (ValueError
    for anything else)."""
    if isinstance(expr, tvm.tirx.IntImm):
        return int(expr.value)
    for k, axis in enumerate(axes):
        if expr.same_as(axis):
            return ["var", k]
    name = type(expr).__name__
    if name not in _INDEX_EXPRS:
        raise ValueError(f"index expression {expr}")
    return [_INDEX_EXPRS[name], _index_expr(expr.a, axes), _index_expr(expr.b, axes)]


def _static_type(ty) -> list | None:
    """``[shape, dtype]`` of a tensor type with a shape of sizes and symbolic variables (by name,
    sized once the importer has chosen them: ``_kernels_sized``) and one of passfuzz's dtypes."""
    if not isinstance(ty, relax.TensorType) or not isinstance(ty.shape, relax.ShapeExpr) or \
            str(ty.dtype) not in DTYPES or any(_dim_text(d) is None for d in ty.shape.values):
        return None
    return [[int(d.value) if isinstance(d, tvm.tirx.IntImm) else _dim_text(d) for d in ty.shape.values],
            str(ty.dtype)]


def _kernels_sized(node: Node, sizes: dict, where: str) -> Node:
    """``node`` with the types of every kernel in it (itself, or in its regions) made static: a
    dim a kernel's operand or result names (``_static_type``) takes the size of that variable."""
    def size(d):
        if not isinstance(d, str):
            return d
        missing = [n for n in dim_names(d) if n not in sizes]
        if missing:
            raise ImportRejected(f"cannot import {where}: a kernel typed with {missing[0]}, which no parameter defines")
        try:
            value = dim_value(d, sizes)
        except ProgramError as exc:  # an expression dividing by a variable of size 0
            raise ImportRejected(f"cannot import {where}: {exc}") from None
        if value < 0:
            raise ImportRejected(f"cannot import {where}: a kernel typed with {d} = {value}, a negative size")
        return value

    def sized(types):
        return [[[size(d) for d in shape], dtype] for shape, dtype in types]

    def walk(op: str, attrs: dict) -> dict:
        if op in ("call_tir", "call_pure_packed"):
            return {**attrs, "inputs": sized(attrs["inputs"]), "outputs": sized(attrs["outputs"]),
                    **({"sizes": [[k, size(d)] for k, d in attrs["sizes"]]} if "sizes" in attrs else {})}
        regions = {key: {**attrs[key], "values": [{**v, "attrs": walk(v["op"], v["attrs"])} for v in attrs[key]["values"]]}
                   for key in ("body", "then", "else") if isinstance(attrs.get(key), dict) and "values" in attrs[key]}
        return {**attrs, **regions} if regions else attrs

    attrs = walk(node.op, node.attrs)
    return node if attrs is node.attrs else Node(node.op, node.args, attrs)


def _check_reachable(mod, entry: str) -> None:
    """Every other function of the module must be one the entry calls (else it is not imported)."""
    reached, todo = {entry}, [mod[entry]]
    while todo:
        refs = []
        _global_refs(todo.pop(), refs)
        for g in refs:
            if g.name_hint not in reached:
                reached.add(g.name_hint)
                todo.append(mod[g])
    for g in mod.get_global_vars():
        if g.name_hint not in reached:
            raise ImportRejected(f"cannot import module: function {g.name_hint} is not reachable from {entry}")


def _global_refs(expr, out: list) -> None:
    out.extend(_references(expr, tvm.ir.GlobalVar))


def _typing_names(params) -> set[str]:
    """The symbolic variables the types of ``params`` name (their tensors' dims, their shapes)."""
    names: set[str] = set()

    def walk(ty):
        if isinstance(ty, relax.TupleType):
            for item in ty.fields:
                walk(item)
        elif isinstance(ty, relax.TensorType) and isinstance(ty.shape, relax.ShapeExpr):
            for d in ty.shape.values:
                names.update(v.name for v in tvm.tirx.analysis.undefined_vars(d))
        elif isinstance(ty, relax.ShapeType) and ty.values is not None:
            for d in ty.values:
                names.update(v.name for v in tvm.tirx.analysis.undefined_vars(d))

    for p in params:
        walk(p.ty)
    return names


SHAPE_VALUE_NDIM = 2  # sizes of an R.Shape(ndim=-1) parameter that no argument gives


def _shape_value_param(ty, given, where: str) -> Param:
    """An R.Shape parameter read as a value (``Param.shape_value``): typed R.Shape(ndim=k), its
    variables (named by nothing else) left out."""
    value = None if given is None else np.asarray([int(v) for v in given], "int64")
    ndim = len(ty.values) if ty.values is not None else int(ty.ndim)
    if given is not None:
        if ndim >= 0 and len(value) != ndim:
            raise ImportRejected(f"{where}: an R.Shape(ndim={ndim}) parameter given {len(value)} sizes")
        ndim = len(value)
    return Param((ndim if ndim >= 0 else SHAPE_VALUE_NDIM,), "int64", 0, 0, value, "input",
                 unknown_rank=ty.values is None and int(ty.ndim) < 0, shape_value=True)


def _tuple_params(ty, values, path, given, where, role):
    entries = []
    for k, item in enumerate(ty.fields):
        arg = given[k] if given is not None else None
        if isinstance(item, relax.TupleType):
            entries.append(_tuple_params(item, values, path + (k,), arg, where, role))
        elif isinstance(item, relax.TensorType):
            param = _tensor_param(item, role, path + (k,), arg, where, None, None)
            if param.unknown_rank:
                raise ImportRejected(f"{where}: a tuple parameter holding a tensor of unknown rank")
            values.append(param)
            entries.append(len(values) - 1)
        else:
            raise ImportRejected(f"{where}: a tuple parameter holding {item}")
    return tuple(entries)


def _tensor_param(ty, role, pack, given, where, func, var) -> Param:
    dtype = str(ty.dtype) if ty.dtype is not None else _unknown_dtype(func, var, given)
    if dtype is not None and dtype not in DTYPES:  # None: one of UNKNOWN_DTYPES (import_with_notes)
        raise ImportRejected(f"{where}: dtype {dtype or 'unknown'} is not among passfuzz's dtypes")
    if ty.shape is None and ty.ndim >= 0:
        if var is None:
            raise ImportRejected(f"{where}: a tensor of known rank but no shape")
        # R.Tensor(ndim=2): a variable per dim, each the size of its argument, of a match_cast, or drawn
        shape = tuple(np.shape(given)) if given is not None else _cast_shape(func, var) or (None,) * ty.ndim
        dims = tuple(f"{var.name}_{k}" for k in range(ty.ndim))
        return Param(shape, dtype, 0, 0, given, role, pack, dims, False)
    if ty.shape is None or not isinstance(ty.shape, relax.ShapeExpr):
        if role != "input":
            raise ImportRejected(f"{where}: a weight of unknown rank")
        if given is not None:
            shape = tuple(np.shape(given))
        else:  # an item of a tuple parameter (no var) is never match_cast on its own
            shape = _cast_shape(func, var) if var is not None else None
        if shape is None and var is None:
            raise ImportRejected(f"{where}: a tensor of unknown rank the body never match_casts to a static shape")
        # None: a shape of UNKNOWN_RANK_SHAPES, the first the body takes (import_with_notes)
        return Param(None if shape is None else tuple(int(d) for d in shape), dtype, 0, 0, given, role, pack, (), True)
    dims = []
    shape = []
    for d in ty.shape.values:
        if isinstance(d, tvm.tirx.IntImm):
            dims.append("")
            shape.append(int(d.value))
        elif isinstance(d, relax.Var):
            dims.append(d.name)
            shape.append(None)
        elif _dim_text(d) is not None:  # n * 3: sized once its variables are
            dims.append(_dim_text(d)[1:-1])  # without the outer parentheses
            shape.append(None)
        else:
            raise ImportRejected(f"{where}: dimension {d} is an expression other than variables and ints joined "
                                 "by + - * //, which passfuzz's parameters cannot be")
    if given is not None:
        actual = tuple(int(s) for s in np.shape(given.numpy() if hasattr(given, "numpy") else given))
        if len(actual) != len(shape) or any(d is not None and d != a for d, a in zip(shape, actual)):
            declared = "(" + ", ".join(n or str(d) for n, d in zip(dims, shape)) + ("," if len(shape) == 1 else "") + ")"
            raise ImportRejected(f"{where}: its argument has shape {actual}, not {declared}")
        shape = list(actual)
    return Param(tuple(shape), dtype, 0, 0, given, role, pack, tuple(dims) if any(dims) else (), False)


_DIM_TEXT = {"Add": "+", "Sub": "-", "Mul": "*", "FloorDiv": "//"}


def _dim_text(expr) -> str | None:
    """A TIR dim expression as a ``Param.dims`` entry ("n * 3"), or None for any other form."""
    if isinstance(expr, tvm.tirx.IntImm):
        return str(int(expr.value))
    if isinstance(expr, relax.Var):
        return expr.name
    op = _DIM_TEXT.get(type(expr).__name__)
    a, b = (_dim_text(expr.a), _dim_text(expr.b)) if op else (None, None)
    return None if a is None or b is None else f"({a} {op} {b})"


def _unknown_dtype(func, var, given) -> str | None:
    """The dtype of a tensor parameter typed without one (``R.Tensor((2, 3))``): its argument's,
    else the one the body match_casts it to, else None (the first of UNKNOWN_DTYPES the body
    takes)."""
    if given is not None:
        return str(given.dtype) if hasattr(given, "dtype") else str(np.asarray(given).dtype)
    found = [t.dtype for t in _casts(func, var) if t.dtype is not None] if func is not None else []
    return str(found[0]) if found else None


def _casts(func, var) -> list:
    """The tensor types the body of ``func`` match_casts ``var`` to, in order."""
    found = []

    def walk(expr):
        if isinstance(expr, relax.SeqExpr):
            for block in expr.blocks:
                for b in block.bindings:
                    if isinstance(b, relax.MatchCast) and b.value.same_as(var) and isinstance(b.ty, relax.TensorType):
                        found.append(b.ty)
                    walk(b.value)
        elif isinstance(expr, relax.If):
            walk(expr.true_branch)
            walk(expr.false_branch)

    walk(func.body)
    return found


def _cast_shape(func, var):
    """The static shape the body match_casts ``var`` to (relax_build does so before any use)."""
    found = [tuple(int(d.value) for d in t.shape.values) for t in _casts(func, var)
             if isinstance(t.shape, relax.ShapeExpr) and all(isinstance(d, tvm.tirx.IntImm) for d in t.shape.values)]
    return found[0] if found else None


def _symbol_sizes(func, given, func_name: str = "main") -> dict:
    """Sizes of symbolic variables known from the arguments or from static match_casts."""
    sizes: dict = {}
    if given is not None:
        for p, arg in zip(func.params, given):
            if isinstance(p.ty, relax.TensorType) and isinstance(p.ty.shape, relax.ShapeExpr):
                for d, n in zip(p.ty.shape.values, np.shape(arg.numpy() if hasattr(arg, "numpy") else arg)):
                    if isinstance(d, relax.Var):
                        if sizes.setdefault(d.name, int(n)) != int(n):
                            raise ImportRejected(f"cannot import {func_name}: parameter {p.name}: its argument "
                                                 f"gives {d.name} = {int(n)}, an earlier one {sizes[d.name]}")
        return sizes
    for p in func.params:
        if isinstance(p.ty, relax.TensorType) and isinstance(p.ty.shape, relax.ShapeExpr):
            cast = _cast_shape(func, p)
            if cast is not None:
                for d, n in zip(p.ty.shape.values, cast):
                    if isinstance(d, relax.Var):
                        sizes.setdefault(d.name, n)
    return sizes


# -- sizes, ranges, values ----------------------------------------------------------------------------

SIZE_REDRAWS = 6  # further draws of the symbolic dims nothing fixes, after they all took SAME_SIZE
SAME_SIZE = 4


def _settle_redrawn(program: Program, sizes: dict, have_values: bool, seed: int, where: str,
                    argument_ranges: bool = False) -> tuple[Program, list[str]]:
    """``_settle``, and where it rejects the Program while some symbolic dims were drawn (nothing
    fixed them: ``R.Tensor("float32", ndim=4)``), again with those dims all ``SAME_SIZE`` (a
    kernel then fits its input, channels agree with the weight's), then with other draws: dims
    drawn one by one give a kernel larger than its input about half of the time."""
    try:
        return _settle(program, dict(sizes), have_values, seed, where, argument_ranges)
    except ImportRejected as first:
        names = [n for _, p in program.params for d in p.dims for n in dim_names(d)] + \
            [p.name for p in program.prim_params] + [n for names in program.shape_params for n in names]
        free = [n for n in names if sizes.get(n) is None]
        if not free:
            raise
        retries = [({**sizes, **dict.fromkeys(free, SAME_SIZE)}, seed)] + \
            [(dict(sizes), seed + k) for k in range(1, SIZE_REDRAWS + 1)]
        for retry_sizes, retry_seed in retries:
            try:
                return _settle(program, retry_sizes, have_values, retry_seed, where, argument_ranges)
            except ImportRejected:
                continue
        raise first from None


def _settle(program: Program, sizes: dict, have_values: bool, seed: int, where: str,
            argument_ranges: bool = False) -> tuple[Program, list[str]]:
    """Concrete dims, declared ranges and argument values that ``graph.analyse`` accepts."""
    rng = _Draws(seed)
    for name in [n for _, p in program.params for d in p.dims for n in dim_names(d)] + \
            [p.name for p in program.prim_params] + [n for names in program.shape_params for n in names]:
        if sizes.get(name) is None:
            sizes[name] = rng.randint(2, 4)
    values = list(program.values)
    for i, v in enumerate(values):
        if isinstance(v, Param) and v.dims:
            try:
                values[i] = replace(v, shape=tuple(sizes[n] if n.isidentifier() else dim_value(n, sizes) if n else d
                                                   for n, d in zip(v.dims, v.shape)))
            except ProgramError as exc:  # an expression dim dividing by a variable of size 0
                raise ImportRejected(f"cannot import {where}: {exc}") from None
        elif isinstance(v, Node):
            values[i] = _kernels_sized(v, sizes, where)
    for i, v in enumerate(values):
        if isinstance(v, Param):
            if v.value is not None:
                array = np.asarray(v.value.numpy() if hasattr(v.value, "numpy") else v.value)
                values[i] = replace(v, value=array.astype(numpy_dtype(v.dtype)).tolist(), shape=tuple(array.shape))
    program = replace(program, values=tuple(values))
    notes: list[str] = []
    params = [i for i, v in enumerate(program.values) if isinstance(v, Param)]
    choice = {i: 0 for i in params}
    options = {i: _ranges(program.values[i], have_values)[-1 if argument_ranges else 0:] for i in params}
    for _ in range(len(params) * 12 + 1):
        candidate = _with_ranges(program, {i: options[i][choice[i]] for i in params}, have_values, rng)
        try:
            analyse(candidate, check_values=have_values)  # values drawn in their ranges hold them
            for i in params:
                if choice[i]:
                    notes.append(f"parameter {candidate.param_name(i)}: range narrowed to "
                                 f"[{candidate.values[i].lo:g}, {candidate.values[i].hi:g}]")
            return candidate, notes
        except ProgramError as exc:  # narrow the first parameter the failure traces back to that can be
            blamed = next((i for i in _blamed_params(candidate, exc) if choice[i] + 1 < len(options[i])), None)
            if blamed is None:
                break
            choice[blamed] += 1
    if have_values:  # every parameter declared exactly as wide as its argument
        candidate = _with_ranges(program, {i: options[i][-1] for i in params}, have_values, rng)
        try:
            analyse(candidate)
            return candidate, [f"parameter {candidate.param_name(i)}: range [{candidate.values[i].lo:g}, "
                               f"{candidate.values[i].hi:g}], its argument's" for i in params]
        except ProgramError:
            pass
    clipped = _clip_fallback(program, params, options, choice, have_values, rng)
    if clipped is not None:
        return clipped
    floats = [i for i in params if not have_values and not is_int(program.values[i].dtype)
              and program.values[i].dtype != "bool" and not program.values[i].shape_value]
    if floats:
        candidate = _with_ranges(program, {i: NEAR_ONE if i in floats else options[i][choice[i]] for i in params},
                                 have_values, rng)
        try:
            analyse(candidate)
            return candidate, [f"parameter {candidate.param_name(i)}: range narrowed to [{NEAR_ONE[0]:g}, "
                               f"{NEAR_ONE[1]:g}]" for i in floats]
        except ProgramError:
            pass
    try:
        analyse(_with_ranges(program, {i: options[i][0] for i in params}, have_values, rng))
    except ProgramError as exc:
        raise ImportRejected(f"cannot import {where}: no parameter ranges make it valid: {exc}") from None
    raise ImportRejected(f"cannot import {where}: no parameter ranges make it valid")


def _clip_fallback(program, params, options, choice, have_values, rng):
    """Where no range of a parameter is valid for its uses (its arguments lie outside what they
    accept), a ``clip`` after it, read instead of it, to a range the failing use accepts."""
    candidate = _with_ranges(program, {i: options[i][choice[i]] for i in params}, have_values, rng)
    notes = []
    for _ in range(len(params)):
        try:
            analyse(candidate)
            return candidate, notes
        except ProgramError as exc:
            use = _failing_index(exc)
            suspects = _blamed_params(candidate, exc) if use is not None else []
        # the most likely parameter first; the next where no clip of it satisfies the use (an
        # exponent's clip cannot make power's base valid)
        clipped = next(((blamed, lo, hi, attempt) for blamed in suspects
                        for lo, hi in _ranges(replace(candidate.values[blamed], value=None), False)[1:]
                        for attempt in [_clipped(candidate, blamed, lo, hi)] if _use_holds(attempt, use + 1)), None)
        if clipped is None:
            return None
        blamed, lo, hi, candidate = clipped
        notes.append(f"parameter {candidate.param_name(blamed)}: clip({lo:g}, {hi:g}) inserted after it")
    try:
        analyse(candidate)
        return candidate, notes
    except ProgramError:
        return None


def _use_holds(program: Program, use: int) -> bool:
    """Does ``graph.analyse`` get past value ``use`` of ``program``?"""
    try:
        analyse(program)
    except ProgramError as exc:
        return _failing_index(exc) != use
    return True


def _clipped(program: Program, index: int, lo: float, hi: float) -> Program:
    """``program`` with ``clip(values[index], lo, hi)`` right after that parameter, read by every
    node instead of it."""
    def moved(a):
        return a + 1 if a > index else a

    values = []
    for k, v in enumerate(program.values):
        if isinstance(v, Node):
            v = Node(v.op, tuple(index + 1 if a == index else moved(a) for a in v.args), v.attrs)
        values.append(v)
        if k == index:
            values.append(Node("clip", (index,), {"min": lo, "max": hi}))
    return replace(program, values=tuple(values), outputs=tuple(moved(o) for o in program.outputs))


def _ranges(param: Param, have_values: bool) -> list[tuple[float, float]]:
    if param.shape_value:  # sizes
        return [r for r in _ranges(replace(param, shape_value=False), have_values) if r[0] >= 0]
    if param.dtype == "bool":
        return [(0, 1)]
    if have_values:
        array = np.asarray(param.value, dtype="float64")
        lo, hi = (float(array.min()), float(array.max())) if array.size else (0.0, 0.0)
        wide = [r for r in (INT_RANGES if is_int(param.dtype) else FLOAT_RANGES)
                if r[0] <= lo and hi <= r[1] and representable(param.dtype, *r) and r != (lo, hi)]
        return list(dict.fromkeys(wide)) + [(lo, hi)]  # the argument's own last: argument_ranges takes it
    base = INT_RANGES if is_int(param.dtype) else FLOAT_RANGES
    base = [fit(param.dtype, lo, hi) for lo, hi in base]
    extra = [(0, n - 1) for n in range(1, 9)] if is_int(param.dtype) else []
    return list(dict.fromkeys(base + extra))


class _Draws(random.Random):
    """The importer's random source, and what it drew: (parameter, lo, hi) -> its values."""

    def __init__(self, seed):
        super().__init__(seed)
        self.drawn: dict = {}


def _with_ranges(program, ranges, have_values, rng: _Draws) -> Program:
    """``program`` with these ranges, and without given values, arguments drawn in them: once per
    parameter and range (``rng`` holds what was drawn), since the search tries many ranges of
    one parameter while the others stay, and drawing a large tensor costs seconds."""
    values = list(program.values)
    for i, (lo, hi) in ranges.items():
        v = values[i]
        if not have_values and (i, lo, hi) not in rng.drawn:
            rng.drawn[(i, lo, hi)] = _draw(v.shape, v.dtype, lo, hi, rng)
        values[i] = replace(v, lo=lo, hi=hi, value=v.value if have_values else rng.drawn[(i, lo, hi)])
    return replace(program, values=tuple(values))


LARGE = 4096  # elements beyond which a parameter's values are drawn by numpy, not one by one


def _draw(shape, dtype, lo, hi, rng) -> list:
    if int(np.prod(shape, dtype=np.int64)) > LARGE:  # a kernel's half-million-element buffer: seconds one by one
        numbers = np.random.default_rng(rng.getrandbits(64))
        array = numbers.random(shape) < 0.5 if dtype == "bool" else \
            numbers.integers(int(np.ceil(lo)), int(np.floor(hi)), shape, endpoint=True) if is_int(dtype) else \
            numbers.uniform(lo, hi, shape)
        return array.astype(numpy_dtype(dtype)).tolist()
    return RandomChooser(rng).array(tuple(shape), dtype, lo, hi).astype(numpy_dtype(dtype)).tolist() \
        if shape else RandomChooser(rng).array((), dtype, lo, hi).astype(numpy_dtype(dtype)).reshape(()).tolist()


def _failing_index(exc: Exception):
    text = str(exc)
    return int(text[len("values["):text.index("]")]) if text.startswith("values[") else None


def _blamed_params(program: Program, exc: Exception) -> list[int]:
    """The parameters an analysis failure traces back to, most likely first: the failing value
    itself, its direct operands after the first (an index, a divisor), its other direct operands,
    then every parameter it reads, in order."""
    failing = _failing_index(exc)
    if failing is None:
        return []
    if isinstance(program.values[failing], Param):
        return [failing]
    reads = set()
    todo = [failing]
    while todo:
        k = todo.pop()
        v = program.values[k]
        if isinstance(v, Param):
            reads.add(k)
        elif k not in reads:
            todo.extend(v.args)
    node = program.values[failing]
    direct = [a for a in node.args[1:] if a in reads] + [a for a in node.args[:1] if a in reads]
    named = re.search(r"\boperand (\d+)\b", str(exc))  # a rule that says which operand it refuses (a kernel's)
    if named and int(named.group(1)) < len(node.args) and node.args[int(named.group(1))] in reads:
        direct.insert(0, node.args[int(named.group(1))])
    return list(dict.fromkeys(direct + sorted(reads)))


# -- the normal form ----------------------------------------------------------------------------------

def canonical(program: Program) -> Program:
    """``program`` as the importer gives it back (see the module docstring): parameters first in
    ``main``'s order, each constant just before its first consumer, an If's constant operands
    inside the branches that read them, an If's operands in the order its branches first read
    them, and each op's attributes as the importer reads them back
    from what they emit (a reshape's -1 resolved, an attribute left at TVM's default dropped:
    the module cannot tell these apart)."""
    program = _ordered(_normal_attributes(program))
    prims = [what for _, kind, what in program.main_parameters() if kind == "prim"]
    return replace(program, prim_params=tuple(prims))  # in the order main takes them


def _ordered(program: Program) -> Program:
    program = replace(program, values=tuple(_constant_operands_inlined(v, program.values)
                                            if isinstance(v, Node) and v.op == "if" else v
                                            for v in program.values))
    order = [i for i, _ in program.params]
    consts = {i for i, v in enumerate(program.values) if isinstance(v, Node) and v.op == "const"}
    # a tuple parameter read whole is written inline too, and read back where first used
    inline = consts | {i for i, v in enumerate(program.values) if isinstance(v, Node) and v.op == "tuple"
                       and v.attrs.get("parameter")}
    placed = set(order)

    def place(i):
        for a in program.values[i].args if i in inline else ():
            if a in inline and a not in placed:
                place(a)
        order.append(i)
        placed.add(i)

    for i, v in enumerate(program.values):
        if isinstance(v, Node) and i not in inline:
            for a in v.args:
                if a in inline and a not in placed:
                    place(a)
            order.append(i)
            placed.add(i)
    for o in program.outputs:
        if o not in placed:
            place(o)
    # what is left is a constant nothing reads (an If operand inlined above): the module has none
    assert all(i in consts for i in range(len(program.values)) if i not in placed)
    renumber = {old: new for new, old in enumerate(order)}
    values = []
    for old in order:
        v = program.values[old]
        if isinstance(v, Node):
            v = _canonical_node(Node(v.op, tuple(renumber[a] for a in v.args), v.attrs))
        values.append(v)
    return replace(program, values=tuple(values), outputs=tuple(renumber[o] for o in program.outputs))


def _canonical_node(node: Node) -> Node:
    if node.op == "call":
        return Node("call", node.args, {**node.attrs, "body": _canonical_region(node.attrs["body"], len(node.args))})
    if node.op == "if":
        n = len(node.args) - 1
        first: list[int] = []
        for key in ("then", "else"):
            _first_reads(node.attrs[key], n, first)
        renumber = {old: new for new, old in enumerate(first)}
        regions = {key: _canonical_region(_reparam(node.attrs[key], n, renumber), len(first)) for key in ("then", "else")}
        return Node("if", (node.args[0], *(node.args[1 + k] for k in first)), regions)
    return node


def _constant_operands_inlined(node: Node, values) -> Node:
    """An If whose operands include constants, with each constant moved into the branches that
    read it. relax_build keeps constants inline, so a branch holds the constant itself, which the
    import reads as the branch's own constant: the module cannot tell the two apart."""
    n = len(node.args) - 1
    inlined = [k for k, a in enumerate(node.args[1:]) if isinstance(values[a], Node) and values[a].op == "const"]
    if not inlined:
        return node
    kept = [k for k in range(n) if k not in inlined]
    regions = {}
    for key in ("then", "else"):
        region = node.attrs[key]
        read = {int(a) for v in region["values"] for a in v["args"]} | {int(o) for o in region["outputs"]}
        moved = [k for k in inlined if k in read]
        where = {k: kept.index(k) if k in kept else len(kept) + moved.index(k) for k in range(n) if k in kept or k in moved}
        shift = len(kept) + len(moved) - n

        def renumber(a, where=where, shift=shift):
            return where[a] if a < n else a + shift

        constants = [{"op": "const", "args": [], "attrs": values[node.args[1 + k]].attrs} for k in moved]
        regions[key] = {"values": constants + [{**v, "args": [renumber(int(a)) for a in v["args"]]}
                                               for v in region["values"]],
                        "outputs": [renumber(int(o)) for o in region["outputs"]]}
    return Node("if", (node.args[0], *(node.args[1 + k] for k in kept)), regions)


def _first_reads(region: dict, n: int, first: list) -> None:
    for v in region["values"]:  # a nested region (if, call) reads only its operands, listed in args
        for a in v["args"]:
            if a < n and a not in first:
                first.append(a)
    for o in region["outputs"]:
        if o < n and o not in first:
            first.append(o)


def _reparam(region: dict, n: int, renumber: dict) -> dict:
    """``region`` with parameter k renamed renumber[k] (values shift by the new count)."""
    m = len(renumber)
    def f(a):
        return renumber[a] if a < n else a - n + m
    return {"values": [{**v, "args": [f(a) for a in v["args"]]} for v in region["values"]],
            "outputs": [f(o) for o in region["outputs"]]}


def _canonical_region(region: dict, n: int) -> dict:
    """A region's values in canonical order (constants before their first consumer)."""
    nodes = [Node(v["op"], tuple(v["args"]), v["attrs"]) for v in region["values"]]
    stand_in = Program(tuple([Param((1,), "float32", 0, 0, [0.0])] * n + nodes), tuple(region["outputs"]))
    result = _ordered(stand_in)
    return {"values": [{"op": v.op, "args": list(v.args), "attrs": v.attrs} for v in result.values[n:]],
            "outputs": list(result.outputs)}


def _normal_attributes(program: Program) -> Program:
    infos = analyse(program, check_values=False)
    values, outputs = _read_back_all(list(program.values), program.outputs, 0, infos)
    return replace(program, values=tuple(values), outputs=outputs)


def _read_back_all(values: list, outputs, offset: int, infos) -> tuple[list, tuple]:
    """Each node of ``values`` (indices from ``offset``; below it, a region's parameters) replaced
    by what the importer reads back from its emit: the same op with its attributes as read, or
    the pieces of a composite op (``_composite``), renumbered."""
    new: list = []
    where: dict = {}

    def at(a):
        return a if a < offset else where[a]

    for i, v in enumerate(values):
        if isinstance(v, Node):
            args = tuple(at(a) for a in v.args)
            base, n = len(new) + offset, len(args)
            for piece in _node_pieces(v.op, v.attrs, [infos[a] for a in v.args]):
                new.append(Node(piece.op, tuple(args[a] if a < n else base + a - n for a in piece.args), piece.attrs))
        else:
            new.append(v)
        where[i + offset] = len(new) - 1 + offset
    return new, tuple(at(o) for o in outputs)


def _node_pieces(name: str, attrs: dict, operands: list) -> list[Node]:
    if name in ("call", "if"):
        params = operands if name == "call" else operands[1:]
        attrs = {**attrs, **{key: _region_attributes(attrs[key], params) for key in ("body", "then", "else")
                             if key in attrs}}
        return [Node(name, tuple(range(len(operands))), attrs)]
    return _read_back(name, attrs, operands)


def _region_attributes(region: dict, params: list) -> dict:
    infos = analyse_region(region, params)
    nodes = [Node(v["op"], tuple(v["args"]), v["attrs"]) for v in region["values"]]
    values, outputs = _read_back_all(nodes, region["outputs"], len(params), infos)
    return {"values": [{"op": v.op, "args": list(v.args), "attrs": v.attrs} for v in values],
            "outputs": list(outputs)}


def _read_back(name: str, attrs: dict, operands: list) -> list[Node]:
    """What the importer reads off what op ``name`` emits with ``attrs`` on ``operands``: nodes
    whose arguments count the operands first, then the nodes before them."""
    as_is = [Node(name, tuple(range(len(operands))), attrs)]
    op = BY_NAME[name]
    if op.emit is None or op.emit_in is not None or name == "const":
        return as_is
    holes = [relax.Var(f"o{k}", _type(info)) for k, info in enumerate(operands)]
    nodes = _read_nodes(holes, op.emit(relax, holes, attrs), _Importer(tvm.IRModule({}), "f"))
    if not nodes:
        return as_is
    ops = [n for n in nodes if n.op != "const"]
    if len(ops) == len(nodes) > 1:
        return list(nodes)
    return [Node(name, as_is[0].args, ops[-1].attrs)] if len(ops) == 1 and ops[-1].op == name else as_is


def _read_nodes(holes, expr, importer) -> tuple | None:
    """The nodes ``importer`` reads ``expr`` on ``holes`` as (arguments count the holes first), or
    None where it rejects it."""
    bb = relax.BlockBuilder()
    with bb.function("f", list(holes)):
        with bb.dataflow():
            out = bb.emit_output(expr)
        bb.emit_func_output(out)
    function = bb.get()["f"]
    values = _Offset(len(holes))
    body = _Body(importer, "f", values, {h: k for k, h in enumerate(holes)}, function.body)
    try:
        body.run()
    except ImportRejected:
        return None
    return tuple(values)

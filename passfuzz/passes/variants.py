"""What each pattern-rewriting pass of ``tvm.relax.transform`` branches on, as data: the pass
catalogue's companion (``passfuzz.passes.catalogue`` records contracts; this records reach).

For every pass that matches a pattern, one ``Variant`` per branch of its match or rewrite code:
an operand form it matches (a constant, a weight, a computed value, one value in two places), an
attribute value or a rank or shape condition it tests, a dtype path. Each names the source lines
it comes from ("cc:" apache/tvm at v0.27.dev0-35, commit 5d4dc87213; "py:" the installed 0.27
package) and carries a detector: does a Program contain that variant where the pass can rewrite
it? Detectors read the Program and ``graph.analyse``'s facts only, never TVM, so
``benchmarks/variants.py`` can measure how often the generator reaches each variant without
compiling anything.

Detectors look at ``main``'s own values (not function bodies or If branches) and take a value as
the Relax expression ``relax_build`` emits for it: a ``const`` node is an inline Constant (not a
Var), a weight is a parameter after ``num_input``, and a value is *compile-time* (what
``relax.analysis.computable_at_compile_time`` returns, which AdjustMatmulOrder and
ExpandMatmulOfSum consult) when it is a weight or a node of compile-time values and constants.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Callable

from passfuzz.ir.catalogue.base import ValueInfo
from passfuzz.ir.graph import analyse
from passfuzz.ir.program import Node, Param, Program

CC = "cc:src/relax/transform/"
PY = "py:relax/transform/"


@dataclass(frozen=True)
class Variant:
    name: str
    branch: str  # what the pass's code tests, in words
    source: str  # the lines that test it
    detect: Callable[["Scan"], bool]
    # What TVM 0.27's pass did with this form on the motifs' programs: "rewrites"; "declines"
    # (its match refuses the form); "fails" (it raises or crashes: a bug the fuzzer reports).
    observed: str = "rewrites"
    # Why the pass may leave the form as it is though it rewrites it elsewhere (a cost model, an
    # order it prefers, what the Program does not say), with the source; "" when the detector's
    # condition is the pass's whole condition, so a module left unchanged is a missed rewrite.
    may_decline: str = ""

    @property
    def promises_rewrite(self) -> bool:
        """Does a Program holding this form, given to the pass with its default arguments, have to
        come out changed (passfuzz.judge.observations)?"""
        return self.observed == "rewrites" and not self.may_decline


class Scan:
    """A Program's values seen as the patterns see them: ops, operands, users, facts."""

    def __init__(self, program: Program):
        self.program = program
        self.values = program.values
        self.infos = analyse(program, check_values=False)
        self.users: dict[int, list[int]] = {i: [] for i in range(len(self.values))}
        for j, v in enumerate(self.values):
            if isinstance(v, Node):
                for a in set(v.args):
                    self.users[a].append(j)

    def op(self, i: int) -> str:
        v = self.values[i]
        return v.op if isinstance(v, Node) else "param"

    def args(self, i: int) -> tuple[int, ...]:
        v = self.values[i]
        return v.args if isinstance(v, Node) else ()

    def attrs(self, i: int) -> dict:
        v = self.values[i]
        return v.attrs if isinstance(v, Node) else {}

    def nodes(self, *ops: str) -> list[int]:
        return [i for i, v in enumerate(self.values) if isinstance(v, Node) and v.op in ops]

    def info(self, i: int) -> ValueInfo | None:
        info = self.infos[i]
        return info if isinstance(info, ValueInfo) else None

    def rank(self, i: int) -> int:
        info = self.info(i)
        return -1 if info is None else info.rank

    def is_const(self, i: int) -> bool:
        return self.op(i) == "const"

    def is_weight(self, i: int) -> bool:
        v = self.values[i]
        return isinstance(v, Param) and v.role == "weight"

    def is_input(self, i: int) -> bool:
        v = self.values[i]
        return isinstance(v, Param) and v.role == "input"

    def kind(self, i: int) -> str:
        """'const', 'input', 'weight' or 'computed'."""
        return "const" if self.is_const(i) else self.values[i].role if isinstance(self.values[i], Param) else "computed"

    @cached_property
    def compile_time(self) -> list[bool]:
        known: list[bool] = []
        for i, v in enumerate(self.values):
            if isinstance(v, Param):
                known.append(v.role == "weight")
            elif v.op == "const":
                known.append(True)  # a binding of no free variables; as an operand it is inline, see ct()
            else:
                known.append(all(known[a] for a in v.args))
        return known

    def ct(self, i: int) -> bool:
        """Whether the operand ``i`` counts as compile-time where a pass asks: an inline Constant
        is no Var, so ``is_compile_time`` says no (adjust_matmul_order.cc:71-77)."""
        return self.compile_time[i] and not self.is_const(i)

    @cached_property
    def float32_only(self) -> bool:
        return all(leaf.dtype not in ("float16", "bfloat16") for info in self.infos
                   for leaf in ([info] if isinstance(info, ValueInfo) else _leaves(info)))


def _leaves(info) -> list[ValueInfo]:
    from passfuzz.ir.catalogue.base import leaves
    return leaves(info)


def _any(items) -> bool:
    return any(True for _ in items)


# -- the matmul family ------------------------------------------------------------------------------

def matmul_triples(s: Scan) -> list[tuple[str, int, int, int, int | None]]:
    """AdjustMatmulOrder's four patterns (adjust_matmul_order.cc:89-95): (form, a, b, c, the
    permute_dims node or None), with a, b, c as the pattern names them."""
    found = []
    for m in s.nodes("matmul"):
        lhs, rhs = s.args(m)
        if s.op(lhs) == "matmul":
            found.append(("lhs", *s.args(lhs), rhs, None))
        if s.op(rhs) == "matmul":
            found.append(("rhs", lhs, *s.args(rhs), None))
        if s.op(lhs) == "permute_dims" and s.op(s.args(lhs)[0]) == "matmul":
            b, a = s.args(s.args(lhs)[0])
            found.append(("permuted_lhs", a, b, rhs, lhs))
        if s.op(rhs) == "permute_dims" and s.op(s.args(rhs)[0]) == "matmul":
            c, b = s.args(s.args(rhs)[0])
            found.append(("permuted_rhs", lhs, b, c, rhs))
    return [t for t in found if not all(s.ct(x) for x in t[1:4])]  # all compile-time: left alone (144-146)


def _swaps_last_two(s: Scan, permute: int, literal: bool = False) -> bool:
    """Whether a permute_dims swaps the last two axes of a rank >= 2 operand (axes=None only for
    2-D). ``literal``: the axes as written must equal [0, ..., n-1, n-2] (FuseTransposeMatmul
    compares the list; Relax keeps negative axes as written)."""
    rank = s.rank(s.args(permute)[0])
    axes = s.attrs(permute).get("axes")
    swap = [*range(rank - 2), rank - 1, rank - 2]
    if rank < 2:
        return False
    if axes is None:
        return rank == 2
    return list(axes) == swap if literal else [a % rank for a in axes] == swap


def _adjust(form=None, pred=lambda s, t: True):
    return lambda s: any((form is None or t[0] == form) and pred(s, t) for t in matmul_triples(s))


def _permuted_ranks_ok(s: Scan, t) -> bool:
    return t[4] is None or all(s.rank(x) >= 2 for x in t[1:4])


# Every form AdjustMatmulOrder matches is rewritten into the order it prefers, which may be the
# order written: a compile-time pair grouped already, or the order with fewer multiplications
# (or either, when its analyzer cannot prove one cheaper).
_ORDER_KEPT = CC + "adjust_matmul_order.cc:209-296: the order it prefers may be the one written"


ADJUST_MATMUL_ORDER = (
    Variant("matmul_on_lhs", "matmul(matmul(a, b), c)", CC + "adjust_matmul_order.cc:89", _adjust("lhs"),
            may_decline=_ORDER_KEPT),
    Variant("matmul_on_rhs", "matmul(a, matmul(b, c))", CC + "adjust_matmul_order.cc:90", _adjust("rhs"),
            may_decline=_ORDER_KEPT),
    Variant("permuted_matmul_on_lhs", "matmul(permute_dims(matmul(b, a)), c), operands of rank >= 2",
            CC + "adjust_matmul_order.cc:92,196-201", _adjust("permuted_lhs", _permuted_ranks_ok),
            may_decline=_ORDER_KEPT),
    Variant("permuted_matmul_on_rhs", "matmul(a, permute_dims(matmul(c, b))), operands of rank >= 2",
            CC + "adjust_matmul_order.cc:93,202-207", _adjust("permuted_rhs", _permuted_ranks_ok),
            may_decline=_ORDER_KEPT),
    Variant("permute_not_a_swap", "the permute_dims of a permuted pattern does not swap the last two axes "
            "(the pattern accepts any axes; the rewrite assumes a swap)", CC + "adjust_matmul_order.cc:92-93,168-188",
            _adjust(None, lambda s, t: t[4] is not None and _permuted_ranks_ok(s, t) and not _swaps_last_two(s, t[4])),
            observed="fails"),
    Variant("compile_time_a_b", "a and b computable at compile time (weights), c not: (a b) c",
            CC + "adjust_matmul_order.cc:212-213", _adjust(None, lambda s, t: s.ct(t[1]) and s.ct(t[2])),
            may_decline=_ORDER_KEPT),
    Variant("compile_time_b_c", "b and c computable at compile time, a not: a (b c)",
            CC + "adjust_matmul_order.cc:214-215", _adjust(None, lambda s, t: s.ct(t[2]) and s.ct(t[3])),
            may_decline=_ORDER_KEPT),
    Variant("cost_model", "no compile-time pair: the order with fewer multiplications (static shapes)",
            CC + "adjust_matmul_order.cc:239-293",
            _adjust(None, lambda s, t: not (s.ct(t[1]) and s.ct(t[2])) and not (s.ct(t[2]) and s.ct(t[3]))),
            may_decline=_ORDER_KEPT),
    Variant("constant_operand", "an inline constant among a, b, c (no Var: never compile-time)",
            CC + "adjust_matmul_order.cc:71-77", _adjust(None, lambda s, t: any(s.is_const(x) for x in t[1:4])),
            may_decline=_ORDER_KEPT),
    Variant("one_d_operand", "a 1-D operand among a, b, c (its shape padded with 1)",
            CC + "adjust_matmul_order.cc:221-237", _adjust(None, lambda s, t: any(s.rank(x) == 1 for x in t[1:4])),
            may_decline=_ORDER_KEPT),
    Variant("batched_operand", "an operand of rank >= 3 (batch prefixes broadcast)",
            CC + "adjust_matmul_order.cc:244-258", _adjust(None, lambda s, t: any(s.rank(x) >= 3 for x in t[1:4])),
            may_decline=_ORDER_KEPT),
)


def parallel_groups(s: Scan) -> list[tuple[int, list[int]]]:
    """(left operand, the matmuls taking it on the left whose right operands share a rank), for
    groups of two or more (combine_parallel_matmul.cc:47-53,146-147). The left operand must be a
    Var to be grouped at all; a constant one is kept (the pass throws on it, 290)."""
    groups: dict[tuple[int, int], list[int]] = {}
    for m in s.nodes("matmul"):
        lhs, rhs = s.args(m)
        groups.setdefault((lhs, s.rank(rhs)), []).append(m)
    return [(lhs, ms) for (lhs, _), ms in groups.items() if len(ms) >= 2]


def _epilogue(s: Scan, m: int) -> tuple[int | None, str | None]:
    """(bias rank, activation) of a matmul's branch: add(matmul, bias) then an activation."""
    out, bias, act = m, None, None
    users = s.users[m]
    if len(users) == 1 and s.op(users[0]) == "add" and s.args(users[0])[0] == m and s.args(users[0])[1] != m:
        out, bias = users[0], s.rank(s.args(users[0])[1])
    users = s.users[out]
    if len(users) == 1 and s.op(users[0]) in ACTIVATIONS:
        act = s.op(users[0])
    return bias, act


ACTIVATIONS = ("relu", "gelu", "gelu_tanh", "silu")


def _matched(s: Scan, lhs: int, ms: list[int]) -> bool:
    """Can the pass combine the group at all? Its pattern takes every matmul reading ``lhs`` on the
    left at once, one pattern node per value, each right operand a Var (combine_parallel_matmul.cc:
    86-92,159): a right operand that is the left one, a constant, or one value twice, and no branch
    of ``lhs`` matches; then a rank's branches combine only where their batch dims agree (119-131,146)."""
    rhs = [s.args(m)[1] for m in s.nodes("matmul") if s.args(m)[0] == lhs]
    if any(r == lhs or s.is_const(r) for r in rhs) or len(set(rhs)) < len(rhs):
        return False
    return len({s.info(s.args(m)[1]).shape[:-2] for m in ms}) == 1


def _combine(pred, matched: bool = True):
    """A detector over the groups; ``matched``: only those the pass's pattern can take (the forms
    it rewrites), else every group (the forms it declines or fails on)."""
    return lambda s: any(pred(s, lhs, ms) for lhs, ms in parallel_groups(s) if not matched or _matched(s, lhs, ms))


COMBINE_PARALLEL_MATMUL = (
    Variant("two_branches", "two matmuls share their left operand", CC + "combine_parallel_matmul.cc:86-92,356-362",
            _combine(lambda s, x, ms: len(ms) == 2)),
    Variant("three_or_more_branches", "three or more matmuls share their left operand",
            CC + "combine_parallel_matmul.cc:86-92,369-370", _combine(lambda s, x, ms: len(ms) >= 3)),
    Variant("lhs_1d", "a 1-D left operand (split axis max(lhs, rhs rank) - 1)", CC + "combine_parallel_matmul.cc:239-241",
            _combine(lambda s, x, ms: s.rank(x) == 1, matched=False), observed="fails"),
    Variant("lhs_batched", "a left operand of rank >= 3", CC + "combine_parallel_matmul.cc:239-241",
            _combine(lambda s, x, ms: s.rank(x) >= 3)),
    # The pass casts every matmul's left operand to a Var while grouping, so one constant left
    # operand fails with nothing to combine (corpus/pass-error-da14208a0774).
    Variant("lhs_constant", "a constant left operand (the group key casts it to a Var)",
            CC + "combine_parallel_matmul.cc:290",
            lambda s: any(s.is_const(s.args(m)[0]) for m in s.nodes("matmul")), observed="fails"),
    Variant("lhs_weight", "a weight as the left operand", CC + "combine_parallel_matmul.cc:88",
            _combine(lambda s, x, ms: s.is_weight(x))),
    Variant("rhs_1d", "1-D right operands (batch-dim loop bound rhs_dim - 2 on a size_t)",
            CC + "combine_parallel_matmul.cc:119-131,164", _combine(lambda s, x, ms: s.rank(s.args(ms[0])[1]) == 1, matched=False),
            observed="fails"),
    Variant("rhs_batched", "right operands of rank >= 3 (batch dims compared)", CC + "combine_parallel_matmul.cc:119-131",
            _combine(lambda s, x, ms: s.rank(s.args(ms[0])[1]) >= 3)),
    Variant("rhs_constant", "a constant right operand (bindings match Vars only)", CC + "combine_parallel_matmul.cc:92,159",
            _combine(lambda s, x, ms: any(s.is_const(s.args(m)[1]) for m in ms), matched=False), observed="declines"),
    Variant("rhs_computed", "a right operand computed at run time", CC + "combine_parallel_matmul.cc:92,159",
            _combine(lambda s, x, ms: any(s.kind(s.args(m)[1]) == "computed" for m in ms))),
    Variant("same_rhs_twice", "one value as the right operand of two branches", CC + "combine_parallel_matmul.cc:191-204",
            _combine(lambda s, x, ms: len({s.args(m)[1] for m in ms}) < len(ms), matched=False), observed="declines"),
    Variant("same_value_both_sides", "the shared left operand is also a right operand",
            CC + "combine_parallel_matmul.cc:88-92", _combine(lambda s, x, ms: any(s.args(m)[1] == x for m in ms), matched=False),
            observed="declines"),
    Variant("bias", "every branch adds a bias (bias_dim)", CC + "combine_parallel_matmul.cc:96-104,209-213",
            _combine(lambda s, x, ms: all(_epilogue(s, m)[0] is not None for m in ms))),
    Variant("activation", "every branch ends in one activation (relu, gelu, gelu_tanh, silu)",
            CC + "combine_parallel_matmul.cc:106-110,215-226",
            _combine(lambda s, x, ms: len({_epilogue(s, m)[1] for m in ms}) == 1 and _epilogue(s, ms[0])[1] is not None)),
    Variant("mixed_epilogues", "branches differ in bias or activation (the group drops them)",
            CC + "combine_parallel_matmul.cc:312-318", _combine(lambda s, x, ms: len({_epilogue(s, m) for m in ms}) > 1)),
    Variant("out_dtype", "a matmul with out_dtype (the combined matmul takes the first's dtype)",
            CC + "combine_parallel_matmul.cc:205-207", _combine(lambda s, x, ms: any(s.attrs(m).get("out_dtype") for m in ms))),
)


def _sum_matmuls(s: Scan) -> list[tuple[int, int, int, int, int | None]]:
    """(matmul, lhs, a, b, permute or None) for matmul(lhs, add(a, b)) and
    matmul(lhs, permute_dims(add(a, b))) with a or b not compile-time (expand_matmul_of_sum.cc:53-78)."""
    found = []
    for m in s.nodes("matmul"):
        lhs, rhs = s.args(m)
        permute = None
        if s.op(rhs) == "permute_dims":
            permute, rhs = rhs, s.args(rhs)[0]
        if s.op(rhs) == "add":
            a, b = s.args(rhs)
            if not (s.ct(a) and s.ct(b)):
                found.append((m, lhs, a, b, permute))
    return found


def _expand(pred):
    return lambda s: any(pred(s, t) for t in _sum_matmuls(s))


EXPAND_MATMUL_OF_SUM = (
    Variant("sum_rhs", "matmul(x, add(a, b))", CC + "expand_matmul_of_sum.cc:53,59,91", _expand(lambda s, t: t[4] is None)),
    Variant("permuted_sum_rhs", "matmul(x, permute_dims(add(a, b))): both addends permuted with its axes",
            CC + "expand_matmul_of_sum.cc:55,80-89", _expand(lambda s, t: t[4] is not None)),
    Variant("one_addend_compile_time", "one addend a weight (compile-time), the other not",
            CC + "expand_matmul_of_sum.cc:76-78", _expand(lambda s, t: s.ct(t[2]) != s.ct(t[3]))),
    Variant("constant_addend", "an inline constant addend (no Var: counts as run time)", CC + "expand_matmul_of_sum.cc:68-74",
            _expand(lambda s, t: s.is_const(t[2]) or s.is_const(t[3]))),
    Variant("broadcast_addend", "addends of different shapes (the add broadcasts; each matmul takes one addend as is)",
            CC + "expand_matmul_of_sum.cc:91", _expand(lambda s, t: s.info(t[2]).shape != s.info(t[3]).shape)),
    Variant("same_addend_twice", "add(a, a)", CC + "expand_matmul_of_sum.cc:53,91", _expand(lambda s, t: t[2] == t[3])),
    Variant("lhs_1d", "a 1-D left operand", CC + "expand_matmul_of_sum.cc:49,91", _expand(lambda s, t: s.rank(t[1]) == 1)),
    Variant("lhs_batched", "a left operand of rank >= 3", CC + "expand_matmul_of_sum.cc:49,91",
            _expand(lambda s, t: s.rank(t[1]) >= 3)),
)


def _take_matmuls(s: Scan) -> list[tuple[int, int, int, int]]:
    """(matmul, lhs, weights, indices) for matmul(lhs, take(weights, indices)) with an axis."""
    found = []
    for m in s.nodes("matmul"):
        lhs, rhs = s.args(m)
        if s.op(rhs) == "take" and s.attrs(rhs).get("axis") is not None:
            found.append((m, lhs, *s.args(rhs)))
    return found


def _take_simple(s: Scan, t) -> bool:
    axis = s.attrs(s.args(t[0])[1])["axis"]
    return s.rank(t[3]) == 1 and axis + 1 == s.rank(t[2])


def _take_lora(s: Scan, t) -> bool:
    axis = s.attrs(s.args(t[0])[1])["axis"]
    return s.rank(t[1]) == 3 and s.rank(t[2]) == 3 and s.rank(t[3]) == 1 and axis == 0


def _reorder_take(pred):
    return lambda s: any(pred(s, t) for t in _take_matmuls(s))


REORDER_TAKE_AFTER_MATMUL = (
    Variant("take_last_axis", "matmul(x, take(w, 1-D indices, axis=w.ndim-1)) (the axis compared as given)",
            CC + "reorder_take_after_matmul.cc:86-99", _reorder_take(_take_simple)),
    Variant("take_last_axis_batched_lhs", "the same with x of rank >= 3", CC + "reorder_take_after_matmul.cc:86-97",
            _reorder_take(lambda s, t: _take_simple(s, t) and s.rank(t[1]) >= 3)),
    Variant("take_last_axis_1d_lhs", "the same with a 1-D x", CC + "reorder_take_after_matmul.cc:86-97",
            _reorder_take(lambda s, t: _take_simple(s, t) and s.rank(t[1]) == 1)),
    Variant("take_last_axis_batched_weight", "the same with a weight of rank >= 3", CC + "reorder_take_after_matmul.cc:86-97",
            _reorder_take(lambda s, t: _take_simple(s, t) and s.rank(t[2]) >= 3)),
    Variant("take_computed_indices", "indices computed at run time", CC + "reorder_take_after_matmul.cc:48,86",
            _reorder_take(lambda s, t: _take_simple(s, t) and s.kind(t[3]) == "computed")),
    Variant("batched_lora", "3-D x, 3-D weights, 1-D indices, axis 0 (permute, reshape, take, einsum)",
            CC + "reorder_take_after_matmul.cc:100-137", _reorder_take(_take_lora)),
)


def _permute_concats(s: Scan) -> list[tuple[int, list[int]]]:
    """(concat, its permute_dims operands) when every operand is a permute_dims with the same
    axes (None meaning reversed) and there are 2 to 11 of them."""
    found = []
    for c in s.nodes("concat"):
        parts = list(s.args(c))
        if not 2 <= len(parts) <= 11 or any(s.op(p) != "permute_dims" for p in parts):
            continue
        def axes(p):
            rank, given = s.rank(s.args(p)[0]), s.attrs(p).get("axes")
            return tuple(range(rank))[::-1] if given is None else tuple(a % rank for a in given)
        if len({axes(p) for p in parts}) == 1:
            found.append((c, parts))
    return found


def _permute_concat(pred):
    return lambda s: any(pred(s, c, ps) for c, ps in _permute_concats(s))


REORDER_PERMUTE_DIMS_AFTER_CONCAT = (
    Variant("two_parts", "concat of two permute_dims with one permutation", CC + "reorder_permute_dims_after_concat.cc:62-83",
            _permute_concat(lambda s, c, ps: len(ps) == 2)),
    Variant("three_or_more_parts", "concat of 3 to 11 of them", CC + "reorder_permute_dims_after_concat.cc:62-83",
            _permute_concat(lambda s, c, ps: len(ps) >= 3)),
    Variant("default_axes", "axes=None (reversed; the axes are computed from the rank)",
            CC + "reorder_permute_dims_after_concat.cc:94-111,147", _permute_concat(lambda s, c, ps: s.attrs(ps[0])["axes"] is None)),
    Variant("explicit_axes", "explicit axes", CC + "reorder_permute_dims_after_concat.cc:96-97",
            _permute_concat(lambda s, c, ps: s.attrs(ps[0])["axes"] is not None)),
    Variant("negative_axes", "explicit axes written negative (new concat axis read from them)",
            CC + "reorder_permute_dims_after_concat.cc:118-124,166",
            _permute_concat(lambda s, c, ps: any(a < 0 for a in s.attrs(ps[0])["axes"] or []))),
    Variant("negative_concat_axis", "a negative concat axis", CC + "reorder_permute_dims_after_concat.cc:156-160",
            _permute_concat(lambda s, c, ps: s.attrs(c)["axis"] < 0)),
    Variant("rank_3_or_more", "operands of rank >= 3", CC + "reorder_permute_dims_after_concat.cc:166",
            _permute_concat(lambda s, c, ps: s.rank(ps[0]) >= 3)),
    Variant("same_value_twice", "one permuted value (or its input) in two places",
            CC + "reorder_permute_dims_after_concat.cc:131-138,168",
            _permute_concat(lambda s, c, ps: len(set(ps)) < len(ps) or len({s.args(p)[0] for p in ps}) < len(ps))),
)


def _transpose_matmuls(s: Scan) -> list[tuple[int, int, int, int]]:
    """(matmul, x, permute, w) for matmul(x, permute_dims(w)) passing the check of
    fuse_transpose_matmul.py:65-74 (2-D with axes=None, or the last two axes swapped)."""
    found = []
    for m in s.nodes("matmul"):
        x, wt = s.args(m)
        if s.op(wt) == "permute_dims" and _swaps_last_two(s, wt, literal=True):
            found.append((m, x, wt, s.args(wt)[0]))
    return found


def _fuse_transpose(pred):
    return lambda s: any(pred(s, t) for t in _transpose_matmuls(s))


FUSE_TRANSPOSE_MATMUL = (
    Variant("default_axes_2d", "a 2-D w with axes=None", PY + "fuse_transpose_matmul.py:70-71",
            _fuse_transpose(lambda s, t: s.attrs(t[2])["axes"] is None)),
    Variant("swap_axes_2d", "a 2-D w with axes [1, 0]", PY + "fuse_transpose_matmul.py:72-74",
            _fuse_transpose(lambda s, t: s.attrs(t[2])["axes"] is not None and s.rank(t[3]) == 2)),
    Variant("swap_axes_batched", "w of rank >= 3 with its last two axes swapped", PY + "fuse_transpose_matmul.py:72-74",
            _fuse_transpose(lambda s, t: s.rank(t[3]) >= 3)),
    Variant("lhs_1d", "a 1-D x (prepended 1)", PY + "fuse_transpose_matmul.py:99-101,139-140",
            _fuse_transpose(lambda s, t: s.rank(t[1]) == 1)),
    Variant("lhs_batched", "x of rank >= 3 (x's batch dims lead)", PY + "fuse_transpose_matmul.py:106-138",
            _fuse_transpose(lambda s, t: s.rank(t[1]) >= 3)),
    Variant("rhs_larger_rank", "w of higher rank than x (w's batch dims lead)", PY + "fuse_transpose_matmul.py:106-138",
            _fuse_transpose(lambda s, t: s.rank(t[3]) > max(s.rank(t[1]), 2))),
    Variant("broadcast_batch_dim", "batch dims of size 1 broadcast against another size",
            PY + "fuse_transpose_matmul.py:129-137",
            _fuse_transpose(lambda s, t: s.rank(t[1]) >= 3 and s.rank(t[3]) >= 3 and
                            s.info(t[1]).shape[:-2][-(s.rank(t[3]) - 2):] != s.info(t[3]).shape[:-2][-(s.rank(t[1]) - 2):])),
    Variant("same_value_both_sides", "matmul(x, permute_dims(x))", PY + "fuse_transpose_matmul.py:58-61,166-171",
            _fuse_transpose(lambda s, t: t[1] == t[3]), observed="fails"),
    Variant("out_dtype", "matmul with out_dtype (the operands cast in the fused kernel)", PY + "fuse_transpose_matmul.py:146-150,166",
            _fuse_transpose(lambda s, t: bool(s.attrs(t[0]).get("out_dtype")))),
    Variant("integer_dtype", "integer operands", PY + "fuse_transpose_matmul.py:146-150",
            _fuse_transpose(lambda s, t: s.info(t[1]).dtype.startswith(("int", "uint")))),
    Variant("constant_w", "a constant w (bind_constants=False keeps it out of the composite)",
            PY + "fuse_transpose_matmul.py:40-46", _fuse_transpose(lambda s, t: s.is_const(t[3]))),
)


def _conv_bns(s: Scan) -> list[tuple[int, int]]:
    """(batch_norm, conv2d) for batch_norm(conv2d(x, constant), constants...)[0] with a kernel
    layout the rewrite handles (OIHW or IOHW; fold_batch_norm_to_conv2d_for_inference.py:37-49,89-94)."""
    found = []
    for bn in s.nodes("batch_norm"):
        conv = s.args(bn)[0]
        if s.attrs(bn)["index"] == 0 and s.op(conv) == "conv2d" and s.is_const(s.args(conv)[1]) and \
                all(s.is_const(a) for a in s.args(bn)[1:]) and s.attrs(conv)["kernel_layout"] in ("OIHW", "IOHW"):
            found.append((bn, conv))
    return found


def _fold_bn(pred):
    return lambda s: any(pred(s, bn, conv) for bn, conv in _conv_bns(s))


_FOLD_BN = PY + "fold_batch_norm_to_conv2d_for_inference.py:"
FOLD_BATCHNORM_TO_CONV2D = (
    Variant("oihw", "kernel layout OIHW", _FOLD_BN + "89-90", _fold_bn(lambda s, bn, c: s.attrs(c)["kernel_layout"] == "OIHW")),
    Variant("strided_padded_dilated", "non-default strides, padding or dilation (attributes copied)", _FOLD_BN + "98",
            _fold_bn(lambda s, bn, c: any(v != d for k, d in (("strides", 1), ("dilation", 1), ("padding", 0))
                                          for v in s.attrs(c)[k]))),
    Variant("grouped", "groups > 1", _FOLD_BN + "95,98", _fold_bn(lambda s, bn, c: s.attrs(c)["groups"] > 1)),
    Variant("epsilon", "an epsilon other than 1e-5 (added to the variance)", _FOLD_BN + "83-85",
            _fold_bn(lambda s, bn, c: s.attrs(bn)["epsilon"] != 1e-5)),
    Variant("bn_axis_not_channels", "batch_norm over an axis other than 1 (the rewrite assumes the channels)",
            _FOLD_BN + "45-47,90,96", _fold_bn(lambda s, bn, c: s.attrs(bn)["axis"] % 4 != 1)),
    Variant("bn_axis_as_long_as_channels", "batch_norm over a spatial axis as long as the channels (> 1): "
            "the folded scale and bias then apply along the channels instead",
            _FOLD_BN + "45-47,90,96", _fold_bn(lambda s, bn, c: s.attrs(bn)["axis"] % 4 in (2, 3)
                                               and s.info(bn).shape[1] > 1)),
    Variant("computed_input", "a computed conv input", _FOLD_BN + "38", _fold_bn(lambda s, bn, c: s.kind(s.args(c)[0]) == "computed")),
    Variant("constant_input", "a constant conv input", _FOLD_BN + "38", _fold_bn(lambda s, bn, c: s.is_const(s.args(c)[0]))),
)



def _bn_training(pred):
    return lambda s: any(pred(s, bn) for bn in s.nodes("batch_norm_training"))


_DECOMPOSE = CC + "decompose_ops.cc:"
# Its contract takes batch_norm in training mode only (passfuzz.passes.contracts), the catalogue op
# batch_norm_training: MutateBatchNormForTraining, then DecomposeBatchNorm on the batch statistics.
DECOMPOSE_OPS_FOR_TRAINING = (
    Variant("batch_norm", "batch_norm: batch mean and variance over every axis but the channel axis",
            _DECOMPOSE + "83-116,181-182", _bn_training(lambda s, bn: True)),
    Variant("layer_norm", "layer_norm decomposed into mean, variance, divide", _DECOMPOSE + "118-146,183-186",
            lambda s: bool(s.nodes("layer_norm"))),
    Variant("channel_axis_not_1", "a channel axis other than 1 (the one reduce_axes leaves out)", _DECOMPOSE + "96-101",
            _bn_training(lambda s, bn: s.attrs(bn)["axis"] != 1)),
    Variant("no_scale", "scale=False: gamma not multiplied", _DECOMPOSE + "73-75",
            _bn_training(lambda s, bn: not s.attrs(bn)["scale"])),
    Variant("no_center", "center=False: beta not added", _DECOMPOSE + "76-78",
            _bn_training(lambda s, bn: not s.attrs(bn)["center"])),
    Variant("momentum_bound", "momentum 0 or 1 (the moving or the batch statistic drops out)", _DECOMPOSE + "106-110",
            _bn_training(lambda s, bn: s.attrs(bn)["momentum"] in (0.0, 1.0))),
    Variant("updated_statistics", "the updated moving mean or variance read (fields 1 and 2)", _DECOMPOSE + "109-115",
            _bn_training(lambda s, bn: s.attrs(bn)["index"] in (1, 2))),
    Variant("single_value_per_channel", "one value per channel (batch variance 0: the output is beta)",
            _DECOMPOSE + "103-104", _bn_training(lambda s, bn: s.info(s.args(bn)[0]).size == s.info(s.args(bn)[0]).shape[s.attrs(bn)["axis"]])),
)

def _reshape_of_reshape(s: Scan) -> list[tuple[int, int]]:
    return [(r, s.args(r)[0]) for r in s.nodes("reshape") if s.op(s.args(r)[0]) == "reshape"]


def _resolved(s: Scan, r: int) -> tuple[int, ...]:
    return s.info(r).shape


def _chain_or_no_op(s: Scan) -> list[int]:
    """The reshapes RemoveRedundantReshape rewrites: one reading a reshape, or one to its operand's shape."""
    return [r for r in s.nodes("reshape")
            if s.op(s.args(r)[0]) == "reshape" or _resolved(s, r) == s.info(s.args(r)[0]).shape]


_REMOVE = PY + "remove_redundant_reshape.py:"
REMOVE_REDUNDANT_RESHAPE = (
    Variant("no_op_reshape", "a reshape to its operand's own shape", _REMOVE + "98-102",
            lambda s: any(_resolved(s, r) == s.info(s.args(r)[0]).shape for r in s.nodes("reshape"))),
    Variant("reshape_of_reshape", "reshape(reshape(x)) (reparented onto x)", _REMOVE + "92-96",
            lambda s: bool(_reshape_of_reshape(s))),
    Variant("chain_of_three", "reshape(reshape(reshape(x)))", _REMOVE + "59-64,92-96",
            lambda s: any(s.op(s.args(inner)[0]) == "reshape" for _, inner in _reshape_of_reshape(s))),
    Variant("back_to_input_shape", "a reshape chain ending at its input's shape", _REMOVE + "92-102",
            lambda s: any(_resolved(s, r) == s.info(s.args(i)[0]).shape for r, i in _reshape_of_reshape(s))),
    Variant("inferred_dim", "a reshape in a chain with a -1 dim (the shape compared after inference)", _REMOVE + "43-48,93-94",
            lambda s: any(-1 in s.attrs(r)["shape"] or -1 in s.attrs(i)["shape"] for r, i in _reshape_of_reshape(s))),
    Variant("inner_used_twice", "the inner reshape of a chain has another user", _REMOVE + "92-96",
            lambda s: any(len(s.users[i]) > 1 for _, i in _reshape_of_reshape(s))),
    # Only a chain or a no-op reshape is rewritten: a reshape of a symbolic input to another shape
    # is neither (the detector once took any reshape of one, and promised rewrites never made).
    Variant("symbolic_operand", "a chain or no-op reshape of a symbolically typed input", _REMOVE + "100",
            lambda s: any(getattr(s.values[x], "symbolic", False) for r in _chain_or_no_op(s)
                          for x in [s.args(r)[0]] + ([s.args(s.args(r)[0])[0]] if s.op(s.args(r)[0]) == "reshape" else []))),
)


def _folded(s: Scan) -> list[int]:
    """Nodes FoldConstant evaluates: calls of ops whose every operand is a constant or folded
    (fold_constant.cc:305-364,414-419); creation ops with no operand at all fold too (155-183:
    at most 1024 elements, which passfuzz never exceeds)."""
    folded: list[bool] = []
    for i, v in enumerate(s.values):
        folded.append(isinstance(v, Node) and v.op not in ("const", "tuple", "tuple_get_item", "call", "if", "shape_of")
                      and all(s.is_const(a) or folded[a] for a in v.args))
    return [i for i, f in enumerate(folded) if f]


def _fold(pred):
    return lambda s: any(pred(s, i) for i in _folded(s))


def _fold_dtype(*dtypes):
    return _fold(lambda s, i: s.info(i) is not None and s.info(i).dtype in dtypes)


FOLD_CONSTANT = (
    Variant("op_on_constants", "an op whose operands are all constants (legalized, built, run)",
            CC + "fold_constant.cc:353-364", _fold(lambda s, i: bool(s.args(i)))),
    Variant("chain", "an op on a folded value (the folded binding is inlined)", CC + "fold_constant.cc:414-419",
            _fold(lambda s, i: any(not s.is_const(a) for a in s.args(i)))),
    Variant("tuple_result", "a folded op with several results (call_tir with a tuple type: split, batch_norm, topk)",
            CC + "fold_constant.cc:230-270,283-288", _fold(lambda s, i: s.op(i) in ("split", "batch_norm", "topk", "median"))),
    Variant("creation_op", "an op without tensor operands (zeros, ones, full, arange, eye)", CC + "fold_constant.cc:155-193",
            _fold(lambda s, i: not s.args(i))),
    Variant("float16", "folded in float16", CC + "fold_constant.cc:199-227", _fold_dtype("float16")),
    Variant("bfloat16", "folded in bfloat16", CC + "fold_constant.cc:199-227", _fold_dtype("bfloat16")),
    Variant("narrow_int", "folded in int8 or uint8", CC + "fold_constant.cc:199-227", _fold_dtype("int8", "uint8")),
    Variant("bool", "folded to bool", CC + "fold_constant.cc:199-227", _fold_dtype("bool")),
    Variant("zero_d", "a folded 0-d value", CC + "fold_constant.cc:64-70", _fold(lambda s, i: s.rank(i) == 0)),
)


def _duplicates(s: Scan) -> list[tuple[int, int]]:
    """Pairs (kept, replaced) of nodes with one op, operands and attributes (the key is
    structural, eliminate_common_subexpr.cc:53-67,136-146): constants compare by value, and a
    replaced value stands for the one it was replaced by, so the repeat of a chain matches too
    (143-144)."""
    seen: dict = {}
    same: dict[int, int] = {}
    pairs = []
    for i, v in enumerate(s.values):
        if isinstance(v, Node) and v.op != "const":
            key = (v.op, tuple(("c", repr(s.attrs(a))) if s.is_const(a) else same.get(a, a) for a in v.args),
                   repr(v.attrs))
            if key in seen:
                pairs.append((seen[key], i))
                same[i] = seen[key]
            else:
                seen[key] = i
    return pairs


def _cse(pred):
    return lambda s: any(pred(s, a, b) for a, b in _duplicates(s))


_CSE = CC + "eliminate_common_subexpr.cc:"
ELIMINATE_COMMON_SUBEXPR = (
    Variant("duplicate_call", "one op call bound twice", _CSE + "136-146", _cse(lambda s, a, b: s.op(a) not in ("tuple",))),
    Variant("duplicate_with_constant", "a duplicate with a constant operand (constants compared structurally)",
            _CSE + "64-67", _cse(lambda s, a, b: any(s.is_const(x) for x in s.args(b)))),
    Variant("duplicate_tuple", "a tuple built twice (not a call: kept when call_only)", _CSE + "128-130",
            _cse(lambda s, a, b: s.op(a) == "tuple")),
    Variant("duplicate_tuple_item", "a multi-result op read twice (split, batch_norm: call + TupleGetItem)",
            _CSE + "136-146", _cse(lambda s, a, b: s.op(a) in ("split", "batch_norm", "tuple_get_item", "topk", "median"))),
    Variant("duplicate_chain", "a duplicate that reads a replaced duplicate (it matches once that is replaced)",
            _CSE + "113,143-144", lambda s: _any(1 for a, b in _duplicates(s) for _, d in _duplicates(s)
                                                 if d in s.args(b) and d not in s.args(a))),
    Variant("duplicate_output", "a duplicate that is an output of main (a non-dataflow var after the block)",
            _CSE + "97-110", _cse(lambda s, a, b: a in s.program.outputs or b in s.program.outputs)),
)

# ToMixedPrecision's policies per op (TMixedPrecisionPolicy as registered in TVM 0.27; read with
# Op.get_attr): kAlways computes in float16, kFollow follows its operands, no policy is kNever.
ALWAYS_FP16 = ("matmul", "conv1d", "conv2d", "outer", "attention", "linear")
FOLLOW = ("add", "subtract", "multiply", "divide", "maximum", "minimum", "negative", "abs", "exp", "relu", "sigmoid",
          "tanh", "reshape", "permute_dims", "concat", "split", "strided_slice", "expand_dims", "squeeze", "flatten",
          "broadcast_to", "astype", "gelu", "gelu_tanh", "silu", "sqrt", "rsqrt", "log", "power", "clip", "stack",
          "layer_norm", "rms_norm", "group_norm", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "square")


def _mixed(pred):
    return lambda s: s.float32_only and any(pred(s, m) for m in s.nodes(*ALWAYS_FP16)
                                            if s.info(m) is not None and s.info(m).dtype == "float32")


_TMP = CC + "to_mixed_precision.cc:"
TO_MIXED_PRECISION = (
    Variant("always_op", "a kAlways op (matmul, conv, outer, attention) on float32", _TMP + "199-201,484-488",
            _mixed(lambda s, m: True)),
    Variant("always_constant_operand", "a kAlways op with a constant operand (cast at compile time)",
            _TMP + "154-157,396-399", _mixed(lambda s, m: any(s.is_const(a) for a in s.args(m)))),
    Variant("always_weight_operand", "a kAlways op with a weight operand", _TMP + "275-300",
            _mixed(lambda s, m: any(s.is_weight(a) for a in s.args(m)))),
    Variant("follow_after_always", "a kFollow op reading a kAlways result", _TMP + "202-204,489-490",
            _mixed(lambda s, m: any(s.op(u) in FOLLOW for u in s.users[m]))),
    Variant("never_after_always", "an op without a policy (kNever: cast back to float32) reading a kAlways result",
            _TMP + "202-204,491-496",
            _mixed(lambda s, m: any(s.op(u) not in FOLLOW + ALWAYS_FP16 for u in s.users[m]))),
    Variant("always_after_always", "a kAlways result feeding another kAlways op (stays float16)", _TMP + "80-99,522-528",
            _mixed(lambda s, m: any(s.op(u) in ALWAYS_FP16 for u in s.users[m]))),
    Variant("tuple_operand", "a kAlways result inside a tuple operand (concat, stack, tuple)", _TMP + "172-178,330-336",
            _mixed(lambda s, m: any(s.op(u) in ("concat", "stack", "tuple") for u in s.users[m]))),
    Variant("result_escapes_block", "a kAlways result that is an output (a non-dataflow var)", _TMP + "519-531",
            _mixed(lambda s, m: m in s.program.outputs)),
    Variant("out_dtype", "a kAlways op with out_dtype", _TMP + "484-488", _mixed(lambda s, m: bool(s.attrs(m).get("out_dtype")))),
)

# FuseOps groups ops by the pattern kind AnnotateTIROpPattern reads off each legalized kernel
# (cc:src/relax/analysis/graph_partitioner.cc:372-440): kElemWise/kBroadcast fuse into
# injective and reduction consumers, kOutEWiseFusable (matmul, conv) takes elementwise epilogues,
# kInjective chains fuse, kCommReduce ends a group. The kinds below are the catalogue's families.
ELEMWISE = ("negative", "abs", "relu", "exp", "sigmoid", "tanh", "sqrt", "log", "rsqrt", "silu", "gelu", "gelu_tanh",
            "square", "sign", "floor", "ceil", "round", "trunc", "sin", "cos", "erf", "clip", "astype", "relu6",
            "add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "where", "equal", "less", "greater")
INJECTIVE = ("reshape", "permute_dims", "expand_dims", "squeeze", "strided_slice", "broadcast_to", "flatten", "flip",
             "repeat", "tile", "take", "concat", "stack")
REDUCE = ("sum", "max", "min", "mean", "prod")
OUT_EWISE = ("matmul", "conv1d", "conv2d")


def _fuse_edge(producer_ops, consumer_ops, extra=lambda s, p, c: True):
    return lambda s: any(s.op(p) in producer_ops and extra(s, p, c)
                         for c in s.nodes(*consumer_ops) for p in s.args(c))


def _broadcasting(s: Scan, c: int) -> bool:
    return len(s.args(c)) >= 2 and len({s.info(a).shape for a in s.args(c) if s.info(a) is not None}) > 1


_FUSE = "cc:src/relax/analysis/graph_partitioner.cc:"
# FuseOps groups the kernels LegalizeOps made, by the patterns AnnotateTIROpPattern read off them:
# the Program names neither, so no form here promises that FuseOps changes a module.
_GROUPED_KERNELS = "cc:src/relax/transform/fuse_ops.cc: it fuses legalized kernels by their TIR op pattern, which " \
                   "the Program does not hold"
FUSE_OPS = tuple(replace(variant, may_decline=_GROUPED_KERNELS) for variant in (
    Variant("elemwise_chain", "an elementwise op reading an elementwise op", _FUSE + "409-428",
            _fuse_edge(ELEMWISE, ELEMWISE)),
    Variant("broadcast_consumer", "a broadcasting binary op reading an elementwise result", _FUSE + "409-428",
            _fuse_edge(ELEMWISE, ELEMWISE, lambda s, p, c: _broadcasting(s, c))),
    Variant("injective_after_elemwise", "a data-movement op reading an elementwise result", _FUSE + "409-428",
            _fuse_edge(ELEMWISE, INJECTIVE)),
    Variant("injective_chain", "a data-movement op reading one", _FUSE + "429-438", _fuse_edge(INJECTIVE, INJECTIVE)),
    Variant("reduce_after_elemwise", "a reduction reading an elementwise or injective result", _FUSE + "410-424",
            _fuse_edge(ELEMWISE + INJECTIVE, REDUCE)),
    Variant("epilogue", "an elementwise op reading a matmul or conv (kOutEWiseFusable)", _FUSE + "397-408",
            _fuse_edge(OUT_EWISE, ELEMWISE)),
    Variant("diamond", "an elementwise value read by two fusable ops that meet again", _FUSE + "340-360",
            lambda s: any(len([u for u in s.users[p] if s.op(u) in ELEMWISE + INJECTIVE]) >= 2
                          for p in s.nodes(*ELEMWISE))),
    Variant("tuple_of_fusable", "a concat (tuple operand) of elementwise results", _FUSE + "372-392",
            _fuse_edge(ELEMWISE, ("concat", "stack"))),
    Variant("constant_in_group", "a constant operand inside a fused group (kept as a parameter, never fused)",
            "cc:src/relax/transform/fuse_ops.cc:288-293,641",
            lambda s: any(s.is_const(a) for c in s.nodes(*ELEMWISE) for a in s.args(c)
                          if any(s.op(x) in ELEMWISE + OUT_EWISE for x in s.args(c)))),
))

PASS_VARIANTS: dict[str, tuple[Variant, ...]] = {
    "AdjustMatmulOrder": ADJUST_MATMUL_ORDER,
    "CombineParallelMatmul": COMBINE_PARALLEL_MATMUL,
    "ExpandMatmulOfSum": EXPAND_MATMUL_OF_SUM,
    "FuseTransposeMatmul": FUSE_TRANSPOSE_MATMUL,
    "ReorderTakeAfterMatmul": REORDER_TAKE_AFTER_MATMUL,
    "ReorderPermuteDimsAfterConcat": REORDER_PERMUTE_DIMS_AFTER_CONCAT,
    "FoldBatchnormToConv2D": FOLD_BATCHNORM_TO_CONV2D,
    "DecomposeOpsForTraining": DECOMPOSE_OPS_FOR_TRAINING,
    "RemoveRedundantReshape": REMOVE_REDUNDANT_RESHAPE,
    "FoldConstant": FOLD_CONSTANT,
    "EliminateCommonSubexpr": ELIMINATE_COMMON_SUBEXPR,
    "ToMixedPrecision": TO_MIXED_PRECISION,
    "FuseOps": FUSE_OPS,
}

# Branches read in the source but not reachable from the op catalogue, and passes not listed yet.
NOT_REACHED = {
    "FoldBatchnormToConv2D": "kernel layout IOHW (py:relax/transform/fold_batch_norm_to_conv2d_for_inference.py:91-92) and NHWC data with an OIHW kernel: the catalogue's "
                             "conv2d draws NCHW/OIHW and NHWC/HWIO only",
    "FoldConstant": "creation ops of more than 1024 elements (cc:fold_constant.cc:183-193: passfuzz shapes stay "
                    "smaller); tensor_to_shape / shape_to_tensor of a constant (cc:fold_constant.cc:365-407)",
    "ToMixedPrecision": "constants outside float16's range (cc:to_mixed_precision.cc:340-399: values are drawn small)",
    "EliminateCommonSubexpr": "duplicates across If branches and function bodies (cc:...:157-190: detectors read main)",
    "AdjustMatmulOrder": "tir_var_upper_bound / lower_bound attributes (cc:adjust_matmul_order.cc:98-134)",
    "DecomposeOpsForTraining": "layer_norm with center or scale False (cc:decompose_ops.cc:135-140: the catalogue's "
                               "layer_norm draws both True); a negative batch_norm axis (cc:decompose_ops.cc:98 compares "
                               "it unnormalized, but topi's legalization cannot compute it either, so it is not drawn)",
}
NOT_DONE = ("FuseOpsByPattern", "FuseTIR", "LiftTransformParams", "CanonicalizeBindings", "DeadCodeElimination",
            "ConvertLayout", "DecomposeOpsForInference", "SimplifyNormInference", "RewriteDataflowReshape",
            "LegalizeOps", "AlterOpImpl", "CombineParallelMatmul's FCheck argument")


def promised_rewrites(program: Program, pass_name: str) -> list[Variant]:
    """The variants of ``pass_name`` that ``program`` holds and that promise a rewrite
    (``Variant.promises_rewrite``): given the program's module, the pass must change it."""
    variants = [v for v in PASS_VARIANTS.get(pass_name, ()) if v.promises_rewrite]
    if not variants:
        return []
    scan = Scan(program)
    return [v for v in variants if v.detect(scan)]


def variants_in(program: Program) -> dict[str, set[str]]:
    """Per pass, the names of the variants ``program`` contains where the pass can rewrite them."""
    scan = Scan(program)
    return {name: {v.name for v in variants if v.detect(scan)} for name, variants in PASS_VARIANTS.items()}

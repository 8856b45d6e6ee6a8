"""Passes with planted defects (and their corrected twins) that the end-to-end tests fuzz.

They are real Relax passes written the way a pass author would write one, named on the
command line as ``tests.planted_passes:<name>``. ``MINIMAL_OPS`` gives, next to each planted
bug, the op count of a hand-written minimal Program that shows it (``benchmarks/reduction.py``
holds the reducer's results against it).
"""

import ctypes
import re

import tvm
import tvm_ffi
from tvm import relax
from tvm.relax.expr_functor import PyExprMutator, mutator

MINIMAL_OPS: dict[str, int] = {}


def _is_op(expr, name: str) -> bool:
    return isinstance(expr, relax.Call) and isinstance(expr.op, tvm.ir.Op) and expr.op.name == name


def _keeps_element_order(shape, axes) -> bool:
    """True when permuting ``shape`` by ``axes`` moves no two dims longer than 1 past each other."""
    moved = [a for a in axes if int(shape[a]) != 1]
    return moved == sorted(moved)


def _permute_to_reshape(always: bool):
    @mutator
    class Rewrite(PyExprMutator):
        def visit_call_(self, call):
            call = super().visit_call_(call)
            if isinstance(call.op, tvm.ir.Op) and call.op.name == "relax.permute_dims":
                data = call.args[0]
                rank = len(data.ty.shape)
                axes = [int(a) for a in call.attrs.axes] if call.attrs.axes is not None else list(range(rank))[::-1]
                if always or _keeps_element_order(data.ty.shape, axes):
                    return relax.op.reshape(data, call.ty.shape)
            return call

    @tvm.transform.module_pass(opt_level=0, name="PermuteToReshape" if always else "PermuteToReshapeFixed")
    def rewrite(mod, ctx):
        for gv, func in list(mod.functions.items()):
            if isinstance(func, relax.Function):
                mod[gv] = Rewrite(mod).visit_expr(func)
        return mod

    return rewrite


# Planted bug: treats every permute_dims as a reshape. Right only when the permutation keeps
# the order of the dims longer than 1 (e.g. it only moves unit dims), wrong otherwise.
permute_as_reshape = _permute_to_reshape(always=True)
MINIMAL_OPS["permute_as_reshape"] = 1  # permute_dims of a 2x2 tensor
# The corrected pass: the same rewrite, only where it is valid.
permute_as_reshape_fixed = _permute_to_reshape(always=False)


@tvm.transform.module_pass(opt_level=0, name="SegfaultOnNegative")
def segfault_on_negative(mod, ctx):
    """Planted crash: dereferences a null pointer when the module negates anything."""
    calls = []
    for func in mod.functions.values():
        if isinstance(func, relax.Function):
            relax.analysis.post_order_visit(func.body, lambda e: calls.append(e) if isinstance(e, relax.Call) else None)
    if any(isinstance(c.op, tvm.ir.Op) and c.op.name == "relax.negative" for c in calls):
        ctypes.string_at(0)
    return mod


MINIMAL_OPS["segfault_on_negative"] = 1  # negative


def segfault_with(options: dict):
    """segfault_on_negative named with a dict argument, as ConvertLayout's desired layouts are."""
    return segfault_on_negative


@tvm.transform.module_pass(opt_level=0, name="RaiseAlways")
def raise_always(mod, ctx):
    """Planted pass error: refuses any module (like a pass with a broken precondition check)."""
    raise ValueError("unsupported pattern in block 3")


MINIMAL_OPS["raise_always"] = 0  # main returning its parameter


@tvm.transform.module_pass(opt_level=0, name="DropBindings")
def drop_bindings(mod, ctx):
    """Planted ill-formed output: main returns a variable that is no longer defined."""
    main = mod["main"]
    body = main.body
    undefined = relax.Var("dangling", body.body.ty)
    mod["main"] = relax.Function(main.params, relax.SeqExpr([], undefined), main.ret_ty, main.is_pure, main.attrs)
    return mod


MINIMAL_OPS["drop_bindings"] = 0  # main returning its parameter


@tvm.transform.module_pass(opt_level=0, name="SpinForever")
def spin_forever(mod, ctx):
    """Planted hang."""
    while True:
        pass


MINIMAL_OPS["spin_forever"] = 0  # main returning its parameter


@tvm.transform.module_pass(opt_level=0, name="RaiseAfterLegalize")
def raise_after_legalize(mod, ctx):
    """Planted bug that needs another pass first: fails on any module holding a PrimFunc, which
    only exists once LegalizeOps has run."""
    if any(isinstance(func, tvm.tirx.PrimFunc) for func in mod.functions.values()):
        raise RuntimeError("cannot handle call_tir")
    return mod


@tvm.transform.module_pass(opt_level=0, name="LeaveUnchanged")
def leave_unchanged(mod, ctx):
    """The fixed twin of the planted raising, ill-forming, crashing and hanging passes: what each
    of them does, once fixed, to a module it has nothing to rewrite in."""
    return mod


def _multiply_to_fma(always: bool):
    @mutator
    class Rewrite(PyExprMutator):
        def visit_call_(self, call):
            call = super().visit_call_(call)
            if isinstance(call.op, tvm.ir.Op) and call.op.name == "relax.multiply" and always:
                zeros = relax.op.zeros(call.ty.shape, call.ty.dtype)
                return relax.op.ewise_fma(call.args[0], call.args[1], zeros)
            return call

    @tvm.transform.module_pass(opt_level=0, name="MultiplyAsFma" if always else "MultiplyAsFmaFixed")
    def rewrite(mod, ctx):
        for gv, func in list(mod.functions.items()):
            if isinstance(func, relax.Function):
                mod[gv] = Rewrite(mod).visit_expr(func)
        return mod

    return rewrite


# Planted compile error: fuses a * b into ewise_fma(a, b, zeros), an op with no legalization, so
# the module is well formed but does not compile (operands of one shape only). The fixed pass
# leaves multiplies alone.
multiply_as_fma = _multiply_to_fma(always=True)
multiply_as_fma_fixed = _multiply_to_fma(always=False)


def scaled_negative(factor: float):
    """A pass that computes -x as x * -factor: off by (factor - 1) relative, to put a rewrite
    just inside or just outside the oracle's tolerance."""
    @mutator
    class Rewrite(PyExprMutator):
        def visit_call_(self, call):
            call = super().visit_call_(call)
            if isinstance(call.op, tvm.ir.Op) and call.op.name == "relax.negative":
                return relax.op.multiply(call.args[0], relax.const(-factor, call.ty.dtype))
            return call

    @tvm.transform.module_pass(opt_level=0, name="ScaledNegative")
    def rewrite(mod, ctx):
        for gv, func in list(mod.functions.items()):
            if isinstance(func, relax.Function):
                mod[gv] = Rewrite(mod).visit_expr(func)
        return mod

    return rewrite


MINIMAL_OPS["raise_after_legalize"] = 1  # any op LegalizeOps turns into a PrimFunc (negative)


@mutator
class _DropTransposeOfSquare(PyExprMutator):
    def visit_call_(self, call):
        call = super().visit_call_(call)
        if _is_op(call, "relax.matmul") and isinstance(call.args[1], relax.Var):
            bound = self.lookup_binding(call.args[1])
            if _is_op(bound, "relax.permute_dims") and \
                    tvm_ffi.structural_equal(bound.args[0].ty.shape, call.args[1].ty.shape):
                return relax.op.matmul(call.args[0], bound.args[0])
        return call


@tvm.transform.module_pass(opt_level=0, name="MatmulDropTranspose")
def matmul_drop_transpose(mod, ctx):
    """Planted wrong rewrite of a two-op pattern: ``matmul(a, permute_dims(b))`` becomes
    ``matmul(a, b)`` whenever the permuted shape equals the original (a square b), as if every
    square matrix were symmetric."""
    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            mod[gv] = _DropTransposeOfSquare(mod).visit_expr(func)
    return mod


MINIMAL_OPS["matmul_drop_transpose"] = 2  # matmul(x, permute_dims(y)), y 2x2 (linear emits it too: 1)


@tvm.transform.module_pass(opt_level=0, name="RaiseOnIf")
def raise_on_if(mod, ctx):
    """Planted pass error inside control flow: refuses any function holding an R.If, the way a
    pass that assumes straight-line code would."""
    found = []
    for func in mod.functions.values():
        if isinstance(func, relax.Function):
            relax.analysis.post_order_visit(func.body, lambda e: found.append(e) if isinstance(e, relax.If) else None)
    if found:
        raise RuntimeError("control flow is not supported")
    return mod


MINIMAL_OPS["raise_on_if"] = 1  # an if whose branches return their operand


@mutator
class _RoundHalfUp(PyExprMutator):
    def visit_call_(self, call):
        call = super().visit_call_(call)
        dtype = str(call.args[0].ty.dtype) if _is_op(call, "relax.round") else ""
        if dtype.startswith("float"):
            half = relax.const(0.5, dtype)
            return relax.op.floor(relax.op.add(call.args[0], half))
        return call


@tvm.transform.module_pass(opt_level=0, name="RoundHalfUp")
def round_half_up(mod, ctx):
    """Planted wrong rewrite that only values show: ``round(x)`` becomes ``floor(x + 0.5)``, which
    rounds exact halves up where Relax rounds them to even (0.5 -> 1, not 0). A float drawn in a
    range is practically never an exact half, so only chosen arguments show it."""
    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            mod[gv] = _RoundHalfUp(mod).visit_expr(func)
    return mod


MINIMAL_OPS["round_half_up"] = 1  # round of a parameter holding an exact half such as 0.5


@mutator
class _TwoWrongRewrites(PyExprMutator):
    def visit_call_(self, call):
        call = super().visit_call_(call)
        if _is_op(call, "relax.negative"):
            return call.args[0]  # drops the negation
        if _is_op(call, "relax.exp") and str(call.args[0].ty.dtype).startswith("float"):
            return relax.op.add(call.args[0], relax.const(1.0, call.args[0].ty.dtype))  # exp(x) as 1 + x
        return call


@tvm.transform.module_pass(opt_level=0, name="TwoWrongRewrites")
def two_wrong_rewrites(mod, ctx):
    """Two planted wrong results of one pass, on different ops: ``negative(x)`` becomes ``x``, and
    ``exp(x)`` becomes ``1 + x``. Both are "values differ" after this pass, one fingerprint: only
    their triggers (passfuzz.judge.finding) tell them apart."""
    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            mod[gv] = _TwoWrongRewrites(mod).visit_expr(func)
    return mod


MINIMAL_OPS["two_wrong_rewrites"] = 1  # negative of a parameter (or exp of one)


def _named(call, *parts: str) -> bool:
    """Is ``call`` a call of the Relax op whose name ``parts`` spell? (A name composed at run time:
    no "relax.<op>" literal for a reader of the source to find.)"""
    return isinstance(call.op, tvm.ir.Op) and call.op.name == ".".join(["relax", "".join(parts)])


@mutator
class _SigmoidAsExp(PyExprMutator):
    def visit_call_(self, call):
        call = super().visit_call_(call)
        if _named(call, "sig", "moid"):
            return relax.op.exp(call.args[0])  # wrong: sigmoid(x) is 1 / (1 + exp(-x))
        return call


@tvm.transform.module_pass(opt_level=0, name="SigmoidAsExp")
def sigmoid_as_exp(mod, ctx):
    """Planted wrong rewrite whose source misleads a reader: the only op it names is the one it
    builds (``relax.op.exp``); the op it matches, sigmoid, is a name composed at run time."""
    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            mod[gv] = _SigmoidAsExp(mod).visit_expr(func)
    return mod


MINIMAL_OPS["sigmoid_as_exp"] = 1  # sigmoid of a parameter


def _plain_pools(swapped: bool):
    """A 2-D pool in a packed layout (NCHW4c) computed in the plain one: the operand unpacked (its
    inner block moved next to its outer channel axis, the two merged), pooled in NCHW, packed back.
    ``swapped`` plants the defect: the unpacking takes the inner block as the major part of the
    channel (channel = inner * outer extent + outer, not outer * factor + inner) while the packing
    takes it as the minor part, so the channels come back permuted."""
    @mutator
    class Rewrite(PyExprMutator):
        def visit_call_(self, call):
            call = super().visit_call_(call)
            if not (_is_op(call, "relax.nn.max_pool2d") or _is_op(call, "relax.nn.avg_pool2d")) or \
                    re.fullmatch(r"NCHW\d+c", str(call.attrs.layout)) is None or call.attrs.out_layout != call.attrs.layout:
                return call
            n, outer, h, w, factor = (int(d) for d in call.args[0].ty.shape)
            inner_first = [0, 4, 1, 2, 3] if swapped else [0, 1, 4, 2, 3]
            plain = self.builder_.emit(relax.op.reshape(self.builder_.emit(relax.op.permute_dims(call.args[0], inner_first)),
                                                        (n, outer * factor, h, w)))
            attrs = call.attrs
            pooled = self.builder_.emit(getattr(relax.op.nn, call.op.name.split(".")[-1])(
                plain, attrs.pool_size, attrs.strides, attrs.padding, attrs.dilation, attrs.ceil_mode,
                attrs.count_include_pad, layout="NCHW"))
            _, _, oh, ow = (int(d) for d in pooled.ty.shape)
            blocks = self.builder_.emit(relax.op.reshape(pooled, (n, outer, factor, oh, ow)))
            return relax.op.permute_dims(blocks, [0, 1, 3, 4, 2])

    @tvm.transform.module_pass(opt_level=0, name="PlainPoolsSwapped" if swapped else "PlainPools")
    def rewrite(mod, ctx):
        for gv, func in list(mod.functions.items()):
            if isinstance(func, relax.Function):
                mod[gv] = Rewrite(mod).visit_expr(func)
        return mod

    return rewrite


# Planted bug: a packed pool unpacked with its inner block read as the major part of the channel.
plain_pools_swapped = _plain_pools(swapped=True)
# The corrected pass: the inner block read as the minor part, as the packing writes it.
plain_pools = _plain_pools(swapped=False)

"""Calling-convention adapters: how to call an optimized module so the call is equivalent to
calling the original ``main`` with the Program's arguments (runtime inputs, then weights).

Some passes change ``main`` on purpose. Calling the new ``main`` the old way is *not*
equivalent, and comparing such calls is the false alarm of apache/tvm#17207 (LiftTransformParams).
The adapter is read off the optimized module itself, so it also covers sequences of passes:

- a new ``main_transform_params`` (``transform_params`` with shared_transform=True) transforms the
  weights first: called with the weights as one tuple (wrapped once more per BundleModelParams
  that ran after it), or, after LazyTransformParams, with no
  arguments, reading each weight through the global ``get_item(i)`` and writing each result
  through ``set_item(i, value)``;
- then ``main`` takes the inputs, and for the (transformed) weights one of: a value each (a
  tensor, or a tuple the transform computed, such as a lifted ``(w,)``), one tuple of all
  (BundleModelParams), ``fget_param(index, name)`` (LazyGetInput), or nothing at
  all when they were bound into the module as constants (BindParams); ``fset_output(index,
  value)`` (LazySetOutput) receives the outputs instead of a return value.

Gradient adds ``main_adjoint`` beside an unchanged ``main``: the module is then called through
``main_adjoint`` with main's arguments (ADJOINT), which returns (loss, (gradients...)); what
that is compared with is passfuzz.judge.gradient's business.

The calls themselves go through passfuzz.portable.conventions, which reproducer scripts copy. When ``main``
changed in a way none of this explains, the pair is incomparable and never compared.
"""

from __future__ import annotations

from dataclasses import dataclass

import tvm
from tvm import relax

from passfuzz.ir.program import Program
from passfuzz.portable.conventions import Collected, lazy_weights, param_getter

_TRANSFORMS = ("main_transform_params", "transform_params")


@dataclass(frozen=True)
class Adapter:
    transform: str | None = None  # the function that transforms the weights first
    lazy_transform: bool = False  # transform() takes no arguments: get_item / set_item globals
    slots: tuple[str, ...] | None = None  # main's parameters after the inputs; None: as the original
    transform_wrap: int = 0  # extra tuple levels around the weights passed to transform (BundleModelParams)
    tuple_wrap: int = 0  # extra tuple levels around the weights in main's tuple slot (bundled twice)
    inputs: int | None = None  # how many leading arguments stay inputs; None: the Program's num_input
    adjoint: bool = False  # call main_adjoint (Gradient) instead of main
    dropped: tuple[int, ...] = ()  # positions of R.Prim arguments main no longer takes (a pass bound them)

    @property
    def name(self) -> str:
        if self.adjoint:
            return "main_adjoint"
        parts = [f"{'lazy ' if self.lazy_transform else ''}{self.transform}"
                 f"{' (bundled)' if self.transform_wrap else ''}"] if self.transform else []
        if self.slots is not None:
            parts.append("main(inputs, " + ", ".join(self.slots) + ")" + (" (bundled)" * self.tuple_wrap))
        if self.dropped:
            parts.append("without argument(s) " + ", ".join(map(str, self.dropped)))
        return "; ".join(parts) or "plain"

    def prepare(self, program: Program, args: list) -> dict:
        """Before the VM is created: register the globals a lazy transform calls. ``args`` are
        the VM's arguments (tensors: get_item hands them to TVM as they are, and a numpy array
        of bfloat16 cannot cross into TVM by itself)."""
        state: dict = {"outputs": Collected()}
        if self.lazy_transform:
            state["weights_out"] = lazy_weights(self.split(program, args)[1])
        return state

    def input_count(self, program: Program, arguments: int) -> int:
        """How many of the arguments this convention passes (``passed``) are inputs; ``arguments``
        is how many the Program has."""
        if self.inputs is not None:
            return self.inputs
        n = program.num_input if program.num_input is not None else arguments
        return n - sum(k < n for k in self.dropped)

    def passed(self, args: list) -> list:
        """The Program's arguments that ``main`` still takes."""
        return [a for k, a in enumerate(args) if k not in self.dropped]

    def split(self, program: Program, args: list) -> tuple[list, list]:
        """(inputs, weights) of the Program's arguments, as this convention sees them."""
        n = self.input_count(program, len(args))
        args = self.passed(args)
        return list(args[:n]), list(args[n:])

    def call(self, vm, program: Program, args: list, state: dict):
        if self.adjoint:
            return vm[ADJOINT_FUNCTION](*args)
        if self.transform is None and self.slots is None and not self.dropped:
            return vm["main"](*args)
        inputs, weights = self.split(program, args)
        if self.lazy_transform:
            vm[self.transform]()
            weights = state["weights_out"].in_order()
        elif self.transform:
            weights = list(vm[self.transform](_wrap(weights, self.transform_wrap)))
        if self.slots is None:
            return vm["main"](*inputs, *weights)
        outputs = state["outputs"]
        remaining = iter(weights)
        filled = {
            "tuple": lambda: _wrap(weights, self.tuple_wrap),
            "getter": lambda: param_getter(weights),
            "setter": lambda: outputs.put,
        }
        result = vm["main"](*inputs, *[next(remaining) if slot == "tensor" else filled[slot]()
                                       for slot in self.slots])
        return outputs.in_order() if "setter" in self.slots else result


PLAIN = Adapter()
ADJOINT = Adapter(adjoint=True)
ADJOINT_FUNCTION = "main_adjoint"


def _wrap(weights: list, depth: int) -> list:
    for _ in range(depth):
        weights = [weights]
    return weights


def _unwrap(ty, bundle: str | None = None) -> tuple[int, object]:
    """(extra single-field tuple levels around a tuple of weights, the innermost tuple type);
    each BundleModelParams adds one level. With ``bundle`` (the type text of the weights as one
    tuple), only the levels above it: a weight that is a tuple itself (``packed_params``) makes a
    one-field bundle that no BundleModelParams wrapped."""
    depth = 0
    while str(ty) != bundle and isinstance(ty, relax.TupleType) and len(ty.fields) == 1 and \
            isinstance(ty.fields[0], relax.TupleType):
        depth, ty = depth + 1, ty.fields[0]
    return depth, ty


def _nesting(ty, bundle: str | None = None) -> int:
    return _unwrap(ty, bundle)[0]


def _tuple_fields(ty) -> list:
    inner = _unwrap(ty)[1]
    return list(inner.fields) if isinstance(inner, relax.TupleType) else [inner]


def _types(params, symbols: dict[str, int] | None = None) -> list[str]:
    """The parameters' types, with each symbolic variable whose value the arguments fix written
    as that value: after BindSymbolicVars (or BindParams of a weight that defined a variable)
    R.Tensor((n, 4)) became R.Tensor((3, 4)), which the same argument still satisfies."""
    return [_type_text(p.ty, symbols or {}) for p in params]


def _type_text(ty, symbols: dict[str, int]) -> str:
    values = ty.values if isinstance(ty, relax.ShapeType) else \
        getattr(ty.shape, "values", None) if isinstance(ty, relax.TensorType) else None
    if not symbols or values is None:
        return str(ty)
    dims = [str(symbols.get(d.name, d.name)) if isinstance(d, tvm.tirx.Var) else
            str(d.value) if isinstance(d, tvm.tirx.IntImm) else str(d) for d in values]
    return f"{type(ty).__name__}[{', '.join(dims)}]{getattr(ty, 'dtype', '')}"


def _is_prim(param) -> bool:
    """An R.Prim parameter (in TVM 0.27, the symbolic variable itself)."""
    return isinstance(param.ty, tvm.ir.PrimType)


def _getter_counts(main, weights) -> bool:
    """Whether every ``fget_param(i, name)`` of ``main`` (LazyGetInput's reads) names
    ``weights[i]``: the getter's indices count each of ``weights``, prim ones too."""
    reads: list[tuple[int, str]] = []

    def visit(expr):
        if isinstance(expr, relax.Call) and isinstance(expr.op, relax.Var) and expr.op.name == "fget_param" \
                and len(expr.args) == 2:
            index, name = (getattr(arg, "value", None) for arg in expr.args)  # an IntImm, a StringImm
            if isinstance(index, int) and isinstance(name, str):
                reads.append((index, name))

    relax.analysis.post_order_visit(main.body, visit)
    return all(i < len(weights) and weights[i].name == name for i, name in reads)


def _takes_each_output(transform, weights, symbols: dict[str, int] | None) -> bool:
    """Whether ``main``'s weight parameters are the transform's outputs one for one (what
    LiftTransformParams makes), as opposed to one tuple of them all (BundleModelParams after it)."""
    ret = transform.ret_ty
    return isinstance(ret, relax.TupleType) and len(ret.fields) == len(weights) and \
        [_type_text(f, symbols or {}) for f in ret.fields] == _types(weights, symbols)


def _slot(param) -> str | None:
    if param.name == "fset_output":
        return "setter"
    if param.name == "fget_param":
        return "getter"
    if isinstance(param.ty, relax.TupleType):
        return "tuple"
    if isinstance(param.ty, relax.TensorType) or _is_prim(param):  # a weight passed as itself
        return "tensor"
    return None


def choose_adapter(original: tvm.IRModule, optimized: tvm.IRModule, num_input: int | None,
                   symbols: dict[str, int] | None = None) -> Adapter | None:
    """The adapter that calls ``optimized`` like ``original``; None when there is none.
    ``symbols`` are the values the arguments give the symbolic variables (Program.symbol_values)."""
    names = {gv.name_hint for gv in optimized.functions}
    if "main" not in names:
        return None
    before_main, main = original["main"], optimized["main"]
    before = {gv.name_hint for gv in original.functions}
    if ADJOINT_FUNCTION in names and ADJOINT_FUNCTION not in before:
        same = _types(optimized[ADJOINT_FUNCTION].params) == _types(before_main.params)
        return ADJOINT if same and _types(main.params) == _types(before_main.params) else None
    transform = next((t for t in _TRANSFORMS if t in names and t not in before), None)
    if transform is None and _types(main.params, symbols) == _types(before_main.params, symbols):
        return PLAIN
    # BindSymbolicVars, or BindParams of the weights that use it, binds an R.Prim parameter's
    # variable to the value its argument has, and main stops taking it: that argument is left out.
    # A prim weight moved with the others (into a transform, a tuple or a getter) is not dropped.
    # Without num_input, LazyGetInput takes every parameter as a weight.
    lazy_all = num_input is None and bool(main.params) and main.params[0].name == "fget_param"
    n = 0 if lazy_all else num_input if num_input is not None else len(before_main.params)
    kept = {p.name for p in main.params if _is_prim(p)}
    gone = [k for k, p in enumerate(before_main.params) if _is_prim(p) and p.name not in kept]
    # Only main's weights tell whether weights moved; an input may be a tuple of its own.
    weights_now = main.params[n - sum(k < n for k in gone):]
    moved = transform is not None or any(_slot(p) in ("tuple", "getter") for p in weights_now)
    dropped = tuple(k for k in gone if k < n or not moved)
    if any(_slot(p) == "getter" for p in weights_now) and not _getter_counts(main, before_main.params[n:]):
        # fget_param's indices are those of main's weights when LazyGetInput ran: a prim weight
        # a pass bound away before it (BindSymbolicVars) is not among them.
        dropped = tuple(gone)
        if not _getter_counts(main, [p for k, p in enumerate(before_main.params) if k >= n and k not in dropped]):
            return None
    before_params = [p for k, p in enumerate(before_main.params) if k not in dropped]
    n -= sum(k < n for k in dropped)
    inputs = 0 if lazy_all else None
    if _types(main.params[:n], symbols) != _types(before_params[:n], symbols):
        return None
    slots = tuple(_slot(p) for p in main.params[n:])
    if transform is not None and _takes_each_output(optimized[transform], main.params[n:], symbols):
        slots = ("tensor",) * len(slots)  # a lifted tuple (`lv = (w,)`) is one output, not the bundle
    if None in slots or slots.count("tuple") + slots.count("getter") > 1 or slots.count("setter") > 1:
        return None
    bundled = "tuple" in slots or "getter" in slots
    if transform is None and slots.count("tensor") not in ((0,) if bundled else (0, len(before_params) - n)):
        return None  # weights neither all passed, nor all bound into the module (BindParams)
    lazy = transform is not None and len(optimized[transform].params) == 0
    if transform is not None and not lazy:
        first = optimized[transform].params[0].ty
        if not isinstance(first, relax.TupleType) or "getter" in slots or "setter" in slots or (
                not _tuple_fields(first) and len(before_params) > n):
            # LazyGetInput or LazySetOutput ran before or after lifting and moved the weights or
            # outputs of main or of the transform into callbacks: composing those conventions
            # needs the pass-by-pass history, which is not tracked, so nothing is compared.
            return None
    weights = str(relax.TupleType([p.ty for p in before_params[n:]]))
    wrap = _nesting(optimized[transform].params[0].ty, weights) if transform is not None and not lazy else 0
    bundle = str(optimized[transform].ret_ty) if transform is not None else weights
    tuple_wrap = next((_nesting(p.ty, bundle) for p, slot in zip(main.params[n:], slots) if slot == "tuple"), 0)
    plain_weights = set(slots) <= {"tensor"} and (transform is not None or slots)
    return Adapter(transform, lazy, None if plain_weights else slots, wrap, tuple_wrap, inputs,
                   dropped=dropped)

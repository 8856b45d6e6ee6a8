"""Pass contracts: when TVM's own source says a pass may run, and on what.

A finding is a TVM bug only when every pass ran inside its contract. A contract has two parts,
both read off TVM 0.27's source and cited in the pass catalogue (``PassInfo.source``):

- **Where in the pipeline.** A module moves through phases in TVM's pipelines
  (``relax/pipeline.py`` and ``relax/backend/*/pipeline.py``): high-level Relax, then legalized
  (after LegalizeOps: ``call_tir`` to PrimFuncs, still in dataflow blocks), then lowering (from
  ToNonDataflow on: VM-level rewrites), then final (after AttachGlobalSymbol, the build's last
  pass). A pass is valid in the phases ``PassInfo.phases`` names, after the passes
  ``PassInfo.requires`` names; a pass with ``PassInfo.enters`` moves the module on. Checked on
  the pass list alone (``sequence_violation``).
- **What it accepts.** Preconditions on the module a pass receives, from its docstring and the
  checks in its source (ToMixedPrecision assumes an fp32-only module; SplitLayoutRewritePreproc
  asserts that every PrimFunc body is a root block). Checked on the module right before the pass
  runs, inside the child that runs it (``module_violation``).

A sequence a user names that breaks a contract still runs, with one warning; what it yields is
saved apart as outside-contract and never counted as a bug. Drawn sequences are put inside the
contracts (``arrange``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import tvm
from tvm import relax

from .catalogue import CATALOGUE, PHASES, info, with_prerequisites
from .names import PassSpec


def sequence_violation(passes: Sequence[PassSpec]) -> str:
    """'' when every pass runs in a phase its contract allows and after what it requires; else one
    line naming the first contract broken."""
    phase, ran = 0, []
    for spec in passes:
        pass_info = info(spec)
        missing = [name for name in pass_info.requires if name not in ran]
        if missing:
            return f"{spec.text} needs {', '.join(missing)} to have run first ({_cited(pass_info)})"
        if PHASES[phase] not in pass_info.phases:
            after = f" (after {ran[-1]})" if ran else ""
            return (f"{spec.text} belongs to the {'/'.join(pass_info.phases)} phase of TVM's pipelines, but runs "
                    f"here on a {PHASES[phase]} module{after} ({_cited(pass_info)})")
        if pass_info.enters is not None:
            phase = max(phase, PHASES.index(pass_info.enters))
        ran.append(spec.name)
    return ""


def _cited(pass_info) -> str:
    """The first source a pass's contract cites, for a one-line message (``passfuzz passes
    --sources`` prints them all)."""
    return pass_info.source.split("; ")[0]


def arrange(passes: Sequence[PassSpec]) -> list[PassSpec]:
    """A drawn sequence put inside the contracts: passes ordered by the phase they belong to (stably,
    so a drawn order inside one phase stays), their prerequisites inserted, and any pass that would
    still break its phase contract left out. Deterministic, so a drawn sequence still shrinks."""
    keys, key = [], (0, 0)
    for spec in passes:
        if spec.name in CATALOGUE:  # a pass without a known contract keeps its place after the one before it
            pass_info = info(spec)
            first = min(PHASES.index(p) for p in pass_info.phases)
            key = (first, PHASES.index(pass_info.enters) if pass_info.enters is not None else first)
        keys.append(key)
    ordered = [spec for _, _, spec in sorted(zip(keys, range(len(passes)), passes))]
    kept: list[PassSpec] = []
    for spec in with_prerequisites(ordered):
        if not sequence_violation(kept + [spec]):
            kept.append(spec)
    return kept


# -- preconditions on the module a pass receives ---------------------------------------------

def _relax_functions(mod: tvm.IRModule):
    return [(gv, f) for gv, f in mod.functions.items() if isinstance(f, relax.Function)]


def _tensor_types(func: relax.Function) -> list:
    """Every tensor type of a parameter, binding or result in ``func`` (tuples unpacked)."""
    found = []

    def collect(ty) -> None:
        if isinstance(ty, relax.TensorType):
            found.append(ty)
        elif isinstance(ty, relax.TupleType):
            for field in ty.fields:
                collect(field)

    for var in [*func.params, *_nodes(func, relax.Var)]:
        collect(var.ty)
    return found


def _float32_only(mod: tvm.IRModule) -> str:
    for gv, func in _relax_functions(mod):
        for dtype in (str(ty.dtype) for ty in _tensor_types(func)):
            if dtype.startswith(("float", "bfloat")) and dtype != "float32":
                return f"{gv.name_hint} holds a {dtype} tensor"
    # Integer tensors are in the contract, kAlways ops (matmul, conv) included: "fp32 only" is about
    # the floats, the pass leaves integer tensors alone on purpose (to_mixed_precision.cc:318-321), and
    # its forcing an integer matmul to float32 is a fault (corpus/faults/to-mixed-precision-int-matmul-
    # forced-float32.json, after apache/tvm#17254), not a misuse.
    return ""


def _nodes(func: relax.Function, kind) -> list:
    """Every expression of type ``kind`` in ``func``'s body, nested functions and branches included."""
    found = []
    relax.analysis.post_order_visit(func.body, lambda e: found.append(e) if isinstance(e, kind) else None)
    return found


def _calls(func: relax.Function) -> list:
    return _nodes(func, relax.Call)


def _primfunc_root_block(mod: tvm.IRModule) -> str:
    for gv, func in mod.functions.items():
        if isinstance(func, tvm.tirx.PrimFunc) and not isinstance(func.body, tvm.s_tir.stmt.SBlockRealize):
            return f"the body of PrimFunc {gv.name_hint} is a {type(func.body).__name__}, not a root block"
    return ""


def _is_public(func) -> bool:
    return isinstance(func, relax.Function) and func.attrs is not None and "global_symbol" in func.attrs


def _public_functions_not_called(mod: tvm.IRModule) -> str:
    for gv, func in _relax_functions(mod):
        for callee in relax.analysis.all_global_vars(func):
            if callee.name_hint in {g.name_hint for g in mod.functions} and _is_public(mod[callee]):
                return f"{gv.name_hint} calls the public function {callee.name_hint}"
    return ""


def _no_dataflow_blocks(mod: tvm.IRModule) -> str:
    for gv, func in _relax_functions(mod):
        if any(isinstance(block, relax.DataflowBlock) for seq in _nodes(func, relax.SeqExpr) for block in seq.blocks):
            return f"{gv.name_hint} has a dataflow block"
    return ""


def _purity_removed(mod: tvm.IRModule) -> str:
    for gv, func in _relax_functions(mod):
        if func.is_pure and not (func.attrs is not None and func.attrs.get("relax.force_pure")):
            return f"{gv.name_hint} is pure and not force_pure"
    return ""


def _no_builtin_alloc_tensor(mod: tvm.IRModule) -> str:
    for gv, func in _relax_functions(mod):
        if any(isinstance(c.op, tvm.ir.Op) and c.op.name == "relax.builtin.alloc_tensor" for c in _calls(func)):
            return f"{gv.name_hint} still calls relax.builtin.alloc_tensor"
    return ""


def _no_local_functions(mod: tvm.IRModule) -> str:
    for gv, func in _relax_functions(mod):
        if _nodes(func, relax.Function):
            return f"{gv.name_hint} defines a local function"
    return ""


def _gradient_target(mod: tvm.IRModule) -> str:
    func = mod["main"] if "main" in {gv.name_hint for gv in mod.functions} else None
    if not isinstance(func, relax.Function):
        return "there is no Relax function main"
    blocks = func.body.blocks
    if len(blocks) != 1 or not isinstance(blocks[0], relax.DataflowBlock):
        return "main's body is not exactly one dataflow block"
    target = func.body.body.ty
    if not (isinstance(target, relax.TensorType) and target.ndim == 0 and str(target.dtype).startswith("float")):
        return "main's result is not a 0-d float tensor"
    return ""


def _batch_norm_in_mode(training: bool) -> Callable[[tvm.IRModule], str]:
    """batch_norm computes with batch statistics in training mode and with its moving statistics in
    inference mode; DecomposeOpsForTraining and DecomposeOpsForInference each select one mode whatever
    the op's ``training`` attribute says (relax/op/nn/nn.py:1681-1685), so each preserves results only
    for batch_norms already in its mode."""
    mode = "training" if training else "inference"

    def check(mod: tvm.IRModule) -> str:
        for gv, func in _relax_functions(mod):
            for call in _calls(func):
                if isinstance(call.op, tvm.ir.Op) and call.op.name == "relax.nn.batch_norm" \
                        and bool(call.attrs.training) != training:
                    return f"{gv.name_hint} has a batch_norm not in {mode} mode (training={bool(call.attrs.training)})"
        return ""
    return check


# The attributes in which an op names its tensors' layouts (conv*, pools, resize2d): an upper-case
# letter is an axis, a digit and a lower-case letter its packed inner part (NCHW4c).
_LAYOUT_ATTRIBUTES = ("layout", "data_layout", "kernel_layout", "out_layout")


def _unpacked_layouts_in_dataflow(mod: tvm.IRModule) -> str:
    """ConvertLayout reads each op it visits (every binding of a dataflow block) in the op's own
    unpacked layout: a packed one is 'Unsupported initial layout' for a pool (pooling.cc:270) and
    read as a 4-D layout by conv2d's rule (convolution.cc:350-398, InitialLayout(4))."""
    for gv, func in _relax_functions(mod):
        for seq in _nodes(func, relax.SeqExpr):
            for block in seq.blocks:
                if not isinstance(block, relax.DataflowBlock):
                    continue
                for binding in block.bindings:
                    call = binding.value
                    if not (isinstance(call, relax.Call) and isinstance(call.op, tvm.ir.Op) and call.attrs is not None):
                        continue
                    for field in _LAYOUT_ATTRIBUTES:
                        layout = str(getattr(call.attrs, field, None) or "")
                        if any(not c.isupper() for c in layout):
                            return f"{gv.name_hint} has a {call.op.name} with {field} {layout} in a dataflow block"
    return ""


def _lifted_together(spec: PassSpec):
    """Which functions LiftTransformParams lifts into one shared transform, as a test on (name,
    function); None when it is called without ``shared_transform`` and lifts each one apart. A list
    of names picks those; True or an empty list, every function with ``num_input`` not named
    ``*transform_params`` (lift_transform_params.cc:673-720, GetTargetFunctions)."""
    shared = dict(spec.kwargs).get("shared_transform", spec.args[0] if spec.args else False)
    if isinstance(shared, (list, tuple)) and shared:
        return lambda name, func: name in shared
    if shared is True or isinstance(shared, (list, tuple)):
        return lambda name, func: ("num_input" in (func.attrs or {})) and not name.endswith("transform_params")
    return None


def _no_match_cast_in_shared_lifting(mod: tvm.IRModule, spec: PassSpec) -> str:
    lifted = _lifted_together(spec)
    if lifted is None:
        return ""
    for gv, func in _relax_functions(mod):
        bindings = [b for seq in _nodes(func, relax.SeqExpr) for block in seq.blocks for b in block.bindings]
        if lifted(gv.name_hint, func) and any(isinstance(b, relax.MatchCast) for b in bindings):
            return f"{gv.name_hint} binds a match_cast"
    return ""


def _binds_its_parameters(mod: tvm.IRModule, spec: PassSpec) -> str:
    """BindParams(func_name, params) as called: every name it binds is a parameter of the function
    (bind_params.cc:48-56 refuses the rest). A second BindParams of the program's weights finds
    them bound already."""
    if len(spec.args) < 2 or not isinstance(spec.args[1], dict):
        return ""  # no arguments: it binds the program's own weights, known once the program is
    func_name, params = spec.args[0], spec.args[1]
    if func_name not in {gv.name_hint for gv in mod.functions}:
        return f"the module has no function {func_name}"
    have = {param.name for param in mod[func_name].params}
    missing = [name for name in params if isinstance(name, str) and name not in have]
    return f"{func_name} has no parameter {', '.join(missing)}" if missing else ""


def _binds_its_symbolic_vars(mod: tvm.IRModule, spec: PassSpec) -> str:
    """BindSymbolicVars(binding_map, func_name=None) as called: every name it binds is a symbolic
    variable some Relax function defines (bind_symbolic_vars.cc:141-149 refuses the rest). A second
    BindSymbolicVars of the program's variables finds them bound already."""
    if not spec.args or not isinstance(spec.args[0], dict):
        return ""  # no arguments: it binds the program's own variables, known once the program is
    functions = _relax_functions(mod)
    if len(spec.args) > 1 and spec.args[1]:
        functions = [(gv, func) for gv, func in functions if gv.name_hint == spec.args[1]]
    defined = {var.name for _, func in functions for var in relax.analysis.defined_symbolic_vars(func)}
    missing = [name for name in spec.args[0] if isinstance(name, str) and name not in defined]
    return f"no function defines the symbolic variable {', '.join(missing)}" if missing else ""


def _on_module(check: Callable[[tvm.IRModule], str]) -> Callable[[tvm.IRModule, PassSpec], str]:
    """A precondition that depends on the module alone, whatever the pass's arguments."""
    return lambda mod, _spec: check(mod)


# key -> (what the contract says, the check of the module the pass receives and the pass as it was
# called: '' when they satisfy it, else what breaks it)
PRECONDITIONS: dict[str, tuple[str, Callable[[tvm.IRModule, PassSpec], str]]] = {
    "float32_only": ("assumes an fp32-only module (every float tensor float32)",
                     _on_module(_float32_only)),
    "primfunc_root_block": ("asserts every PrimFunc body is a root block", _on_module(_primfunc_root_block)),
    "public_functions_not_called": ("rewrites every public function and not their callers: meant for a "
                                    "standalone function", _on_module(_public_functions_not_called)),
    "no_dataflow_blocks": ("expects no dataflow blocks (ToNonDataflow ran)", _on_module(_no_dataflow_blocks)),
    "purity_removed": ("expects impure or force_pure functions (RemovePurityChecking ran)", _on_module(_purity_removed)),
    "no_builtin_alloc_tensor": ("rejects relax.builtin.alloc_tensor (LowerAllocTensor lowers it first)",
                                _on_module(_no_builtin_alloc_tensor)),
    "no_local_functions": ("rejects local functions (LambdaLift lifts them first)", _on_module(_no_local_functions)),
    "gradient_target": ("differentiates one dataflow block ending in a 0-d float target", _on_module(_gradient_target)),
    "no_match_cast_when_shared": ("with shared_transform, rejects any match_cast in the functions it lifts "
                                  "('MatchCast is not supported in global lifting')",
                                  _no_match_cast_in_shared_lifting),
    "batch_norm_training_mode": ("computes batch_norm in training mode (batch statistics)",
                                 _on_module(_batch_norm_in_mode(True))),
    "batch_norm_inference_mode": ("computes batch_norm in inference mode (moving statistics)",
                                  _on_module(_batch_norm_in_mode(False))),
    "binds_its_parameters": ("binds parameters the function has (a name it lacks is an error)",
                             _binds_its_parameters),
    "unpacked_layouts": ("infers layouts from each op's unpacked layout (a packed one: 'Unsupported initial layout')",
                         _on_module(_unpacked_layouts_in_dataflow)),
    "binds_its_symbolic_vars": ("binds symbolic variables the module defines (a name none defines is an error)",
                                _binds_its_symbolic_vars),
}


@dataclass(frozen=True)
class Generation:
    """What programs drawn for named passes keep clear of, so that the passes' inputs stay inside
    their preconditions; a precondition not in ``_KEPT_BY_GENERATION`` is met by construction (or
    left to the check, which saves what breaks it apart)."""

    dtypes: tuple[str, ...] | None = None  # the dtypes parameters and constants are drawn in; None: any
    left_out: tuple[str, ...] = ()  # catalogue ops never drawn
    match_cast: bool = True  # may the module bind a match_cast (strategies.relax_programs(match_cast=))

    def __and__(self, other: "Generation") -> "Generation":
        dtypes = self.dtypes if other.dtypes is None else other.dtypes if self.dtypes is None else \
            tuple(d for d in self.dtypes if d in other.dtypes)
        return Generation(dtypes, tuple(dict.fromkeys(self.left_out + other.left_out)),
                          self.match_cast and other.match_cast)


# precondition key -> how generation keeps it for the pass as called. float32_only: what a drawn op
# computes in another dtype is still checked. The batch_norm modes are two catalogue ops.
_KEPT_BY_GENERATION: dict[str, Callable[[PassSpec], Generation]] = {
    "float32_only": lambda spec: Generation(dtypes=("float32",)),
    "batch_norm_training_mode": lambda spec: Generation(left_out=("batch_norm",)),
    "batch_norm_inference_mode": lambda spec: Generation(left_out=("batch_norm_training",)),
    "no_match_cast_when_shared": lambda spec: Generation(match_cast=_lifted_together(spec) is None),
}


def generation(passes: Sequence[PassSpec]) -> Generation:
    """How to draw programs that every pass of ``passes`` receives inside its preconditions."""
    kept = Generation()
    for spec in passes:
        for key in info(spec).preconditions:
            if key in _KEPT_BY_GENERATION:
                kept = kept & _KEPT_BY_GENERATION[key](spec)
    return kept


def module_violation(spec: PassSpec, mod: tvm.IRModule) -> str:
    """'' when ``mod`` is an input ``spec``'s contract accepts; else one line naming the precondition."""
    pass_info = info(spec)
    for key in pass_info.preconditions:
        says, check = PRECONDITIONS[key]
        problem = check(mod, spec)
        if problem:
            return f"{spec.text} {says} ({_cited(pass_info)}), but {problem}"
    return ""

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

from typing import Callable, Sequence

import tvm
from tvm import relax

from .pass_catalogue import CATALOGUE, PHASES, info, with_prerequisites
from .passes import PassSpec


def sequence_violation(passes: Sequence[PassSpec]) -> str:
    """'' when every pass runs in a phase its contract allows and after what it requires; else one
    line naming the first contract broken."""
    phase, ran = 0, []
    for spec in passes:
        pass_info = info(spec)
        missing = [name for name in pass_info.requires if name not in ran]
        if missing:
            return f"{spec.text} needs {', '.join(missing)} to have run first ({pass_info.source})"
        if PHASES[phase] not in pass_info.phases:
            after = f" (after {ran[-1]})" if ran else ""
            return (f"{spec.text} belongs to the {'/'.join(pass_info.phases)} phase of TVM's pipelines, but runs "
                    f"here on a {PHASES[phase]} module{after} ({pass_info.source})")
        if pass_info.enters is not None:
            phase = max(phase, PHASES.index(pass_info.enters))
        ran.append(spec.name)
    return ""


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

    for param in func.params:
        collect(param.ty)
    relax.analysis.post_order_visit(func.body, lambda e: collect(e.ty) if isinstance(e, relax.Var) else None)
    return found


def _float32_only(mod: tvm.IRModule) -> str:
    for gv, func in _relax_functions(mod):
        for ty in _tensor_types(func):
            if ty.dtype != "float32":
                return f"{gv.name_hint} holds a {ty.dtype} tensor"
    return ""


def _prim_func_bodies_are_root_blocks(mod: tvm.IRModule) -> str:
    for gv, func in mod.functions.items():
        if isinstance(func, tvm.tirx.PrimFunc) and not isinstance(func.body, tvm.s_tir.stmt.SBlockRealize):
            return f"the body of PrimFunc {gv.name_hint} is a {type(func.body).__name__}, not a root block"
    return ""


def _one_public_function(mod: tvm.IRModule) -> str:
    public = sorted(gv.name_hint for gv, func in _relax_functions(mod) if func.attrs is not None
                    and "global_symbol" in func.attrs)
    return "" if len(public) <= 1 else f"it has {len(public)} public Relax functions ({', '.join(public)})"


# key -> (what the contract says, the check: '' when the module satisfies it, else what breaks it)
PRECONDITIONS: dict[str, tuple[str, Callable[[tvm.IRModule], str]]] = {
    "float32_only": ("assumes an fp32-only module", _float32_only),
    "root_block_prim_funcs": ("asserts every PrimFunc body is a root block", _prim_func_bodies_are_root_blocks),
    "one_public_function": ("rewrites every public function: meant for one standalone function",
                            _one_public_function),
}


def generation_dtypes(passes: Sequence[PassSpec]) -> tuple[str, ...] | None:
    """The dtypes to draw parameters and constants in so that the passes' inputs stay inside
    their contracts (None: any); what a drawn op computes in another dtype is still checked."""
    if any("float32_only" in info(spec).preconditions for spec in passes):
        return ("float32",)
    return None


def module_violation(spec: PassSpec, mod: tvm.IRModule) -> str:
    """'' when ``mod`` is an input ``spec``'s contract accepts; else one line naming the precondition."""
    pass_info = info(spec)
    for key in pass_info.preconditions:
        says, check = PRECONDITIONS[key]
        problem = check(mod)
        if problem:
            return f"{spec.text} {says} ({pass_info.source}), but {problem}"
    return ""

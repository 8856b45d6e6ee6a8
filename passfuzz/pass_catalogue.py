"""What passfuzz knows about each pass of ``tvm.relax.transform`` (TVM 0.27, CPU build).

For every pass: the level it works at, the passes it needs to have run first (inserted
automatically, and listed in the reproducer), whether it changes how ``main`` is called, the
extra float tolerance a deliberate precision change needs, whether ``well_formed`` still holds
after it, and, if it cannot be fuzzed here, why. ``passfuzz passes`` prints this table.
Facts come from a survey of every pass on this TVM (see the project's reference notes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .passes import PROGRAM_ARGUMENTS, PassSpec, builtin_pass_names


@dataclass(frozen=True)
class PassInfo:
    name: str
    level: str = "high-level"  # high-level | legalized | lowering | any
    requires: tuple[str, ...] = ()  # run first when not already earlier in the list
    convention: str = "same"  # how main is called afterwards: see passfuzz.calling
    rtol: float | None = None  # float tolerance for a deliberate precision change
    well_formed_after: bool = True  # lowering passes leave modules well_formed rejects, yet valid
    skip: str = ""  # why it cannot be fuzzed here ("" = it can)
    notes: str = ""
    default_args: str = ""  # the arguments a bare name stands for: Gradient is Gradient('main')


_LEGALIZED = ("LegalizeOps",)
_ANNOTATED = ("LegalizeOps", "AnnotateTIROpPattern")

_ENTRIES = [
    PassInfo("AdjustMatmulOrder", notes="reassociates matmul chains (float rounding only)"),
    PassInfo("AllocateWorkspace", "any"),
    PassInfo("AnnotateTIROpPattern", "legalized", _LEGALIZED),
    PassInfo("AttachAttrLayoutFreeBuffers", "any"),
    PassInfo("AttachGlobalSymbol", "any"),
    PassInfo("BindParams", "any", convention="weights bound into the module: main(inputs)",
             notes="without arguments: " + PROGRAM_ARGUMENTS["BindParams"]),
    PassInfo("BindSymbolicVars", "any", convention="same call; symbolic shapes specialized to the arguments'",
             notes="without arguments: " + PROGRAM_ARGUMENTS["BindSymbolicVars"]),
    PassInfo("BundleModelParams", "any", convention="weights bundled in one tuple"),
    PassInfo("CallTIRRewrite", "lowering", _LEGALIZED, well_formed_after=False),
    PassInfo("CanonicalizeBindings", "any"),
    PassInfo("CombineParallelMatmul"),
    PassInfo("ComputePrimValue", "any"),
    PassInfo("ConvertToDataflow", "any"),
    PassInfo("DataflowUseInplaceCalls"),
    PassInfo("DeadCodeElimination", "any"),
    PassInfo("DecomposeOpsForInference"),
    PassInfo("DecomposeOpsForTraining",
             notes="decomposes batch_norm(training=False) with batch statistics; no drawn op is affected"),
    PassInfo("EliminateCommonSubexpr", "any"),
    PassInfo("ExpandMatmulOfSum", notes="reassociates matmul of a sum (float rounding only)"),
    PassInfo("ExpandTupleArguments", "any"),
    PassInfo("FastMathTransform", rtol=1e-3, notes="fast approximations of exp, tanh, erf, softmax"),
    PassInfo("FoldBatchnormToConv2D"),
    PassInfo("FoldConstant", "any"),
    PassInfo("FuseOps", "legalized", _ANNOTATED),
    PassInfo("FuseTIR", "legalized", _ANNOTATED + ("FuseOps",)),
    PassInfo("FuseTransposeMatmul"),
    PassInfo("InlinePrivateFunctions", "any"),
    PassInfo("KillAfterLastUse", "lowering", well_formed_after=False),
    PassInfo("LambdaLift", "any"),
    PassInfo("LazyGetInput", "any", convention="weights fetched through fget_param(index, name)"),
    PassInfo("LazySetOutput", "any", convention="outputs delivered through fset_output(index, value)",
             well_formed_after=False),
    PassInfo("LazyTransformParams", "any", ("LiftTransformParams", "ToNonDataflow", "RemovePurityChecking"),
             convention="main_transform_params() reads weights with get_item, writes with set_item"),
    PassInfo("LegalizeOps", "any"),
    PassInfo("LiftTransformParams", "any", convention="main_transform_params(weights), then main(inputs, ...)"),
    PassInfo("LowerAllocTensor", "lowering"),
    PassInfo("LowerGPUIPCAllocStorage", "lowering"),
    PassInfo("LowerRuntimeBuiltin", "lowering", ("LowerAllocTensor",), well_formed_after=False,
             notes="rejects relax.builtin.alloc_tensor: LowerAllocTensor must lower it first"),
    PassInfo("MergeCompositeFunctions", skip="needs composite functions from FuseOpsByPattern and an external "
                                             "codegen to compile"),
    PassInfo("Normalize", "any"),
    PassInfo("NormalizeGlobalVar", "any"),
    PassInfo("OptimizeLayoutTransform", "legalized", _LEGALIZED),
    PassInfo("RealizeVDevice", "any"),
    PassInfo("RemovePurityChecking", "any"),
    PassInfo("RemoveRedundantReshape"),
    PassInfo("RemoveUnusedOutputs", "any"),
    PassInfo("RemoveUnusedParameters", "any"),
    PassInfo("ReorderPermuteDimsAfterConcat"),
    PassInfo("ReorderTakeAfterMatmul"),
    PassInfo("RewriteCUDAGraph", "lowering"),
    PassInfo("RewriteDataflowReshape", "legalized", _LEGALIZED),
    PassInfo("RunCodegen", "any", notes="without external codegens it only removes dead code"),
    PassInfo("SpecializePrimFuncBasedOnCallSite", "legalized", _LEGALIZED),
    PassInfo("SplitLayoutRewritePreproc", "any"),
    PassInfo("StaticPlanBlockMemory", "lowering"),
    PassInfo("ToMixedPrecision", rtol=2e-2, notes="computes in float16 on purpose"),
    PassInfo("ToNonDataflow", "any"),
    PassInfo("TopologicalSort", "any"),
    PassInfo("VMBuiltinLower", "lowering", ("LowerAllocTensor",), well_formed_after=False,
             notes="rejects relax.builtin.alloc_tensor: LowerAllocTensor must lower it first"),
    PassInfo("VMShapeLower", "lowering", well_formed_after=False),
    # Passes that need arguments passfuzz cannot make up, or hardware this build lacks.
    PassInfo("AlterOpImpl", skip="needs replacement PrimFuncs and layout maps as arguments"),
    PassInfo("AttachExternModules", skip="needs external runtime modules as arguments"),
    PassInfo("ConvertLayout", notes="needs its layouts: ConvertLayout({'relax.nn.conv2d': ['NHWC', 'OHWI']}); "
                                    "rewrites the drawn conv2d ops"),
    PassInfo("FuseOpsByPattern", skip="needs dataflow patterns as arguments"),
    PassInfo("Gradient", convention="adds main_adjoint(params) -> (loss, (gradients...)); main unchanged",
             default_args="'main'",
             notes="own oracle (passfuzz.gradient): programs are loss programs (float32, smooth ops with a "
                   "registered gradient, one 0-d output); their float64 twin's gradients are compared with "
                   "central differences of numpy's float64 loss, step 1e-4, allowed error |D(2h)-D(h)| "
                   "(truncation) + noise/h (rounding; noise = 1e-14 x largest static bound x (nodes+1)) + "
                   "1e-6 relative + 1e-8 of the largest gradient. Not in the random pool: it needs loss "
                   "programs, which every other pass would then be fuzzed on too"),
    PassInfo("IPCAllReduceRewrite", skip="multi-GPU collective communication only"),
    PassInfo("MetaScheduleApplyDatabase", skip="needs a tuning database and a target context"),
    PassInfo("MetaScheduleTuneIRMod", skip="runs MetaSchedule tuning (needs a work directory and trials)"),
    PassInfo("MetaScheduleTuneTIR", skip="runs MetaSchedule tuning (needs a work directory and trials)"),
    PassInfo("SplitCallTIRByPattern", skip="needs TIR patterns and a fcodegen callback as arguments"),
    PassInfo("UpdateParamType", skip="needs the new parameter types as arguments"),
    PassInfo("UpdateVDevice", skip="needs a virtual device and its index as arguments"),
]

CATALOGUE: dict[str, PassInfo] = {info.name: info for info in _ENTRIES}
assert len(CATALOGUE) == len(_ENTRIES), "a pass is listed twice"


def info(spec: PassSpec) -> PassInfo:
    """What is known of ``spec``; a custom pass is assumed to keep the calling convention."""
    return CATALOGUE.get(spec.name, PassInfo(spec.name, "any", notes="not in the catalogue"))


def with_prerequisites(passes: list[PassSpec]) -> list[PassSpec]:
    """``passes`` with each pass's prerequisites inserted before it, unless they ran already."""
    expanded: list[PassSpec] = []
    for spec in passes:
        for name in info(spec).requires:
            if not any(p.name == name for p in expanded):
                expanded.append(PassSpec(name))
        expanded.append(spec)
    return expanded


def sequence_allowed(passes: Sequence[PassSpec]) -> bool:
    """Whether ``passes`` is a sequence passfuzz may run as it stands: every pass finds what it
    needs already run before it. The reducer asks this of every shorter pass list it tries, so
    that dropping a pass never leaves another without its prerequisite."""
    for index, spec in enumerate(passes):
        earlier = {p.name for p in passes[:index]}
        if not set(info(spec).requires) <= earlier:
            return False
    return True


def fuzzable_pool() -> list[str]:
    """Every pass that can be fuzzed here without arguments (the default --pass-pool), except
    Gradient (it needs loss programs and its own oracle, see passfuzz.gradient) and the
    lowering passes: they belong to the build pipeline and assume its order (LowerRuntimeBuiltin
    fails on an alloc_tensor that CallTIRRewrite created after LowerAllocTensor ran), so in
    random sequences they produce precondition violations, not bugs. Name them to fuzz them."""
    return [name for name in builtin_pass_names()
            if name in CATALOGUE and not CATALOGUE[name].skip and CATALOGUE[name].level != "lowering"
            and name not in ("ConvertLayout", "Gradient")]


def uncatalogued() -> list[str]:
    """Passes of the installed TVM that the catalogue does not know (a newer TVM)."""
    return [name for name in builtin_pass_names() if name not in CATALOGUE]

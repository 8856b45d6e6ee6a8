"""What passfuzz knows about each pass of ``tvm.relax.transform`` (TVM 0.27, CPU build).

For every pass: its contract (the pipeline phases it is meant for, the passes that must have run
first, inserted automatically and listed in the reproducer, the phase it moves the module to, the
preconditions on its input; passfuzz.passes.contracts checks them), whether it changes how ``main`` is
called, the extra float tolerance a deliberate precision change needs, whether ``well_formed``
still holds after it, and, if it cannot be fuzzed here, why. ``passfuzz passes`` prints this table.
What each pattern-rewriting pass branches on (operand forms, attributes, ranks, dtypes, with the
source lines) is its companion, ``passfuzz.passes.variants``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .names import PROGRAM_ARGUMENTS, PassSpec, builtin_pass_names

# The phases a module goes through in TVM's pipelines (passfuzz.passes.contracts explains them).
PHASES = ("high-level", "legalized", "lowering", "final")


@dataclass(frozen=True)
class PassInfo:
    name: str
    phases: tuple[str, ...] = ("high-level",)  # the phases of TVM's pipelines it is meant to run in
    requires: tuple[str, ...] = ()  # must have run first (inserted when not already earlier in the list)
    enters: str | None = None  # the phase the module is in after it, when it moves the module on
    preconditions: tuple[str, ...] = ()  # what it accepts of its input module (passfuzz.passes.contracts.PRECONDITIONS)
    source: str = ""  # where TVM's source states its contract
    convention: str = "same"  # how main is called afterwards: see passfuzz.run.calling
    rtol: float | None = None  # float tolerance for a deliberate precision change
    well_formed_after: bool = True  # lowering passes leave modules well_formed rejects, yet valid
    skip: str = ""  # why it cannot be fuzzed here ("" = it can)
    # Where its users run it, when that is right after a partner pass that makes its input (its
    # ``requires``, inserted as PREREQUISITE_CALLS says); a run says so at its start.
    partner: str = ""
    notes: str = ""
    # The catalogue ops (passfuzz.ir.catalogue.BY_NAME names) its match looks for, which --focus auto
    # spends most programs on; () when it looks at every op (or none): no focus. Set in MATCHES.
    matches: tuple[str, ...] = ()
    matches_source: str = ""  # where its source names those ops
    # Why it may change its own output again, with the source: "" when applying it twice must give
    # what applying it once gave (passfuzz.judge.observations checks the passes that are so).
    not_idempotent: str = ""
    # Where the probe (passfuzz.reach.probe.against_catalogue) disagrees with ``matches``, and why:
    # (``-op`` listed but never seen fire, ``+op`` seen but not listed, ``*`` changes most ops; the
    # reason, with the TVM source line). Set in PROBE_NOTES.
    probe_notes: tuple[tuple[str, str], ...] = ()


# Contracts (phases, requires, enters, preconditions) are read off TVM 0.27's source; ``source`` cites
# it: "py:" the installed Python package, "cc:"/"test:" apache/tvm's C++ and tests/python/relax at
# v0.27.dev0-35 (5d4dc87213; the wheel ships no C++). Where the source does not settle a point,
# the citation says "unsure" and why.
_ENTRIES = [
    PassInfo('AdjustMatmulOrder',
             phases=('high-level',),
             notes='reassociates matmul chains (float rounding only)',
             source='py:relax/transform/transform.py:1464-1478 (docstring: reorder x*(A*B), LoRA); cc:src/relax/transform/adjust_matmul_order.cc:308-310 (RewriteCall, CreateFunctionPass); cc:src/relax/ir/dataflow_expr_rewriter.cc:928-960 (non-dataflow blocks: pure bindings are collected and rewritten); not in any TVM pipeline; test:test_transform_adjust_matmul_order.py (high-level ops, num_input attr); unsure: phase inferred from the ops it matches and its tests; no pipeline runs it'),
    PassInfo('AllocateWorkspace',
             phases=('high-level',),
             source='py:relax/transform/transform.py:1572-1584; py:relax/backend/cuda/cutlass.py:614-618 and py:relax/backend/cuda/cudnn.py:158-160 (right after FuseOpsByPattern, before legalization); cc:src/relax/transform/allocate_workspace.cc:203-205'),
    PassInfo('AnnotateTIROpPattern',
             phases=('legalized',),
             requires=('LegalizeOps',),
             source='py:relax/pipeline.py:66; py:relax/backend/cpu_generic/pipeline.py:35; cc:src/relax/transform/annotate_tir_op_pattern.cc:48 (PrimFunc pass)'),
    PassInfo('AttachAttrLayoutFreeBuffers',
             phases=('legalized',),
             requires=('LegalizeOps', 'FuseOps', 'FuseTIR'),
             source="py:relax/pipeline.py:174,189-190 (after zero_pipeline = LegalizeOps..FuseTIR, before MetaScheduleTuneIRMod); py:relax/transform/transform.py:978-992 ('we recommend applying CanonicalizeBindings before'); cc:src/relax/transform/attach_attr_layout_free_buffers.cc:51-57,104-108"),
    PassInfo('AttachGlobalSymbol',
             phases=('high-level', 'legalized', 'lowering'),
             enters='final',
             source="py:relax/pipeline.py:101 (last pass of default_build_pipeline); py:relax/backend/cpu_generic/pipeline.py:61; gpu_generic/pipeline.py:70; cuda/pipeline.py:71; py:s_tir/meta_schedule/relax_integration.py:462; py:relax/transform/transform.py:633-640 ('for codegen'); cc:src/relax/transform/attach_global_symbol.cc:138-184; test:test_transform_attach_global_symbol.py (call_tir, non-dataflow inputs); unsure: every pipeline runs it last, after VMShapeLower; nothing in its code needs the earlier lowering passes, so 'after' is empty; what matters is that nothing follows it (ORDER_RULES['final_is_last'])"),
    PassInfo('BindParams',
             phases=('high-level', 'legalized'),
             preconditions=('binds_its_parameters',),
             convention='weights bound into the module: main(inputs)',
             notes="without arguments: " + PROGRAM_ARGUMENTS["BindParams"],
             source='py:relax/transform/transform.py:643-671; cc:src/relax/transform/bind_params.cc:48-56 (NormalizeBindings: a name the function has no parameter of is an error); py:relax/frontend/torch/exported_program_translator.py:2342 (frontend output, high-level); cc:src/relax/transform/bind_params.cc:153; unsure: legalized inputs not shown by a pipeline; test_transform_bind_params.py has one call_tir case'),
    PassInfo('BindSymbolicVars',
             phases=('high-level', 'legalized'),
             preconditions=('binds_its_symbolic_vars',),
             convention="same call; symbolic shapes specialized to the arguments'",
             notes="without arguments: " + PROGRAM_ARGUMENTS["BindSymbolicVars"],
             source='py:relax/transform/transform.py:674-699; cc:src/relax/transform/bind_symbolic_vars.cc:181; unsure: not in any pipeline; tests use high-level dataflow modules'),
    PassInfo('BundleModelParams',
             phases=('high-level', 'legalized'),
             convention='weights bundled in one tuple',
             not_idempotent="bundles every parameter after num_input into one tuple and keeps num_input, so on its own output it wraps that tuple in another (cc:src/relax/transform/bundle_model_params.cc:85-93 (the parameters after num_input become the tuple), 107 (func->attrs kept))",
             source='py:relax/transform/transform.py:1045-1065; cc:src/relax/transform/bundle_model_params.cc:45-55,172-194; unsure: not in any TVM pipeline; phase from tests (high-level)'),
    PassInfo('CallTIRRewrite',
             phases=('lowering',),
             requires=('LegalizeOps', 'ToNonDataflow', 'RemovePurityChecking'),
             enters='lowering',
             preconditions=('no_dataflow_blocks',),
             well_formed_after=False,
             source='py:relax/pipeline.py:93; py:relax/backend/cpu_generic/pipeline.py:48; cc:src/relax/transform/call_tir_rewrite.cc:122,197,215,228'),
    PassInfo('CanonicalizeBindings',
             phases=('high-level', 'legalized'),
             not_idempotent="plans every change from the module it is given, then mutates once (cc:src/relax/transform/canonicalize_bindings.cc:215-222, 480-483): a dataflow block's output bound to a constant is inlined at its uses, the function's return too (243-245, 509-511), but the plan counted that return as a use outside the block and kept it a Var (231-241, 454-457); applied again it becomes a DataflowVar. Its docstring asks for DCE after it ('Best combined with constant folding and the elimination of unused definitions', py:relax/transform/transform.py:449-466)",
             source="py:relax/pipeline.py:188 (static_shape_tuning_pipeline, before zero_pipeline: high-level); py:relax/backend/metal/coreml.py:164 (high-level); used inside LiftTransformParams (cc:src/relax/transform/lift_transform_params.cc:320, dataflow IR); py:relax/transform/transform.py:449-466; test:test_transform_canonicalize_bindings.py (54 dataflow blocks, 5 pure=False functions); unsure: no pipeline runs it after ToNonDataflow; tests include impure non-dataflow functions, so 'lowering' is plausible but not shown"),
    PassInfo('CombineParallelMatmul',
             phases=('high-level',),
             source='py:relax/transform/transform.py:1536-1557; cc:src/relax/transform/combine_parallel_matmul.cc:257 (RewriteBindings), 384; cc:src/relax/ir/dataflow_block_rewriter.cc:375-440 (PatternContextRewriter is a PatternMatchingRewriter: pure runs outside dataflow blocks are matched too); test:test_transform_combine_parallel_matmul.py (high-level, dataflow); unsure: not in any TVM pipeline; dataflow blocks not strictly required per the rewriter code, but every test uses them'),
    PassInfo('ComputePrimValue',
             phases=('lowering',),
             requires=('LegalizeOps', 'ToNonDataflow', 'RemovePurityChecking'),
             enters='lowering',
             preconditions=('no_dataflow_blocks', 'purity_removed'),
             source="py:relax/pipeline.py:99 (after LegalizeOps:89, ToNonDataflow:91, RemovePurityChecking:92, ... LowerRuntimeBuiltin:98; before VMShapeLower:100); py:relax/backend/cpu_generic/pipeline.py:59; py:relax/transform/transform.py:575-591; cc:src/relax/transform/compute_prim_value.cc:98-115 (Call to a PrimFunc GlobalVar, tirx.is_host_func), 123-145; test:test_transform_compute_prim_value.py:28,55 (inputs: pure=False functions, no dataflow block); unsure: the default build also puts LowerRuntimeBuiltin before it; nothing in its code needs that, so 'after' lists the minimum the tests show"),
    PassInfo('ConvertToDataflow',
             phases=('high-level', 'legalized'),
             not_idempotent="it is its extractor followed by CanonicalizeBindings (cc:src/relax/transform/convert_dataflow.cc:158-161), which is not idempotent itself (see it) and adds bindings after the extraction ran (the match_cast of an If branch whose shape it canonicalized, cc:src/relax/transform/canonicalize_bindings.cc:116-147): applied again, the extractor moves those into the branch's dataflow block",
             source='py:relax/transform/transform.py:393-410; docstrings of FoldConstant (733), FuseOps (800), ToMixedPrecision (1400) name it as their enabling pass; cc:src/relax/transform/convert_dataflow.cc:157; unsure: running it after ToNonDataflow/RemovePurityChecking would undo the lowering; no pipeline does that'),
    PassInfo('DataflowUseInplaceCalls',
             phases=('high-level',),
             source="py:relax/transform/transform.py:285-300 (needs dataflow blocks: 'ConvertToDataflow may need to be called first'); cc:src/relax/transform/dataflow_inplace.cc:880,1068"),
    PassInfo('DeadCodeElimination',
             phases=('high-level', 'legalized'),
             source='py:relax/backend/adreno/pipeline.py:78,85 (after FuseTIR: legalized); run inside SplitLayoutRewritePreproc and AttachAttrLayoutFreeBuffers (cc:src/relax/transform/split_layout_rewrite_preproc.cc:345-347, attach_attr_layout_free_buffers.cc:106-108); cc:src/relax/transform/dead_code_elimination.cc:154-171; py:relax/transform/transform.py:1364-1391; unsure: high-level use is shown only by tests; py:relax/vm_build.py:254-257 warns that removing unused call_pure_packed results is wrong when their side effects are relied upon, so lowering-phase use is not in contract'),
    PassInfo('DecomposeOpsForInference',
             phases=('high-level',),
             preconditions=('batch_norm_inference_mode',),
             source='py:relax/op/nn/nn.py:1681-1685 (selects batch_norm\'s inference-mode computation); py:relax/pipeline.py:187 (first pass of static_shape_tuning_pipeline); py:relax/backend/adreno/pipeline.py:48; py:relax/training/setup_trainer.py:185; py:relax/transform/transform.py:1267-1283'),
    PassInfo('DecomposeOpsForTraining',
             phases=('high-level',),
             preconditions=('batch_norm_training_mode',),
             notes='decomposes layer_norm, and batch_norm in training mode (the catalogue op batch_norm_training; runs naming it draw no inference-mode batch_norm)',
             source='py:relax/op/nn/nn.py:1681-1685 (selects batch_norm\'s training-mode computation); cc:src/relax/transform/decompose_ops.cc:83-116 (batch statistics whatever attrs->training), 184-186; py:relax/training/setup_trainer.py:184-186 (before Gradient:193 and LegalizeOps:211); py:relax/transform/transform.py:1286-1302'),
    PassInfo('EliminateCommonSubexpr',
             phases=('high-level', 'legalized', 'lowering'),
             not_idempotent="replaces each duplicate by a trivial binding to the first (cc:src/relax/transform/eliminate_common_subexpr.cc:136-145) and leaves those to CanonicalizeBindings; applied again, the trivial bindings' values (bare vars) are subexpressions too, and `lv4 = lv0` after `lv3 = lv0` becomes `lv4 = lv3`: no common subexpression is left after one application. TVM's own test expects those bindings and says 'can further clean this up using canonicalize bindings, eliminate unused bindings, and CSE again' (test:test_transform_cse.py:165-171)",
             source='py:relax/transform/transform.py:469-484; cc:src/relax/transform/eliminate_common_subexpr.cc:225; test:test_transform_cse.py (dataflow, call_tir, pure=False, alloc_tensor inputs); unsure: not in any TVM pipeline; phases from its tests'),
    PassInfo('ExpandMatmulOfSum',
             phases=('high-level',),
             notes='reassociates matmul of a sum (float rounding only)',
             source='py:relax/transform/transform.py:1481-1498; cc:src/relax/transform/expand_matmul_of_sum.cc:103-105 (RewriteCall: no dataflow block needed); unsure: not in any TVM pipeline'),
    PassInfo('ExpandTupleArguments',
             phases=('high-level', 'legalized'),
             source="py:relax/transform/transform.py:742-749 ('internal functions'); cc:src/relax/transform/expand_tuple_arguments.cc:36"),
    PassInfo('FastMathTransform',
             phases=('high-level',),
             rtol=0.001,
             notes='fast approximations of exp, tanh, erf, softmax',
             source='py:relax/transform/fast_math.py:40-50 (visits relax.nn.softmax, exp, erf, tanh by call.op.name), 59-65 (every relax.Function); not in any pipeline; test:test_fast_math_transform.py (one high-level function)'),
    PassInfo('FoldBatchnormToConv2D',
             phases=('high-level',),
             source='py:relax/backend/adreno/clml.py:617-621 (after ConvertLayout, Normalize); py:relax/transform/fold_batch_norm_to_conv2d_for_inference.py:31-45,101'),
    PassInfo('FoldConstant',
             phases=('high-level', 'legalized'),
             source="py:relax/pipeline.py:67 (zero_pipeline, after LegalizeOps:65 and AnnotateTIROpPattern:66); py:relax/backend/cpu_generic/pipeline.py:36; py:relax/pipeline.py:178 (after LiftTransformParams, legalized); py:relax/backend/adreno/pipeline.py:56 (before LegalizeOps:57: high-level) and 75; py:relax/backend/adreno/clml.py:621 (high-level); py:relax/transform/transform.py:730-739 ('within dataflow blocks'); cc:src/relax/transform/fold_constant.cc:435"),
    PassInfo('FuseOps',
             phases=('legalized',),
             requires=('LegalizeOps', 'AnnotateTIROpPattern'),
             source='py:relax/pipeline.py:66-68; py:relax/transform/transform.py:792-813; cc:src/relax/transform/fuse_ops.cc:121-131 (skips Primitive/Codegen), 219-223 (no op_pattern = kOpaque: nothing fuses without AnnotateTIROpPattern)'),
    PassInfo('FuseTIR',
             phases=('legalized',),
             requires=('LegalizeOps', 'AnnotateTIROpPattern', 'FuseOps'),
             source='py:relax/pipeline.py:68-69; py:relax/transform/transform.py:816-825; cc:src/relax/transform/fuse_tir.cc:1274'),
    PassInfo('FuseTransposeMatmul',
             phases=('high-level',),
             source="py:relax/transform/fuse_transpose_matmul.py:19-23 ('Please put the pass before LegalizeOps pass'; 'only works for XW^T'), 36-52, 55-76; py:relax/transform/transform.py:916 (FuseOpsByPattern only operates within dataflow blocks)"),
    PassInfo('InlinePrivateFunctions',
             phases=('high-level', 'legalized'),
             source='py:relax/transform/transform.py:772-779; cc:src/relax/transform/inline_functions.cc:176-231 (private = no global_symbol; recursive sets skipped); unsure: not in any pipeline; after FuseOps it would inline the Primitive functions FuseTIR expects, which no source sanctions'),
    PassInfo('KillAfterLastUse',
             phases=('lowering',),
             requires=('LowerAllocTensor',),
             enters='lowering',
             well_formed_after=False,
             source='py:relax/pipeline.py:97; py:relax/backend/cpu_generic/pipeline.py:57; cc:src/relax/transform/kill_after_last_use.cc:270'),
    PassInfo('LambdaLift',
             phases=('high-level', 'legalized', 'lowering'),
             source='py:relax/transform/transform.py:303-310; cc:src/relax/transform/lambda_lift.cc:501; run inside LiftTransformParams (cc:src/relax/transform/lift_transform_params.cc:832-836); cc:src/relax/backend/vm/vm_shape_lower.cc:490-491 (VMShapeLower needs it)'),
    PassInfo('LazyGetInput',
             phases=('high-level', 'legalized', 'lowering'),
             preconditions=('public_functions_not_called',),
             convention='weights fetched through fget_param(index, name)',
             source="cc:src/relax/transform/lazy_transform_params.cc:244-255 (skips functions without kGlobalSymbol), 61-87; py:relax/transform/transform.py:313-348; test:test_transform_lazy_transform_params.py:764-822 (single function 'transform_params', no dataflow, high-level ops); unsure: no pipeline runs it; intended target (a standalone transform_params function) is shown only by its tests and docstring"),
    PassInfo('LazySetOutput',
             phases=('high-level', 'legalized', 'lowering'),
             requires=('ToNonDataflow',),
             preconditions=('public_functions_not_called',),
             convention='outputs delivered through fset_output(index, value)',
             source="cc:src/relax/transform/lazy_transform_params.cc:262-273, 150-190 (is_pure=false at 187); py:relax/transform/transform.py:351-390; test:test_transform_lazy_transform_params.py:825-1022 (every input: one function 'transform_params', no dataflow block); on dataflow IR its output fails well_formed (impure fset_output calls inside a dataflow block), after ToNonDataflow it is well formed (checked on 0.27.0.post1); unsure: no_dataflow_blocks is inferred: the C++ inserts impure fset_output calls next to the binding without leaving a dataflow block, and every test input is non-dataflow; no docstring states it"),
    PassInfo('LazyTransformParams',
             phases=('lowering',),
             requires=('LiftTransformParams', 'ToNonDataflow', 'RemovePurityChecking'),
             enters='lowering',
             preconditions=('no_dataflow_blocks', 'purity_removed'),
             convention='main_transform_params() reads weights with get_item, writes with set_item',
             source="py:relax/transform/lazy_transform_params.py:344-367 ('ToNonDataflow() and RemovePurityTracking() should be invoked before this pass'), 382-398 (name suffix), 140-150 (num_input); test:test_transform_lazy_transform_params.py:51 ('we expect ToNonDataflow and RemovePurityTracking to be invoked first')"),
    PassInfo('LegalizeOps',
             phases=('high-level', 'legalized'),
             enters='legalized',
             source='py:relax/pipeline.py:65, 89; py:relax/backend/cpu_generic/pipeline.py:34; py:relax/backend/adreno/pipeline.py:57,62,66 (run repeatedly: idempotent on legalized input); py:relax/transform/transform.py:1068-1179'),
    PassInfo('LiftTransformParams',
             phases=('high-level', 'legalized'),
             preconditions=('no_match_cast_when_shared',),
             convention='main_transform_params(weights), then main(inputs, ...)',
             source='cc:src/relax/transform/lift_transform_params.cc:704-711 (targets), 590-591 (shared_transform: ICHECK on every MatchCast binding, "MatchCast is not supported in global lifting", deliberate since PR #16717), 336-339 (Cond 1: not outside dataflow blocks), 762-766, 805-813, 832-836; py:relax/transform/transform.py:1007-1042; py:relax/pipeline.py:177 (post-tuning, after MetaScheduleApplyDatabase: legalized); test:test_transform_lift_transform_params.py (high-level ops, num_input)'),
    PassInfo('LowerAllocTensor',
             phases=('lowering',),
             requires=('CallTIRRewrite', 'StaticPlanBlockMemory'),
             enters='lowering',
             source='py:relax/pipeline.py:96; py:relax/transform/transform.py:545-562; cc:src/relax/transform/lower_alloc_tensor.cc:145'),
    PassInfo('LowerGPUIPCAllocStorage',
             phases=('lowering',),
             requires=('CallTIRRewrite',),
             enters='lowering',
             source='py:relax/transform/lower_gpu_ipc_alloc_storage.py:37-60; test:test_transform_lower_gpu_ipc_alloc_storage.py:26-91; unsure: not in any pipeline; position relative to StaticPlanBlockMemory not stated'),
    PassInfo('LowerRuntimeBuiltin',
             phases=('lowering',),
             requires=('CallTIRRewrite', 'StaticPlanBlockMemory', 'LowerAllocTensor'),
             enters='lowering',
             preconditions=('no_builtin_alloc_tensor',),
             well_formed_after=False,
             notes='rejects relax.builtin.alloc_tensor: LowerAllocTensor must lower it first',
             source='py:relax/pipeline.py:98 (after LowerAllocTensor:96, KillAfterLastUse:97); cc:src/relax/backend/vm/lower_runtime_builtin.cc:65-69 (rejects builtin.alloc_tensor), 261'),
    PassInfo('MergeCompositeFunctions',
             phases=('high-level',),
             requires=('FuseOpsByPattern',),
             partner="as TVM's partition_for_tensorrt runs it",
             notes='fuzzed right after FuseOpsByPattern(tensorrt, bind_constants=True, annotate_codegen=False), as '
                   'partition_for_tensorrt runs it; '
                   'groups the composite functions of FuseOpsByPattern into one function per external codegen '
                   '(Codegen attribute); on llvm tvm.compile compiles those as plain Relax, their local '
                   'functions lifted, so results are compared; a failed compile of them is not judged',
             source='py:relax/backend/contrib/tensorrt.py:257-259 (FuseOpsByPattern(get_patterns_with_prefix("tensorrt"), bind_constants=True, annotate_codegen=False), then MergeCompositeFunctions()); py:relax/backend/contrib/nnapi.py:316-320; py:relax/backend/metal/coreml.py:163-166; py:relax/backend/adreno/clml.py:622-623; py:relax/transform/transform.py:965-975'),
    PassInfo('Normalize',
             phases=('high-level', 'legalized', 'lowering'),
             source='py:relax/backend/adreno/pipeline.py:55 (high-level), 91 (legalized); py:relax/transform/transform.py:423-431'),
    PassInfo('NormalizeGlobalVar',
             phases=('high-level', 'legalized', 'lowering'),
             source='py:relax/transform/transform.py:434-446; cc:src/relax/transform/normalize.cc:179-293; unsure: not in any pipeline'),
    PassInfo('OptimizeLayoutTransform',
             phases=('legalized',),
             requires=('LegalizeOps',),
             source="py:relax/transform/optimize_layout_transform.py:32-45 ('introduced by AlterOpImpl pass'; matches relax.call_tir), 86; test:test_optimize_layout_transform.py (call_tir inputs); unsure: meant after AlterOpImpl, which passfuzz skips; without it the pass has little to do"),
    PassInfo('RealizeVDevice',
             phases=('high-level',),
             source='py:relax/transform/transform.py:1182-1191; cc:src/relax/transform/realize_vdevice.cc:418; test:test_transform_realize_vdevice.py (high-level, dataflow); unsure: not in any pipeline'),
    PassInfo('RemovePurityChecking',
             phases=('lowering',),
             requires=('ToNonDataflow',),
             enters='lowering',
             source="py:relax/transform/transform.py:266-282 ('Should be used after ToNonDataflow()'); py:relax/pipeline.py:92; cc:src/relax/transform/remove_purity_checking.cc:41,91"),
    PassInfo('RemoveRedundantReshape',
             phases=('high-level',),
             source='py:relax/transform/remove_redundant_reshape.py:60-63,104 (relax.reshape patterns via rewrite_call)'),
    PassInfo('RemoveUnusedOutputs',
             phases=('high-level', 'legalized'),
             source='py:relax/transform/transform.py:762-769; cc:src/relax/transform/remove_unused_outputs.cc:49-61'),
    PassInfo('RemoveUnusedParameters',
             phases=('high-level', 'legalized'),
             source='py:relax/transform/transform.py:752-759; cc:src/relax/transform/remove_unused_parameters.cc:58'),
    PassInfo('ReorderPermuteDimsAfterConcat',
             phases=('high-level',),
             source='py:relax/transform/transform.py:1501-1518 (meant after CombineParallelMatmul); cc:src/relax/transform/reorder_permute_dims_after_concat.cc:183-185'),
    PassInfo('ReorderTakeAfterMatmul',
             phases=('high-level',),
             source='py:relax/transform/transform.py:1521-1533; cc:src/relax/transform/reorder_take_after_matmul.cc:152-154 (RewriteCall)'),
    PassInfo('RewriteCUDAGraph',
             phases=('lowering',),
             requires=('StaticPlanBlockMemory',),
             enters='lowering',
             source='py:relax/pipeline.py:95; py:relax/backend/cuda/pipeline.py:65; cc:src/relax/transform/rewrite_cuda_graph.cc:895-905'),
    PassInfo('RewriteDataflowReshape',
             phases=('legalized',),
             requires=('LegalizeOps',),
             source="py:relax/pipeline.py:90 (after LegalizeOps:89); py:relax/backend/cpu_generic/pipeline.py:45; py:relax/transform/transform.py:505-517 ('Operates only in dataflow blocks')"),
    PassInfo('RunCodegen',
             phases=('high-level',),
             notes='without external codegens it only removes dead code',
             source='py:relax/backend/adreno/clml.py:622-624 (after FuseOpsByPattern, MergeCompositeFunctions); py:relax/backend/contrib/tensorrt.py:244; py:relax/transform/transform.py:702-727'),
    PassInfo('SpecializePrimFuncBasedOnCallSite',
             phases=('legalized',),
             requires=('LegalizeOps',),
             source='py:relax/backend/adreno/pipeline.py:72-88 (texture targets: after LegalizeOps, AnnotateTIROpPattern, FoldConstant, FuseOps, FuseTIR, DeadCodeElimination, FoldVDeviceScopeChange); py:relax/transform/transform.py:1587-1597; cc:src/relax/transform/specialize_primfunc_based_on_callsite.cc:50-64, 86-89 (ICHECK: every call_tir argument a TensorType with a shape), 157; unsure: the TensorType ICHECK is an assertion, not a documented precondition; call_tir with R.Prim arguments is legal IR, so it is recorded as a limitation (a reportable bug), not as a contract'),
    PassInfo('SplitLayoutRewritePreproc',
             phases=('legalized',),
             requires=('LegalizeOps', 'AnnotateTIROpPattern', 'FuseOps', 'FuseTIR'),
             preconditions=('primfunc_root_block',),
             source="py:relax/pipeline.py:176 (post-tuning, after MetaScheduleApplyDatabase:202); py:relax/transform/transform.py:995-1004 ('used in the prepack weight after meta_schedule tuning'); cc:src/relax/transform/split_layout_rewrite_preproc.cc:41-42 (ICHECK body is SBlockRealize for EVERY PrimFunc), 226-235, 341-347; unsure: without MetaSchedule (skipped here) the pass only checks and returns; the after list follows static_shape_tuning_pipeline (zero_pipeline precedes)"),
    PassInfo('StaticPlanBlockMemory',
             phases=('lowering',),
             requires=('CallTIRRewrite',),
             enters='lowering',
             source='py:relax/pipeline.py:94; py:relax/backend/cpu_generic/pipeline.py:55; py:relax/transform/transform.py:520-542; cc:src/relax/transform/static_plan_block_memory.cc:1051'),
    PassInfo('ToMixedPrecision',
             phases=('high-level',),
             preconditions=('float32_only',),
             rtol=0.02,
             notes='computes in float16 on purpose',
             source="py:relax/transform/transform.py:1394-1415 ('assumes the input module to be fp32 only'; 'Mainly operates within dataflow blocks'); cc:src/relax/transform/to_mixed_precision.cc:54-75 (policies), 246 (collector skips non-dataflow blocks), 318-321 (only fp16/fp32 tensors are ever cast), 484-488 (kAlways: FInferMixedPrecision rewrites out_dtype regardless of input dtype), 622; cc:src/relax/op/tensor/linear_algebra.cc:161-163 (matmul out_dtype forced); test:test_transform_to_mixed_precision.py:1084-1134 (int64 tensors only as dynamic_strided_slice args), 1056-1081 (float16 only inside call_tir)"),
    PassInfo('ToNonDataflow',
             phases=('high-level', 'legalized', 'lowering'),
             enters='lowering',
             source="py:relax/pipeline.py:91 (after LegalizeOps:89, RewriteDataflowReshape:90); py:relax/backend/cpu_generic/pipeline.py:46; cc:src/relax/transform/to_non_dataflow.cc:44,61; unsure: the build runs it after LegalizeOps, but LazyTransformParams' documented recipe (py:relax/transform/lazy_transform_params.py:349; high-level test inputs, test_transform_lazy_transform_params.py:718-741) runs it on high-level IR right after LiftTransformParams, so high-level input is accepted; it moves the module to the lowering phase either way"),
    PassInfo('TopologicalSort',
             phases=('high-level', 'legalized'),
             source="py:relax/transform/transform.py:243-263 ('Sort bindings in relax.Dataflow blocks'); cc:src/relax/transform/topological_sort.cc:354"),
    PassInfo('VMBuiltinLower',
             phases=('lowering',),
             requires=('CallTIRRewrite', 'StaticPlanBlockMemory', 'LowerAllocTensor'),
             enters='lowering',
             preconditions=('no_builtin_alloc_tensor',),
             well_formed_after=False,
             notes='rejects relax.builtin.alloc_tensor: LowerAllocTensor must lower it first',
             source='py:relax/transform/transform.py:604-615 (warns, returns LowerRuntimeBuiltin)'),
    PassInfo('VMShapeLower',
             phases=('lowering',),
             requires=('ToNonDataflow', 'RemovePurityChecking', 'ComputePrimValue'),
             enters='lowering',
             preconditions=('no_local_functions',),
             well_formed_after=False,
             source="py:relax/pipeline.py:100; cc:src/relax/backend/vm/vm_shape_lower.cc:490-491 ('make sure to run it after LambdaLift'), 503-505 (slot->value_computed: prim values must have been computed), 943"),
    PassInfo('AlterOpImpl',
             skip='needs replacement PrimFuncs and layout maps as arguments'),
    PassInfo('AttachExternModules',
             skip='needs external runtime modules as arguments'),
    PassInfo('ConvertLayout',
             phases=('high-level',),
             preconditions=('unpacked_layouts',),
             notes="needs its layouts: ConvertLayout({'relax.nn.conv2d': ['NHWC', 'OHWI']}); rewrites the drawn conv2d ops; "
                   "a pool drawn on packed channels (NCHW4c) is outside its contract",
             source="cc:src/relax/op/nn/pooling.cc:270 ('Unsupported initial layout' for a packed pool); cc:src/relax/op/nn/pooling.cc:135,438,586,672,776 (the same check in every pool's layout inference); cc:src/relax/op/nn/convolution.cc:350-352,374-377,383-384,392-398 (conv2d's rule reads the op's layouts against InitialLayout(4), whatever the desired layouts); cc:src/relax/transform/convert_layout.cc:74-79 (the incoming layouts are the default ABCD...; 'Packed layout ... is not supported now'); "
                    'py:relax/backend/adreno/pipeline.py:54 (before LegalizeOps:57); py:relax/backend/adreno/clml.py:617; cc:src/relax/transform/convert_layout.cc:362 (CreateDataflowBlockPass)'),
    PassInfo('FuseOpsByPattern',
             phases=('high-level',),
             skip='needs dataflow patterns as arguments: name a backend to take the patterns TVM registers for it, '
                  'FuseOpsByPattern(tensorrt)',
             source='py:relax/backend/contrib/tensorrt.py:257-258; py:relax/backend/metal/coreml.py:163-165; py:relax/transform/transform.py:905-962'),
    PassInfo('Gradient',
             phases=('high-level',),
             preconditions=('gradient_target',),
             convention='adds main_adjoint(params) -> (loss, (gradients...)); main unchanged',
             notes="own oracle (passfuzz.judge.gradient): programs are loss programs (float32, smooth ops with a registered gradient, one 0-d output); their float64 twin's gradients are compared with central differences of numpy's float64 loss, step 1e-4, allowed error |D(2h)-D(h)| (truncation) + noise/h (rounding; noise = 1e-14 x largest static bound x (nodes+1)) + 1e-6 relative + 1e-8 of the largest gradient. Not in the random pool: it needs loss programs, which every other pass would then be fuzzed on too",
             source='py:relax/transform/transform.py:56-129 (one dataflow block; scalar target); py:relax/training/setup_trainer.py:185-193,211 (after Decompose*, before LegalizeOps); cc:src/relax/transform/gradient.cc:374-378 (call_tir rejected), 402, 691-694 (exactly one DataflowBlock), 753 (float 0-d target), 776 (require_grads float)'),
    PassInfo('IPCAllReduceRewrite',
             skip='multi-GPU collective communication only'),
    PassInfo('MetaScheduleApplyDatabase',
             skip='needs a tuning database and a target context'),
    PassInfo('MetaScheduleTuneIRMod',
             skip='runs MetaSchedule tuning (needs a work directory and trials)'),
    PassInfo('MetaScheduleTuneTIR',
             skip='runs MetaSchedule tuning (needs a work directory and trials)'),
    PassInfo('SplitCallTIRByPattern',
             skip='needs TIR patterns and a fcodegen callback as arguments'),
    PassInfo('UpdateParamType',
             skip='needs the new parameter types as arguments'),
    PassInfo('UpdateVDevice',
             skip='needs a virtual device and its index as arguments'),

]

# The ops each pass matches, read off the same source ("all ops" passes say why they have none).
MATCHES: dict[str, tuple[tuple[str, ...], str]] = {
    'AdjustMatmulOrder': (('matmul', 'permute_dims', 'linear'),
                          'cc:src/relax/transform/adjust_matmul_order.cc:86-96 (matmul of a matmul, optionally through permute_dims; linear emits matmul(x, permute_dims(w)))'),
    'CombineParallelMatmul': (('matmul', 'add', 'relu', 'gelu', 'gelu_tanh', 'silu', 'linear'),
                              'cc:src/relax/transform/combine_parallel_matmul.cc:87-107 (matmuls sharing input, bias add, activation), 264-274 (relu, gelu, gelu_tanh, silu)'),
    'ExpandMatmulOfSum': (('matmul', 'add', 'permute_dims'),
                          'cc:src/relax/transform/expand_matmul_of_sum.cc:49-59 (matmul(x, add(a, b)) or matmul(x, permute_dims(add(a, b))))'),
    'ReorderTakeAfterMatmul': (('matmul', 'take'),
                               'cc:src/relax/transform/reorder_take_after_matmul.cc:49-51 (matmul(x, take(w, indices)))'),
    'ReorderPermuteDimsAfterConcat': (('concat', 'permute_dims'),
                                      'cc:src/relax/transform/reorder_permute_dims_after_concat.cc:70-77 (concat of permute_dims)'),
    'FuseTransposeMatmul': (('matmul', 'permute_dims', 'linear'),
                            'py:relax/transform/fuse_transpose_matmul.py:60-61 (matmul(x, permute_dims(w)))'),
    'FoldBatchnormToConv2D': (('conv2d', 'batch_norm', 'tuple_get_item'),
                              'py:relax/transform/fold_batch_norm_to_conv2d_for_inference.py:40-45 (batch_norm(conv2d(x, const)), its item 0)'),
    'RemoveRedundantReshape': (('reshape', 'reshape_runtime'),
                               'py:relax/transform/remove_redundant_reshape.py:60-63 (reshape of a reshape, reshape to the same shape)'),
    'FastMathTransform': (('exp', 'tanh', 'erf', 'softmax'),
                          'py:relax/transform/fast_math.py:41-47 (relax.nn.softmax, relax.exp, relax.erf, relax.tanh)'),
    'DecomposeOpsForInference': (('batch_norm', 'tuple_get_item', 'reshape_runtime'),
                                 'cc:src/relax/transform/decompose_ops.cc:197-213 (batch_norm, tensor_to_shape, which reshape_runtime emits)'),
    'DecomposeOpsForTraining': (('batch_norm_training', 'layer_norm', 'tuple_get_item', 'reshape_runtime'),
                                'cc:src/relax/transform/decompose_ops.cc:175-194 (batch_norm, in training mode by its contract; layer_norm), 329-331 (then DecomposeOps, as for inference: tensor_to_shape, which reshape_runtime emits, 197-213)'),
    'ConvertLayout': (('conv2d',),
                      'cc:src/relax/transform/convert_layout.cc:45-78 (conv2d is converted; every other op only follows through FRelaxInferLayout, 209)'),
    'RewriteDataflowReshape': (('reshape', 'expand_dims', 'squeeze', 'flatten', 'reshape_runtime'),
                               'cc:src/relax/transform/rewrite_dataflow_reshape.cc:80-120 (call_tir of a PrimFunc with a reshape pattern: what LegalizeOps makes of reshape-like ops)'),
}
# Passes that look at every op (or at none in particular): FoldConstant (fold_constant.cc: any
# call with constant operands), EliminateCommonSubexpr, CanonicalizeBindings, DeadCodeElimination,
# FuseOps/FuseTIR/AnnotateTIROpPattern (by op pattern kind), LegalizeOps (every op's FLegalize),
# ToMixedPrecision (to_mixed_precision.cc:49 a policy per op, kAlways for matmul and convolutions,
# kFollow for elementwise ops, so every op takes part), DataflowUseInplaceCalls, Gradient, the
# calling-convention and lowering passes: matches stays (), no focus.
# Where the probe does not see what MATCHES says, and why (the form the probe does not draw, with
# the TVM source line); tests/test_probe_catalogue.py fails on a disagreement not explained here.
_PARALLEL_MATMULS = ("two matmuls fire only sharing their first operand, with second operands of one rank "
                     "(cc:src/relax/transform/combine_parallel_matmul.cc:87-92, 145-147): under half the probe's "
                     "programs around matmul; linear, drawn sharing its input, fires alone")
_EPILOGUE = ("matched only as the epilogue of two parallel matmuls (cc:src/relax/transform/combine_parallel_matmul.cc:"
             "97-107 bias add, 264-274 activations): the probe meets ops alone and in pairs, and keeps the pairs "
             "of the first batch that fires")
_MATMUL_OF_SUM = ("matched only where add feeds matmul's second operand (through permute_dims or not) and an operand "
                  "of the add is computed at run time (cc:src/relax/transform/expand_matmul_of_sum.cc:49-59, 76-78): "
                  "the probe's pairs feed the first operand as often, and half give the add constants")
_FOLDED_BATCH_NORM = ("matched only with the conv2d's weight and the batch_norm's four parameters all constants "
                      "(py:relax/transform/fold_batch_norm_to_conv2d_for_inference.py:38-47): the probe gives fresh "
                      "constants to some operands, never to all five")
_TRANSPOSE_FEED = ("matched only feeding matmul's second operand (py:relax/transform/fuse_transpose_matmul.py:60-61), "
                   "never alone; matmul (whose proposal draws that permute_dims) and linear fire on their own, so "
                   "the probe stops there")
_PERMUTED_MATMUL = ("matched only between two matmuls, matmul(permute_dims(matmul(b, a)), c) or its mirror "
                    "(cc:src/relax/transform/adjust_matmul_order.cc:92-93), never alone; matmul and linear fire on "
                    "their own, so the probe stops there")
_CONCAT_OF_PERMUTES = ("matched only on a concat of two or more permute_dims of one permutation "
                       "(cc:src/relax/transform/reorder_permute_dims_after_concat.cc:70-77, 114-127): the probe's "
                       "pairs hold one permute_dims beside a concat")
_RUNTIME_RESHAPE = ("its shape is a run-time value (tensor_to_shape): few of the probe's programs around it legalize "
                    "to a call_tir the pattern check takes (cc:src/relax/transform/rewrite_dataflow_reshape.cc:80-120)")
_COPIES = ("any op LegalizeOps lowers to a plain copy in a degenerate form (ceil or trunc of integers, broadcast_to "
           "its own shape, zero padding, repeats=1, a whole strided_slice) is a reshape to its pattern check "
           "(cc:src/relax/transform/rewrite_dataflow_reshape.cc:80-120, HasReshapePattern); focus stays on the "
           "reshape-like ops, which it is for")
PROBE_NOTES: dict[str, tuple[tuple[str, str], ...]] = {
    'AdjustMatmulOrder': (('-permute_dims', _PERMUTED_MATMUL),),
    'CombineParallelMatmul': (('-matmul', _PARALLEL_MATMULS),
                              *((f'-{op}', _EPILOGUE) for op in ('add', 'relu', 'gelu', 'gelu_tanh', 'silu'))),
    'ExpandMatmulOfSum': tuple((f'-{op}', _MATMUL_OF_SUM) for op in ('matmul', 'add', 'permute_dims')),
    'FoldBatchnormToConv2D': (('-conv2d', _FOLDED_BATCH_NORM), ('-batch_norm', _FOLDED_BATCH_NORM)),
    'FuseTransposeMatmul': (('-permute_dims', _TRANSPOSE_FEED),),
    'ReorderPermuteDimsAfterConcat': (('-concat', _CONCAT_OF_PERMUTES), ('-permute_dims', _CONCAT_OF_PERMUTES)),
    'RewriteDataflowReshape': (('-reshape_runtime', _RUNTIME_RESHAPE), ('+', _COPIES)),
}
_ENTRIES = [replace(entry, matches=MATCHES[entry.name][0], matches_source=MATCHES[entry.name][1],
                    probe_notes=PROBE_NOTES.get(entry.name, ()))
            if entry.name in MATCHES else entry for entry in _ENTRIES]

CATALOGUE: dict[str, PassInfo] = {info.name: info for info in _ENTRIES}
assert len(CATALOGUE) == len(_ENTRIES), "a pass is listed twice"


# How a prerequisite that takes arguments is inserted: as TVM's own callers call it.
# partition_for_tensorrt (py:relax/backend/contrib/tensorrt.py:257-259) is the partner pipeline
# of MergeCompositeFunctions that runs on any machine: TensorRT's patterns cover the most catalogue
# ops among the backends that merge (nnapi, coreml, openclml). Naming FuseOpsByPattern(BACKEND)
# before it picks another backend.
PREREQUISITE_CALLS = {"FuseOpsByPattern": "FuseOpsByPattern(tensorrt, bind_constants=True, annotate_codegen=False)"}


def info(spec: PassSpec) -> PassInfo:
    """What is known of ``spec``; a custom pass is assumed to keep the calling convention.
    FuseOpsByPattern can be fuzzed when it names a backend whose patterns it takes."""
    known = CATALOGUE.get(spec.name, PassInfo(spec.name, PHASES, notes="not in the catalogue: no contract known"))
    return replace(known, skip="") if spec.backend else known


def with_prerequisites(passes: list[PassSpec]) -> list[PassSpec]:
    """``passes`` with each pass's prerequisites (and theirs, first) inserted before it, unless
    they ran already."""
    expanded: list[PassSpec] = []

    def add(spec: PassSpec) -> None:
        for name in info(spec).requires:
            if not any(p.name == name for p in expanded):
                add(PassSpec(PREREQUISITE_CALLS.get(name, name)))
        expanded.append(spec)

    for spec in passes:
        add(spec)
    return expanded


def fuzzable_pool() -> list[str]:
    """Every pass that can be fuzzed here without arguments (the default --pass-pool), except
    Gradient (it needs loss programs and its own oracle, see passfuzz.judge.gradient) and the
    lowering passes: they belong to the build pipeline and assume its order (LowerRuntimeBuiltin
    fails on an alloc_tensor that CallTIRRewrite created after LowerAllocTensor ran), so in
    random sequences they produce precondition violations, not bugs. Nor a pass fuzzed with a
    partner (MergeCompositeFunctions): the passes drawn after it would meet modules partitioned for
    an external codegen, which no pipeline gives them. Name them to fuzz them."""
    return [name for name in builtin_pass_names()
            if name in CATALOGUE and not CATALOGUE[name].skip and set(CATALOGUE[name].phases) & {"high-level", "legalized"}
            and not CATALOGUE[name].partner and name not in ("ConvertLayout", "Gradient")]


def uncatalogued() -> list[str]:
    """Passes of the installed TVM that the catalogue does not know (a newer TVM)."""
    return [name for name in builtin_pass_names() if name not in CATALOGUE]

"""The ``PassContext`` configurations TVM 0.27's CPU build reads (``tvm.transform.PassContext.list_configs()``
names every registered key; these are the ones its pipelines read), with the values worth drawing:
``--build config=random`` draws a few per example for the optimized side's build, and a finding
under one is reduced to the fewest keys that still show it (passfuzz.campaign.engine).

The default TIR pipeline on CPU targets is ``s_tir`` (py:tirx/compilation_pipeline.py:158-165); it
reads its keys from the current PassContext (py:s_tir/pipeline.py:37), and so do the TIR passes
taking a config struct. A struct key's value is a dict of its fields.

Left out, with why: ``relax.transform.apply_legalize_ops`` (False leaves ops nothing lowers),
``relax.backend.use_cuda_graph``, ``tirx.s_tir.ldg32``, ``tirx.merge_static_smem`` (GPU),
``tirx.use_async_copy`` and ``tirx.vtcm_capacity`` (DMA and Hexagon targets), ``tirx.instrument_lwp``
and ``s_tir.lwp_*`` (profiling calls a runtime provides), ``tirx.add_lower_pass`` (passes, not
values), ``relax.lift_transform_params.consume_params`` (LiftTransformParams, not in the build),
``testing.immutable_module`` and ``tirx.enable_debug`` (test aids). ``tir.disable_vectorize`` and
``tir.disable_cse_tir``, which the ``default`` TIR pipeline reads (py:tirx/compilation_pipeline.py:41,45),
are not registered keys on 0.27 (the registered ones are ``tirx.``), and CPU builds take ``s_tir``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PassConfig:
    key: str
    values: tuple  # what may be drawn: plain values, or for a struct key, per field its values
    source: str
    fields: tuple[str, ...] = ()  # a struct key's fields (its value is a dict of some of them)


PASS_CONFIGS = (
    PassConfig("relax.FuseOps.max_depth", (1, 2, 3),
               "cc:src/relax/transform/fuse_ops.cc:107,1478 (the most ops one fused function takes; 256 by default); "
               "py:relax/pipeline.py:67 (FuseOps in the default pipeline)"),
    PassConfig("tirx.disable_vectorize", (True,), "py:s_tir/pipeline.py:58 (VectorizeLoop(enable=False))"),
    PassConfig("tirx.disable_storage_rewrite", (True,), "py:s_tir/pipeline.py:62"),
    PassConfig("tirx.disable_cse_tir", (True,), "py:s_tir/pipeline.py:81"),
    PassConfig("tirx.instrument_bound_checkers", (True,), "py:s_tir/pipeline.py:77 (an access out of bounds raises)"),
    PassConfig("tirx.disable_assert", (True,), "py:tirx/build.py:126 (SkipAssert)"),
    PassConfig("tirx.UnrollLoop", ((0, 4, 16, 64), (True, False), (True, False), (0, 8, 64)),
               "py:s_tir/pipeline.py:68 (UnrollLoop reads tirx.transform.UnrollLoopConfig)",
               ("auto_max_step", "explicit_unroll", "unroll_local_access", "auto_max_extent")),
    PassConfig("s_tir.LoopPartition", ((True, False), (True, False), (True, False)),
               "py:s_tir/pipeline.py:57 (LoopPartition reads s_tir.transform.LoopPartitionConfig)",
               ("partition_const_loop", "no_unroll_loop_with_extent_one", "unroll_loop_with_partition_hint_no_interval")),
    PassConfig("tirx.StmtSimplify", ((True, False), (True, False), (True, False)),
               "py:s_tir/pipeline.py:48,70 (StmtSimplify reads tirx.transform.StmtSimplifyConfig)",
               ("transitively_prove_inequalities", "convert_boolean_to_and_of_ors",
                "apply_constraints_to_boolean_branches")),
    PassConfig("s_tir.HoistIfThenElse", ((True,),), "py:s_tir/pipeline.py:67",
               ("support_block_scope_hoisting",)),
)
BY_KEY = {config.key: config for config in PASS_CONFIGS}


def as_config(items) -> dict:
    """A drawn configuration ((key, value), ...; a struct key's value its (field, value) pairs) as
    ``PassContext(config=...)`` takes it, and as a record keeps it (JSON)."""
    return {key: dict(value) if isinstance(value, (tuple, list)) else value for key, value in items}


def from_config(config: dict) -> tuple:
    """``as_config``'s inverse: a record's configuration as drawn items."""
    return tuple((key, tuple((field, v) for field, v in value.items()) if isinstance(value, dict) else value)
                 for key, value in config.items())

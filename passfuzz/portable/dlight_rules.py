"""dlight's GPU schedule rules as data: the target's own GPU pipeline with its default rules
replaced by others, in another order.

A GPU pipeline schedules every kernel with ``dl.ApplyDefaultSchedule(Matmul, GEMV, Reduction,
GeneralReduction, Fallback)``: the first rule that returns a schedule wins. An alternative is
a sequence of dlight's GPU rules, always followed by ``Fallback`` (which binds any kernel to
threads, so every kernel still passes VerifyMemory): each rule is TVM's own valid schedule, and
a rule that does not match a kernel returns nothing and the next one is tried, so validity is
dlight's call. The empty sequence is Fallback alone.

tvm only: reproducer scripts copy this module below its imports.
"""

from __future__ import annotations

import importlib

import tvm
from tvm.s_tir import dlight as dl

RULES = ("Matmul", "GEMV", "LowBatchGEMV", "Reduction", "GeneralReduction", "Transpose", "RMSNorm")


def rules_schedule(rules):
    """dlight's ApplyDefaultSchedule pass with ``rules`` (names in dl.gpu), then Fallback."""
    return dl.ApplyDefaultSchedule(*[getattr(dl.gpu, name)() for name in rules], dl.gpu.Fallback())


def gpu_pipeline(target, rules):
    """``target``'s default GPU pipeline (relax.backend.<kind>.pipeline) with its
    ApplyDefaultSchedule replaced by ``rules_schedule(rules)``."""
    backend = importlib.import_module(f"tvm.relax.backend.{target.kind.name}.pipeline")

    @tvm.transform.module_pass(opt_level=0, name="PassfuzzDlightPipeline")
    def _pipeline(mod, _ctx):
        with target:
            legalize = [rules_schedule(rules) if isinstance(p, dl.ApplyDefaultSchedule) else p
                        for p in backend.legalize_passes(target)]
            return tvm.transform.Sequential(backend.library_dispatch_passes(target) + legalize
                                            + backend.dataflow_lower_passes(target)
                                            + backend.finalize_passes(target))(mod)
    return _pipeline

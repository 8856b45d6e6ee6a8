"""MetaSchedule tuning records as plain data, applied with MetaSchedule's own database pass.

A record is ``(kernel, trace)``: the name of a PrimFunc of the module the Relax pipeline leaves
and the tuned schedule's trace as JSON data (``Trace.as_json``: instructions and decisions,
lists of strings and numbers). Applying records rebuilds a database in memory (one tuning
record per kernel, its workload normalized as MetaSchedule normalizes it) and runs
``relax.transform.MetaScheduleApplyDatabase`` under it, as a tuned build applies its tuning.
A reproducer thus holds what the tuning chose, not a tuning run (whose timings differ).

tvm only: reproducer scripts copy this module below its imports.
"""

from __future__ import annotations

import tvm
from tvm import relax
from tvm.s_tir import meta_schedule as ms
from tvm.s_tir.schedule import Trace


def tuning_database(mod, records, target):
    """A MemoryDatabase holding one record per ``(kernel, trace)`` of ``mod``, for ``target``."""
    normalize = tvm.get_global_func("tvm.s_tir.meta_schedule.normalize_mod")  # MetaScheduleApplyDatabase's key
    database = ms.database.MemoryDatabase()
    for kernel, trace in records:
        workload = normalize(mod[kernel])
        sch = tvm.s_tir.Schedule(workload)
        Trace.apply_json_to_schedule(trace, sch)
        database.commit_tuning_record(ms.database.TuningRecord(
            sch.trace, database.commit_workload(workload), [1.0], target,
            ms.arg_info.ArgInfo.from_prim_func(workload["main"])))
    return database


def apply_records(mod, records, target):
    """``mod`` with each recorded kernel replaced by its tuned schedule."""
    database = tuning_database(mod, records, target)
    with target, database:
        return relax.transform.MetaScheduleApplyDatabase(enable_warning=False)(mod)


def records_pass(records, target):
    """A module pass applying ``records`` (run after the Relax pipeline, on the kernels it leaves)."""
    @tvm.transform.module_pass(opt_level=0, name="PassfuzzTuningRecords")
    def _apply(mod, _ctx):
        return apply_records(mod, records, target)
    return _apply

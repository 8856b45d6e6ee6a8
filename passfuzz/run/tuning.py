"""A small real MetaSchedule tuning run of the kernels a module's Relax pipeline leaves.

Runs where every side runs, in a forked child. MetaSchedule's stock tuning cannot run on TVM
0.27.0.post1: ``tvm.ir.save_json`` segfaults (in ``tvm::ffi::ToJSONGraph``) on any module with
a PrimExpr, and stock tuning serialises the module in three places. Each is replaced by the
same step done without serialising, so the tuning stays MetaSchedule's own (its design spaces,
its sampling instructions, postprocessors, task scheduler, runner and database):

- every built-in search strategy (replay-trace, replay-func, evolutionary) copies the module
  per thread with ``DeepCopyIRModule`` = ``LoadJSON(SaveJSON(mod))`` when it is initialised;
  ``ReplayTrace`` is replay-trace in Python (a design space's trace without its decisions,
  replayed on a fresh schedule whose seed the tuning's seed forks, so TVM's sampling
  instructions decide anew, then the postprocessors; a candidate they reject is drawn again);
- ``LocalBuilder`` pickles each candidate module to its popen workers (an Object pickles
  through the same JSON graph): ``InProcessBuilder`` calls LocalBuilder's own
  ``default_build`` and ``default_export`` here, in the child;
- the mutators (``MutateComputeLocation``, ``MutateParallel``) and the xgb cost model's
  feature extraction call it too: no mutators, the random cost model.
``LocalRunner`` runs as it is (it pickles artifact paths and argument infos), and the database
is a MemoryDatabase (a JSON database writes its workloads with ``save_json``).
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import types

import tvm
from tvm import relax

from passfuzz.portable.schedules import schedulable

NUM_CORES = 2  # what the llvm schedule rules parallelise for (a Target option MetaSchedule requires)


def _skip_tensor_intrinsics() -> None:
    """TuneContext and default_build import ``tvm.s_tir.tensor_intrin`` to register tensor
    intrinsics, ~50 s of CPU in each fresh process (its TVMScript, CUDA's above all). MetaSchedule's
    llvm rules for a target without tensorizing features (no mcpu: its DefaultLLVM rules) never
    look one up, so in this child an empty module stands in for it; a rule that did would fail
    the tuning with TVM's error, never tune silently otherwise."""
    sys.modules.setdefault("tvm.s_tir.tensor_intrin", types.ModuleType("tvm.s_tir.tensor_intrin"))


def _meta_schedule_classes():
    """ReplayTrace and InProcessBuilder, defined once MetaSchedule is imported (in the child)."""
    from tvm.ir.utils import derived_object
    from tvm.s_tir import meta_schedule as ms
    from tvm.s_tir.meta_schedule.builder.local_builder import default_build, default_export
    from tvm.s_tir.schedule import Trace

    @derived_object
    class ReplayTrace(ms.search_strategy.PySearchStrategy):
        """MetaSchedule's replay-trace search, without copying the module through JSON."""

        def __init__(self, seed: int, max_failures: int = 100):
            self.rng = random.Random(seed)
            self.max_failures = max_failures

        def _initialize_with_tune_context(self, context) -> None:
            self.mod = context.mod
            self.postprocs = list(context.space_generator.postprocs)

        def pre_tuning(self, max_trials, num_trials_per_iter, design_spaces, database=None, cost_model=None):
            self.spaces = [space.trace.simplified(remove_postproc=True) for space in design_spaces]
            self.left, self.per_iteration = max_trials, num_trials_per_iter

        def post_tuning(self) -> None:
            pass

        def generate_measure_candidates(self):
            wanted = min(self.left, self.per_iteration)
            candidates, failures = [], 0
            while len(candidates) < wanted and failures < self.max_failures:
                space = self.spaces[self.rng.randrange(len(self.spaces))]
                sch = tvm.s_tir.Schedule(self.mod, seed=self.rng.randrange(1, 2 ** 30), debug_mask=0)
                Trace(space.insts, {}).apply_to_schedule(sch, remove_postproc=False)
                if all(postproc.apply(sch) for postproc in self.postprocs):
                    candidates.append(ms.search_strategy.MeasureCandidate(
                        sch, ms.arg_info.ArgInfo.from_entry_func(sch.mod, remove_preproc=True)))
                else:
                    failures += 1
            self.left -= len(candidates)
            return candidates or None

        def notify_runner_results(self, measure_candidates, results) -> None:
            pass

        def clone(self):
            return ReplayTrace(self.rng.randrange(2 ** 30), self.max_failures)

    @derived_object
    class InProcessBuilder(ms.builder.PyBuilder):
        """LocalBuilder's build and export, without pickling the module to a worker."""

        def build(self, build_inputs):
            results = []
            for build_input in build_inputs:
                try:
                    artifact = default_export(default_build(build_input.mod, build_input.target, None))
                    results.append(ms.builder.BuilderResult(artifact, None))
                except Exception as exc:  # noqa: BLE001 - a candidate that does not build is a failed trial
                    results.append(ms.builder.BuilderResult(None, f"{type(exc).__name__}: {exc}"))
            return results

    return ms, ReplayTrace, InProcessBuilder


def _plain(value):
    """An FFI JSON value (Array, String, IntImm) as plain lists, strings and numbers."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return str(value) if isinstance(value, str) else value
    if hasattr(value, "value"):
        return value.value
    return [_plain(item) for item in value]


def kernels(mod, target, pipeline: str = "default"):
    """The module ``tvm.compile``'s Relax pipeline (or the target's own, ``pipeline="target"``)
    leaves, and the names of its kernels: the PrimFuncs with blocks to schedule."""
    pipe = relax.get_default_pipeline(target) if pipeline == "target" else relax.get_pipeline("default")
    with target:
        lowered = pipe(mod)
    names = sorted(gv.name_hint for gv, func in lowered.functions.items()
                   if isinstance(func, tvm.tirx.PrimFunc) and schedulable(func))
    return lowered, names


def tune(mod, target_config: dict, trials: int, work_dir: str = "", pipeline: str = "default", seed: int = 0):
    """Tune each kernel of ``mod`` (a Relax module) for ``trials`` trials on this CPU; the best
    record of each as ``((kernel, trace JSON), ...)`` (passfuzz.portable.tuning_records), in kernel
    order. A kernel no trial built and ran is left out (it keeps the default schedule). The
    logs go to ``work_dir``, or to a temporary directory removed afterwards."""
    if not work_dir:
        with tempfile.TemporaryDirectory(prefix="passfuzz-tuning-") as temporary:
            return tune(mod, target_config, trials, temporary, pipeline, seed)
    _skip_tensor_intrinsics()
    ms, ReplayTrace, InProcessBuilder = _meta_schedule_classes()
    target = tvm.target.Target({**target_config, "num-cores": NUM_CORES})
    lowered, names = kernels(mod, target, pipeline)
    if not names:
        return ()
    os.makedirs(work_dir, exist_ok=True)
    database = ms.tir_integration.tune_tir(
        tvm.IRModule({name: lowered[name] for name in names}), target, work_dir,
        max_trials_global=trials * len(names), max_trials_per_task=trials, num_trials_per_iter=trials,
        builder=InProcessBuilder(), runner=ms.runner.LocalRunner(), database="memory", cost_model="random",
        strategy=ReplayTrace(seed), space=ms.space_generator.PostOrderApply(mutator_probs={}),
        task_scheduler="round-robin", num_tuning_cores=NUM_CORES, seed=seed)
    normalize = tvm.get_global_func("tvm.s_tir.meta_schedule.normalize_mod")
    records = []
    for name in names:
        workload = normalize(lowered[name])
        if database.has_workload(workload):
            best = database.get_top_k(database.commit_workload(workload), 1)
            if best:
                records.append((name, _plain(best[0].trace.as_json())))
    return tuple(records)

"""When a valid module fails its plain build, find the pass of TVM's build pipeline to blame.

Programs are valid by construction, so an unoptimized module that fails to compile or run under
``tvm.compile`` points at TVM's build pipeline or at passfuzz's catalogue. The child that failed
told which pipeline pass it was in (``passfuzz.run.pipeline_watch``) and which ones changed the module
before; the pass it failed in is tried first, then those earlier ones in pipeline order (passes
that only change the module's form last, see ``FORM_ONLY``). A
candidate is blamed when the build *without it* (``PassContext(disabled_pass=[...])``) compiles,
runs and matches the numpy reference: then the module is fine and that pass's effect breaks it.
Passes the build cannot do without (LegalizeOps, VMShapeLower) never pass that test, so a failure
only they could explain stays a generator defect, as does one that survives every candidate.

A pipeline pass that did not change the module has no effect to remove and is not tried. Every try
is a child of its own (a pass may crash or hang) with a short time limit: the module that runs is
small, and a failure that is a hang would otherwise cost the full limit per candidate.
"""

from __future__ import annotations

from typing import Sequence

from passfuzz.ir.program import Program
from passfuzz.run.execute import Outcome, run_side

from .oracle import reference_verdict

TRY_TIMEOUT = 20.0  # seconds, at most, for one build without a candidate pass
# Passes that only change the module's form (dataflow blocks into plain bindings, purity
# annotations, a reshape's copy into a view of its input): leaving one out changes what every later
# pass sees, which can hide a later pass's fault, so they are tried last. Measured: a crash of
# StaticPlanBlockMemory after an If (apache/tvm#17348) also goes away without ToNonDataflow, and was
# blamed on it before; without RewriteDataflowReshape (its reshapes become views the memory planner
# aliases, rewrite_dataflow_reshape.cc:104-108) the planner's storage reuse changes, which can hide
# the same crash.
FORM_ONLY = ("RewriteDataflowReshape", "ToNonDataflow", "RemovePurityChecking")


def candidates(original: Outcome) -> list[str]:
    """The pipeline passes to try leaving out, most suspect first: the one the build failed in,
    then those that changed the module in pipeline order, the form-only ones last."""
    first = [original.pipeline_pass] if original.pipeline_pass else []
    changed = [name for name in original.pipeline_changed if name not in first]
    return first + [name for name in changed if name not in FORM_ONLY] + [name for name in changed if name in FORM_ONLY]


def blame_pipeline(program: Program, original: Outcome, targets: Sequence[str], timeout: float) -> str:
    """The pipeline pass without which ``program`` builds, runs and matches numpy, or "" when there
    is none. ``original``: the plain build's failed Outcome."""
    if original.stage == "build":  # passfuzz's own module builder failed: nothing of TVM's ran
        return ""
    for name in candidates(original):
        without = run_side(program, None, targets, min(timeout, TRY_TIMEOUT), disabled=name)
        if without.ok:
            verdict = reference_verdict(program, without)
            if verdict.finding is None and not verdict.generator_defect:
                return name
    return ""

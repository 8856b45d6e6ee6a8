"""The modules' paths before the layers became folders, kept importable for one release.

Users import a few of them by name (``passfuzz.relax_build.to_tvm``, ``passfuzz.standalone`` in a
test of their own); a finder maps each old path to the module now holding it, with a
DeprecationWarning naming the new path. Remove after the release that follows 0.1.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

# old path -> new path; passfuzz.passes is a folder now, so its old module (PassSpec and the
# names) is at passfuzz.passes.names and cannot be aliased.
MOVED = {f"passfuzz.{old}": f"passfuzz.{new}" for old, new in {
    "program": "ir.program", "graph": "ir.graph", "catalogue": "ir.catalogue",
    "conventions": "portable.conventions", "finite_differences": "portable.finite_differences",
    "timing": "portable.timing", "standalone": "portable.standalone", "schedules": "portable.schedules",
    "dlight_rules": "portable.dlight_rules", "tuning_records": "portable.tuning_records",
    "pass_catalogue": "passes.catalogue", "pass_variants": "passes.variants", "contracts": "passes.contracts",
    "relax_build": "relax.build", "importer": "relax.importer", "models": "relax.models",
    "isolate": "run.isolate", "execute": "run.execute", "builds": "run.builds", "targets": "run.targets",
    "calling": "run.calling", "tuning": "run.tuning", "speed": "run.speed", "pipeline_watch": "run.pipeline_watch",
    "focus": "reach.focus",
    "oracle": "judge.oracle", "trial": "judge.trial", "gradient": "judge.gradient",
    "pipeline_blame": "judge.pipeline_blame", "known_cases": "judge.finding",
    "corpus": "findings.corpus", "known_bugs": "findings.known_bugs", "reproducer": "findings.reproducer",
    "report": "findings.report", "reduce": "findings.reduce", "finding_store": "findings.finding_store",
    "engine": "campaign.engine", "runs": "campaign.runs", "parallel": "campaign.parallel",
    "cluster": "campaign.cluster", "events": "campaign.events", "stats": "campaign.stats",
    "seeds": "campaign.seeds", "installation": "campaign.installation", "run_log": "campaign.run_log",
    "pass_arguments": "campaign.pass_arguments", "run_report": "cli.run_report",
}.items()}


def _new_path(old: str) -> str | None:
    """Where the module ``old`` is now: itself moved, or inside a moved package
    (passfuzz.catalogue.excluded is passfuzz.ir.catalogue.excluded)."""
    for moved, new in MOVED.items():
        if old == moved or old.startswith(moved + "."):
            return new + old[len(moved):]
    return None


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if _new_path(fullname):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        warnings.warn(f"{spec.name} moved to {_new_path(spec.name)}", DeprecationWarning, stacklevel=2)
        return importlib.import_module(_new_path(spec.name))  # the module itself, under both names

    def exec_module(self, module):
        pass


def install() -> None:
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Alias())  # before an editable install's finder, which knows the old files

"""Which pass of a build's Relax pipeline a side is in, seen from inside its child.

``tvm.compile`` and ``relax.build`` run the Relax pipeline as one pass (a module pass around a
``Sequential``), then generate VM code and lower TIR. A ``PassInstrument`` sees every pass run,
nested ones included, without rewriting how the build is called, so the side is compiled exactly as
its reproducer compiles it. The pipeline's own passes are the ones two levels inside the first
top-level pass (its ``Sequential``'s items); the passes of TIR lowering come after it.

A pass of the pipeline is left out with TVM's own ``PassContext(disabled_pass=[name])``, which
``Sequential`` honours; a reproducer script uses the same line.
"""

from __future__ import annotations

import contextlib

import tvm
import tvm_ffi

from . import isolate

PIPELINE_DEPTH = 2  # the pipeline pass (depth 0) > its Sequential (1) > the pipeline's passes (2)


@tvm.instrument.pass_instrument
class PipelineWatch:
    """Tells the parent (``isolate.note``) the pipeline pass running now ("pipeline_pass", "" once
    it is done) and the pipeline passes that changed the module so far ("pipeline_changed")."""

    def __init__(self) -> None:
        self.depth = 0
        self.top_level = 0  # top-level passes started: the first is the Relax pipeline
        self.before = 0
        self.changed: list[str] = []

    def _watched(self) -> bool:
        return self.top_level == 1 and self.depth == PIPELINE_DEPTH

    def run_before_pass(self, mod, info) -> None:
        if self.depth == 0:
            self.top_level += 1
        if self._watched():
            self.before = tvm_ffi.structural_hash(mod)
            isolate.note("pipeline_pass", info.name)
        self.depth += 1

    def run_after_pass(self, mod, info) -> None:
        self.depth -= 1
        if self._watched():
            if tvm_ffi.structural_hash(mod) != self.before:
                self.changed.append(info.name)
                isolate.note("pipeline_changed", tuple(self.changed))
            isolate.note("pipeline_pass", "")


@contextlib.contextmanager
def watched(disabled: str = ""):
    """Compile inside this: the pipeline is watched, and ``disabled`` (a pass name) left out."""
    with tvm.transform.PassContext(instruments=[PipelineWatch()], disabled_pass=[disabled] if disabled else []):
        yield

"""The fuzz loop: short Hypothesis rounds, each finding shrunk on its own, then reduced and saved.

Why rounds of ``@given`` rather than one long run: Hypothesis stops generating soon after its
first failure and replays known failures first, so one run finds one batch of bugs. A round is
``max_examples`` fresh examples under its own seed; a bug found in an earlier round (or already
in the corpus) is *known* and counts as a pass, so later rounds look for new ones.

Why one exception class per fingerprint: Hypothesis tells bugs apart by exception type and
raise site. Raising ``_finding_error(fingerprint)`` makes it shrink each bug separately and
refuse shrink candidates that slip into another bug.

Nothing is lost on Ctrl-C or a crash of passfuzz itself: the first sighting of a new bug is
saved at once, unshrunk, and the shrunk version replaces it under the same id.
"""

from __future__ import annotations

import dataclasses
import datetime
import random
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import tvm
from hypothesis import HealthCheck, Phase, Verbosity, event, given, seed, settings, target

from strategies import pass_sequences, relax_programs

from . import __version__, corpus, gradient
from .builds import PLAIN_BUILD, Build
from .contracts import sequence_violation
from .execute import Outcome, run_side
from .finding_store import CorpusStore, FindingStore
from .graph import evaluate
from .oracle import Finding, Verdict, judge, pipeline_verdict, probe_program, reference_verdict, target_verdict
from .pipeline_blame import blame_pipeline
from .passes import PassSpec
from .program import Program
from .reduce import Reducer, complexity
from .report import environment, render_report
from .reproducer import module_text, render_script

@dataclass
class FuzzConfig:
    passes: list[PassSpec] | None  # None: draw a sequence from pass_pool for every example
    targets: list[str]
    corpus_dir: Path = Path("corpus")
    max_examples: int | None = None
    max_time: float | None = None
    seed: int | None = None
    exitfirst: bool = False
    timeout: float = 60.0  # per side of one example
    round_size: int = 50
    reduce_seconds: float = 50.0  # reduction of one finding's passes and Program (passfuzz.reduce)
    shrink_seconds: float = 10.0  # Hypothesis' own shrinking, per new finding of a round
    shrink_grace: float = 300.0  # how long past --max-time a pending shrink may run
    max_nodes: int = 10
    pass_pool: list[str] = field(default_factory=list)
    max_passes: int = 4
    build: Build = PLAIN_BUILD  # how the optimized side is compiled
    ops: list[str] | None = None  # the ops programs are drawn from; None: the whole catalogue
    known_bugs: tuple[str, ...] = ()  # fingerprints known wherever passfuzz runs (passfuzz.known_bugs)
    dtypes: tuple[str, ...] | None = None  # the dtypes parameters and constants are drawn in; None: all
    focus: tuple[str, ...] = ()  # the ops most steps draw (passfuzz.focus); (): the whole catalogue alike
    focus_reason: str = ""  # where the focus comes from, for the start of the run
    focus_constants: bool = False  # the focused pattern wants constant operands
    focus_dtypes: tuple[str, ...] = ()  # the dtypes the focused rewrite checks for
    motifs_for: tuple[str, ...] = ()  # passes whose motifs are drawn first (the named passes, unless --focus none)


@dataclass
class Stats:
    examples: int = 0  # generated examples, both sides run
    shrink_runs: int = 0  # examples run while shrinking or reducing
    generator_defects: int = 0
    incomparable: int = 0
    fired: int = 0  # examples where the passes changed the module
    pass_runs: dict[str, int] = field(default_factory=dict)  # per pass: examples it ran in
    pass_fired: dict[str, int] = field(default_factory=dict)  # per pass: examples where it changed the module
    known: int = 0  # examples that hit an already known bug
    findings: dict[str, str] = field(default_factory=dict)  # new bugs of what was named: id -> .json record
    unblamed: dict[str, str] = field(default_factory=dict)  # new bugs of TVM's plain build (no pass to blame)
    outside_contract: dict[str, str] = field(default_factory=dict)  # misuse of a pass, saved apart, never a bug
    defect_samples: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    stop_reason: str = ""
    seed: int | None = None
    examples_by_worker: dict[str, int] = field(default_factory=dict)  # with several workers (passfuzz.parallel)
    workers_lost: list[str] = field(default_factory=list)  # workers that died or left mid-run

    def merge(self, other: "Stats") -> None:
        for name in ("examples", "shrink_runs", "generator_defects", "incomparable", "fired", "known"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("findings", "unblamed", "outside_contract", "examples_by_worker"):
            getattr(self, name).update(getattr(other, name))
        for name in ("pass_runs", "pass_fired"):
            mine = getattr(self, name)
            for key, value in getattr(other, name).items():
                mine[key] = mine.get(key, 0) + value
        self.defect_samples.extend(other.defect_samples[: 5 - len(self.defect_samples)])
        self.workers_lost.extend(other.workers_lost)


# While shrinking, a side may take this many times as long as the unoptimized side took before it
# counts as hung (never less than the floor, never more than --timeout): a candidate that still
# hangs then costs seconds, not the whole --timeout.
SHRINK_TIMEOUT_FACTOR = 10.0
SHRINK_TIMEOUT_FLOOR = 3.0


def shrink_timeout(original_seconds: float, timeout: float) -> float:
    return min(timeout, max(SHRINK_TIMEOUT_FLOOR, SHRINK_TIMEOUT_FACTOR * original_seconds))


def check(program: Program, passes: Sequence[PassSpec], targets: Sequence[str],
          timeout: float, build: Build = PLAIN_BUILD, shrinking: bool = False) -> tuple[Verdict, Outcome | None]:
    """Run both sides of one example and judge them. The original side is first held against
    the numpy reference, then across targets; if it disagrees, that is the verdict (no pass is
    judged on a suspect original); if it fails to build or run, a pass of TVM's build pipeline
    is blamed when one can be (passfuzz.pipeline_blame), else it is a generator defect. A finding
    that no single pass's stage explains (a wrong result, a compile or run failure) is pinned to
    the shortest prefix of the passes that shows the same kind, so the finding names the first
    bad pass; with a non-plain build the empty prefix counts too (the build alone may be at
    fault). ``shrinking``: every later side gets ``shrink_timeout``."""
    started = time.monotonic()
    original = run_side(program, None, targets, timeout)
    if shrinking:
        timeout = shrink_timeout(time.monotonic() - started, timeout)
    if not original.ok:  # a pass of TVM's build pipeline, or the generator, is at fault
        return pipeline_verdict(original, blame_pipeline(program, original, targets, timeout)), None
    reference = reference_verdict(program, original)
    if reference.finding is not None:  # name the op whose value disagrees first
        probe = run_side(probe_program(program), None, targets, timeout)
        reference = reference_verdict(program, original, probe)
    if reference.finding is not None or reference.generator_defect:
        return reference, None
    across = target_verdict(program, original)  # a codegen bug of one target, before any pass
    if across.finding is not None:
        return across, None
    if gradient.involved(passes):  # its own oracle: gradients against finite differences
        return gradient.check(program, passes, targets, timeout, build)
    optimized = run_side(program, passes, targets, timeout, build)
    with np.errstate(all="ignore"):
        expected = evaluate(program)  # says which side is wrong when the two differ
    verdict = judge(program, passes, original, optimized, build, expected)
    finding = verdict.finding
    if finding is not None and not finding.stage.startswith(("pass:", "well-formed:")):
        for end in range(0 if build.text else 1, len(passes)):
            shorter = run_side(program, passes[:end], targets, timeout, build)
            prefix_verdict = judge(program, passes[:end], original, shorter, build, expected)
            if prefix_verdict.finding is not None and prefix_verdict.finding.kind == finding.kind:
                return _contract_checked(prefix_verdict, shorter), shorter
    return _contract_checked(verdict, optimized), optimized


def _contract_checked(verdict: Verdict, optimized: Outcome) -> Verdict:
    """The verdict, its finding marked outside-contract when a pass up to the failure ran outside
    its contract: out of its pipeline phase (known from the pass list), or on a module it does not
    accept (seen by the child before the pass ran)."""
    finding = verdict.finding
    if finding is None or not finding.passes:
        return verdict
    broken = sequence_violation(finding.passes) or optimized.outside_contract
    return dataclasses.replace(verdict, finding=dataclasses.replace(finding, outside_contract=broken)) if broken \
        else verdict


class _StopFuzzing(KeyboardInterrupt):
    """Raised inside a round to end it at once (a KeyboardInterrupt, so Hypothesis aborts)."""


class _StopShrinking(KeyboardInterrupt):
    """Raised inside a round to end Hypothesis' shrinking: the smallest example seen of each new
    finding goes on to the graph reducer, which is cheaper per step."""


def _simplicity(program: Program, finding: Finding) -> tuple:
    """Which of two examples of one finding is simpler (smaller is)."""
    return len(finding.passes), complexity(program)


class FindingError(Exception):
    def __init__(self, finding: Finding, program: Program):
        super().__init__(finding.signature)
        self.finding, self.program = finding, program


_error_classes: dict[str, type[FindingError]] = {}


def _finding_error(fp: str) -> type[FindingError]:
    if fp not in _error_classes:
        _error_classes[fp] = type(f"Finding_{fp}", (FindingError,), {})
    return _error_classes[fp]


def _collect(exc: BaseException) -> list[FindingError]:
    if isinstance(exc, FindingError):
        return [exc]
    if isinstance(exc, BaseExceptionGroup):
        return [e for sub in exc.exceptions for e in _collect(sub)]
    return []


Notify = Callable[[str, dict], None]


class Fuzzer:
    def __init__(self, config: FuzzConfig, notify: Notify | None = None, worker: int = 0,
                 store: FindingStore | None = None):
        self.config = config
        self.store = store or CorpusStore(config.corpus_dir)  # where findings go, and known ones come from
        self.notify = notify or (lambda kind, data: None)
        self.worker = worker
        self.stats = Stats()
        self.seed = config.seed if config.seed is not None else random.SystemRandom().randrange(2**32)
        self.started = time.monotonic()
        self.interrupted = False  # set by Ctrl-C (SIGINT)

    # -- budget -----------------------------------------------------------------------------
    def _out_of_time(self, grace: float = 0.0) -> bool:
        return self.config.max_time is not None and time.monotonic() - self.started > self.config.max_time + grace

    def _examples_left(self) -> int | None:
        if self.config.max_examples is None:
            return None
        return self.config.max_examples - self.stats.examples

    # -- saving -----------------------------------------------------------------------------
    def save(self, finding: Finding, program: Program, passes: list[PassSpec], shrunk: bool,
             optimized: Outcome | None) -> Path:
        fid = corpus.finding_id(finding.kind, finding.fingerprint)
        targets = list(finding.targets) or self.config.targets[:1]
        record = {
            "format_version": corpus.FORMAT_VERSION, "id": fid, "kind": finding.kind, "fingerprint": finding.fingerprint,
            "signature": finding.signature, "message": finding.message, "stage": finding.stage,
            "passes": [p.text for p in passes], "build": self.config.build.text, "targets": targets,
            "tvm_version": tvm.__version__, "passfuzz_version": __version__,
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "seed": self.seed, "shrunk": shrunk, "program": program.to_json(),
            "module": module_text(program, passes), "log": finding.log[-4000:], "environment": environment(),
        }
        if finding.pipeline_pass:
            record["pipeline_pass"] = finding.pipeline_pass
        script = render_script(program, passes, finding, record["module"], targets, self.config.timeout, optimized,
                               self.config.build)
        if finding.outside_contract:  # misuse: kept for the curious, apart from the bugs
            record["outside_contract"] = finding.outside_contract
            path = self.store.save(corpus.OUTSIDE_CONTRACT, record, script, render_report(record, script))
            self.stats.outside_contract[fid] = str(path)
        else:
            path = self.store.save("", record, script, render_report(record, script))
            (self.stats.findings if finding.blamed else self.stats.unblamed)[fid] = str(path)
        return path

    def _count(self, program: Program, verdict: Verdict, optimized: Outcome | None, passes: list[PassSpec],
               known: set[str], shrinking: bool) -> Finding | None:
        """Record one example in the statistics (and as Hypothesis events, the fuzzer's coverage
        signal); return its finding if it is a new bug."""
        if optimized is not None and not shrinking:
            self._count_fired(optimized, passes)
        if verdict.generator_defect:
            self.stats.generator_defects += 1
            if len(self.stats.defect_samples) < 5:
                self.stats.defect_samples.append(verdict.generator_defect)
            event("generator defect")
        elif verdict.incomparable:
            self.stats.incomparable += 1
            event("incomparable")
        elif verdict.finding is not None and verdict.finding.fingerprint in known:
            self.stats.known += 1
            event(f"known bug {verdict.finding.fingerprint}")
        elif verdict.finding is not None and verdict.finding.outside_contract:
            # Saved unshrunk, once: what a pass does outside its contract is no bug to shrink.
            path = self.save(verdict.finding, program, list(verdict.finding.passes), shrunk=False,
                             optimized=optimized)
            known.add(verdict.finding.fingerprint)
            self.notify("outside-contract", {"finding": verdict.finding, "path": path})
            event("outside contract")
        else:
            return verdict.finding
        return None

    def _count_fired(self, optimized: Outcome, passes: list[PassSpec]) -> None:
        """Fire rates per pass, shown in the summary; and a Hypothesis target, so that
        generation leans toward programs the passes actually rewrite."""
        if optimized.changed:
            self.stats.fired += 1
            event("passes changed the module")
        if optimized.status not in ("ok", "incomparable"):
            return  # the passes did not all run
        for name in dict.fromkeys(p.text for p in passes):
            self.stats.pass_runs[name] = self.stats.pass_runs.get(name, 0) + 1
        for name in dict.fromkeys(optimized.fired):
            self.stats.pass_fired[name] = self.stats.pass_fired.get(name, 0) + 1
            event(f"{name} changed the module")
        target(float(len(optimized.fired)), label="passes that changed the module")

    # -- one round --------------------------------------------------------------------------
    def _round(self, round_seed: int, max_examples: int) -> list[FindingError]:
        known = self.store.known() | set(self.config.known_bugs)
        pending: dict[str, Path] = {}  # new in this round: saved unshrunk, shrinking now
        smallest: dict[str, FindingError] = {}  # per pending fingerprint, the simplest example seen
        shrink_deadline = [0.0]  # Hypothesis' shrinking budget: shrink_seconds per pending finding

        def example(program: Program, passes: list[PassSpec]) -> None:
            if self.interrupted:
                raise _StopFuzzing()
            if not pending and (self._out_of_time() or self._examples_left() == 0):
                raise _StopFuzzing()
            if pending and self._out_of_time(self.config.shrink_grace):
                raise _StopFuzzing()  # the unshrunk findings are already saved
            if pending and time.monotonic() > shrink_deadline[0]:
                raise _StopShrinking()
            if pending:
                self.stats.shrink_runs += 1
            else:
                self.stats.examples += 1
            verdict, optimized = check(program, passes, self.config.targets, self.config.timeout,
                                       self.config.build, shrinking=bool(pending))
            finding = self._count(program, verdict, optimized, passes, known, shrinking=bool(pending))
            self.notify("example", {"stats": self.stats})
            if pending and verdict.finding is not None and verdict.finding.fingerprint not in pending \
                    and verdict.finding.fingerprint in known | self.store.known():
                raise _StopShrinking()  # a known bug (or one another worker saved meanwhile) is not shrunk here
            if finding is None:
                return
            if finding.fingerprint not in pending:
                pending[finding.fingerprint] = self.save(finding, program, list(finding.passes), shrunk=False,
                                                         optimized=optimized)
                shrink_deadline[0] = max(shrink_deadline[0], time.monotonic()) + self.config.shrink_seconds
                self.notify("new", {"finding": finding, "path": pending[finding.fingerprint]})
            error = _finding_error(finding.fingerprint)(finding, program)
            best = smallest.get(finding.fingerprint)
            if best is None or _simplicity(program, finding) < _simplicity(best.program, best.finding):
                smallest[finding.fingerprint] = error
            raise error

        configure = settings(
            database=None, max_examples=max_examples, deadline=None, derandomize=False,
            phases=[Phase.generate, Phase.target, Phase.shrink], suppress_health_check=list(HealthCheck),
            report_multiple_bugs=True, verbosity=Verbosity.quiet, print_blob=False,
        )
        if self.config.passes is not None and gradient.involved(self.config.passes):  # loss programs
            programs = relax_programs(ops=gradient.loss_ops(self.config.ops), max_nodes=self.config.max_nodes,
                                      loss=True)
        else:
            programs = relax_programs(ops=self.config.ops, max_nodes=self.config.max_nodes, focus=self.config.focus,
                                      focus_constants=self.config.focus_constants,
                                      focus_dtypes=self.config.focus_dtypes, motifs_for=self.config.motifs_for,
                                      **({"dtypes": self.config.dtypes} if self.config.dtypes else {}))
        if self.config.passes is None:  # the pass sequence is part of the example, so it shrinks too
            sequences = pass_sequences(self.config.pass_pool, max_passes=self.config.max_passes)
            test = given(programs, sequences)(example)
        else:
            test = given(programs)(lambda program: example(program, self.config.passes))
        test = configure(seed(round_seed)(test))
        try:
            test()
        except _StopShrinking:
            return list(smallest.values())
        except _StopFuzzing:  # run() tells which budget ran out
            return []
        except BaseException as exc:  # noqa: BLE001 - findings come back as (groups of) FindingError
            found = _collect(exc)
            if not found:
                raise
            return found
        return []

    def reduce_and_save(self, error: FindingError) -> Path:
        """Reduce a shrunk finding (its passes and its Program, passfuzz.reduce) and save it over
        its first sighting. Every run here is a shrink run, with its time limit derived from the
        unoptimized side's (``shrink_timeout``)."""
        fp = error.finding.fingerprint

        def run(program: Program, passes: Sequence[PassSpec]) -> tuple[Verdict, Outcome | None]:
            if self.interrupted:
                raise KeyboardInterrupt
            self.stats.shrink_runs += 1
            return check(program, list(passes), self.config.targets, self.config.timeout, self.config.build,
                         shrinking=True)

        def same_bug(program: Program, passes: Sequence[PassSpec]) -> bool:
            verdict, _ = run(program, passes)
            return verdict.finding is not None and verdict.finding.fingerprint == fp

        passes = tuple(error.finding.passes)
        verdict, optimized = run(error.program, passes)
        reproduced = verdict.finding is not None and verdict.finding.fingerprint == fp
        fired = optimized.fired if optimized is not None else ()
        unchanged = [p.text for p in passes if p.text not in fired] if reproduced else []
        program, passes = error.program, passes
        if reproduced:
            program, passes = Reducer(same_bug, self.config.reduce_seconds).reduce(program, passes, unchanged)
            if (program, passes) != (error.program, tuple(error.finding.passes)):
                verdict, optimized = run(program, passes)
        finding = verdict.finding if verdict.finding and verdict.finding.fingerprint == fp else None
        if finding is None:  # no longer reproduces (flaky): keep Hypothesis' example as it was seen
            finding, program, optimized = error.finding, error.program, None
        path = self.save(finding, program, list(finding.passes), shrunk=True, optimized=optimized)
        self.notify("saved", {"finding": finding, "path": path, "program": program})
        return path

    def _on_sigint(self, signum, frame) -> None:
        # The first Ctrl-C only sets a flag, checked between examples: raised at an arbitrary
        # point, a KeyboardInterrupt can land in a TVM callback and be swallowed. A second
        # Ctrl-C interrupts at once.
        if self.interrupted:
            raise KeyboardInterrupt
        self.interrupted = True

    def run(self) -> Stats:
        round_number = 0
        self.stats.seed = self.seed
        previous = signal.signal(signal.SIGINT, self._on_sigint) \
            if threading.current_thread() is threading.main_thread() else None
        try:
            while True:
                left = self._examples_left()
                if left is not None and left <= 0:
                    self.stats.stop_reason = "max examples reached"
                    break
                if self._out_of_time():
                    self.stats.stop_reason = "max time reached"
                    break
                round_seed = random.Random(f"{self.seed}:{self.worker}:{round_number}").randrange(2**32)
                round_number += 1
                size = self.config.round_size if left is None else min(self.config.round_size, left)
                for error in self._round(round_seed, size):
                    self.reduce_and_save(error)
                if self.interrupted:
                    raise KeyboardInterrupt
                if self.config.exitfirst and self.stats.findings:  # only a bug of what was named stops -x
                    self.stats.stop_reason = "stopped after the first finding (-x)"
                    break
                if self.stats.stop_reason:
                    break
        except KeyboardInterrupt:
            self.stats.stop_reason = "interrupted"
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
            self.stats.elapsed = time.monotonic() - self.started
        return self.stats


"""What the user sees: a live display on a terminal, finding notices, the final summary.

Execution never prints; it emits events (passfuzz.campaign.events) that the Console renders. The
results (each finding as it is seen and saved, and the summary) go to stdout, so ``passfuzz ... >
results.txt`` keeps them; progress and notes go to stderr. On a terminal the progress is a rich
live display (passfuzz.cli.live); when stderr is a file or a pipe (CI logs), a plain progress line
every 30 s (5 s with ``-v``), which scripts and tests read. ``-q`` leaves out progress and notes.
"""

from __future__ import annotations

import os
import sys
import time

from passfuzz.campaign.events import (
    ClusterJoined,
    Event,
    ExampleChecked,
    FindingSaved,
    FindingSeen,
    InternalError,
    Observed,
    OutsideContract,
    Replanned,
    VariantSeen,
    WorkerLost,
    WorkerRefused,
)

_REFRESH_SECONDS = 0.25  # live display on a terminal
_LOG_SECONDS = 30.0  # progress line when stderr is a file or a pipe (CI logs)
_VERBOSE_LOG_SECONDS = 5.0  # the same with -v
QUIET, NORMAL, VERBOSE = -1, 0, 1  # verbosity: -q, neither, -v


def counted(count: int, noun: str) -> str:
    """'1 example', '2 examples'."""
    return f"{count} {noun}{'s' * (count != 1)}"


def clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Console:
    """``stream`` (stderr) takes progress and notes, ``out`` (stdout; by default ``stream`` when
    that is given alone) the findings and the summary. ``terminal``: a rich Console to show the
    live display on; by default one on ``stream`` when that is a terminal, else none (plain lines).
    ``verbosity``: QUIET (no progress, no notes but warnings), NORMAL or VERBOSE (progress lines every 5 s)."""

    def __init__(self, stream=None, terminal=None, out=None, verbosity: int = NORMAL):
        self.out = out or stream or sys.stdout
        self.stream = stream or sys.stderr
        self.verbosity = verbosity
        if terminal is None and self.stream.isatty() and verbosity > QUIET:
            from rich.console import Console as RichConsole
            terminal = RichConsole(file=self.stream)
        self.display = None
        if terminal is not None:
            from .live import LiveDisplay
            self.display = LiveDisplay(terminal)
        self.live = self.display is not None
        self.started = time.monotonic()
        self.last_progress = 0.0

    def _write(self, text: str, warning: bool = False) -> None:
        """Progress and notes: stderr; with -q, warnings alone."""
        if self.verbosity == QUIET and not warning:
            return
        if self.display is not None:
            self.display.print(text)
            return
        self.stream.write(text + "\n")
        self.stream.flush()

    def _result(self, text: str) -> None:
        """Findings and the summary: stdout (above the live display when both are the terminal)."""
        if self.display is not None and self.display.live is not None and self.out.isatty():
            self.display.print(text)
            return
        self.out.write(text + "\n")
        self.out.flush()

    def result(self, text: str) -> None:
        """A result (stdout), as a finding and the summary are."""
        self._result(text)

    def close(self) -> None:
        """End the live display (erased: the summary that follows says it all)."""
        if self.display is not None:
            self.display.stop()

    def note(self, text: str) -> None:
        self._write(f"passfuzz: {text}", warning=text.startswith("warning:"))

    def start(self, config, workers: int) -> None:
        budget = []
        if config.max_examples is not None:
            budget.append(counted(config.max_examples, "example"))
        if config.max_time is not None and config.shrink_grace:
            budget.append(f"{config.max_time:g} s, then up to {config.shrink_grace:g} s to shrink and reduce what it "
                          f"found: at most {config.max_time + config.shrink_grace:g} s in all")
        elif config.max_time is not None:
            budget.append(f"{config.max_time:g} s in all, shrinking and reduction included")
        seed = f", seed {config.seed}" if config.seed is not None else ""
        what = ",".join(p.text for p in config.passes) if config.passes is not None else \
            f"random sequences of up to {config.max_passes} of {len(config.pass_pool)} passes"
        if config.build.text:
            what = f"{what} compiled with {config.build.text}" if what else f"the build {config.build.text}"
        if config.ops:
            what += f" (ops: {','.join(config.ops)})"
        self.note(f"fuzzing {what} on {','.join(config.targets)} "
                  f"({' or '.join(budget) or 'until interrupted'}, {counted(workers, 'worker')}{seed}); "
                  f"findings go to {config.corpus_dir}{os.sep}")
        if config.seeds:
            self.note(f"half the programs are mutations of {len(config.seeds)} seed(s), half drawn from scratch"
                      if config.fresh_too else f"programs are mutations of {len(config.seeds)} seed(s)")
        if config.focus:
            self.note(f"focus: {','.join(config.focus)} ({config.focus_reason})")
        elif config.focus_reason:
            self.note(config.focus_reason)
        if config.speed is not None:
            self.note(f"timing every example whose passes changed the module: a slowdown is optimized/original "
                      f"above {config.speed.threshold:g}x with {1 - config.speed.alpha:.0%} confidence")
        if self.display is not None:
            self.display.start(config, workers, self.started)

    def handle(self, event: Event) -> None:
        match event:
            case ExampleChecked(stats=stats):
                self._progress(stats)
            case FindingSeen(finding=finding, path=path):
                blame = "" if finding.blamed else " of TVM's plain build (no pass to blame)"
                self._result(f"new finding{blame} {finding.kind}: {finding.message[:160]}\n"
                             f"  saved unshrunk to {path}; shrinking...")
            case OutsideContract(finding=finding, path=path):
                self._result(f"outside the pass contracts, not a bug: {finding.kind}: {finding.message[:120]}\n"
                             f"  because {finding.outside_contract[:200]}\n  saved apart to {path}")
            case Observed(observation=observation, path=path):
                self._result(f"observed, not a bug: {observation.kind}: {observation.message[:160]}\n"
                             f"  saved apart to {path}")
            case VariantSeen(finding=finding, path=path):
                self._result(f"a variant of the known fault {finding.variant_of}, not a new bug: {finding.kind}: "
                             f"{finding.message[:120]}\n  saved apart to {path}")
            case ClusterJoined(scheduler=scheduler, workers=workers, multithreaded=multithreaded):
                self.note(f"on {len(workers)} worker{'s' * (len(workers) > 1)} of the Dask cluster at "
                          f"{scheduler}: {', '.join(workers)}")
                if multithreaded:
                    self.note(f"{len(multithreaded)} of them run several threads, of which passfuzz uses one "
                              "(one fuzzer per worker process): start workers with --nthreads 1, one per core")
            case WorkerRefused(why=why):
                self._write(f"a worker joined and gets no work: {why}")
            case WorkerLost(worker=worker, why=why):
                self._write(f"worker {worker} lost ({why}); the others go on")
            case FindingSaved(program=program, path=path):
                self._result(f"shrunk to {program.summary()}\n  saved {path}\n"
                             f"  reproduce: python {str(path)[:-5]}.py")
            case Replanned(reason=reason):
                self._write(f"re-planned: {reason}")
            case InternalError(error=error, path=path):
                self._write(f"passfuzz itself failed (its bug, please report it with the traceback"
                            f"{' in ' + path if path else ''}): {error}; the round is dropped, the run goes on")
            case _:
                raise TypeError(f"not an event: {event!r}")

    def _progress(self, stats) -> None:
        now = time.monotonic()
        period = _REFRESH_SECONDS if self.live else _VERBOSE_LOG_SECONDS if self.verbosity == VERBOSE else _LOG_SECONDS
        if self.verbosity == QUIET or now - self.last_progress < period:
            return
        self.last_progress = now
        if self.display is not None:
            self.display.update(stats)
            return
        elapsed = now - self.started
        self._write(f"{clock(elapsed)}  {stats.examples} examples  {stats.examples / max(elapsed, 1e-9):.1f}/s  "
                    f"findings {len(stats.findings)}  known {stats.known}  generator defects {stats.generator_defects}")

    def summary(self, stats, config, unshrunk: set[str] = frozenset(), resume=None) -> None:
        """The run's summary. Of a run interrupted (Ctrl-C): ``unshrunk``, the fingerprints of the
        findings left in progress (saved as first seen), and ``resume``, the run directory that
        ``passfuzz --resume`` continues (None: a cluster run, which cannot be resumed)."""
        self.close()
        elapsed = max(time.monotonic() - self.started, stats.elapsed)  # a resumed run's includes the time before
        rate = stats.examples / max(elapsed, 1e-9)
        fired = 100.0 * stats.fired / max(stats.examples, 1)
        lines = [
            f"{stats.examples} examples in {elapsed:.1f} s ({rate:.2f}/s), {stats.shrink_runs} shrink runs; "
            f"stop: {stats.stop_reason or 'done'}; seed {stats.seed}"
            + (f"; {len(stats.workers_lost)} worker{'s' * (len(stats.workers_lost) > 1)} lost"
               if stats.workers_lost else ""),
            ("" if config.passes == [] else f"the passes changed the module in {fired:.0f}% of examples; ")
            + f"incomparable {stats.incomparable}; known bugs hit {stats.known}; "
              f"generator defects {stats.generator_defects}"
            + (f"; passfuzz's own errors {stats.internal_errors} (rounds dropped)" if stats.internal_errors else ""),
        ]
        rates = sorted(((stats.pass_fired.get(name, 0) / runs, name, runs) for name, runs in stats.pass_runs.items()),
                       key=lambda r: (-r[0], r[1]))
        if rates:
            shown = ", ".join(f"{name} {100 * rate:.0f}% of {runs}" for rate, name, runs in rates[:12])
            lines.append(f"fire rate (examples where the pass changed the module): {shown}"
                         + (f", and {len(rates) - 12} more" if len(rates) > 12 else ""))
        floor = config.min_fire_rate or 0.0
        for name, rate, runs in stats.rarely_fired(config.named, floor) if stats.examples else ():
            lines.append(f"warning: {name} changed the module in {100 * rate:.1f}% of {runs} examples"
                         + (f", below --min-fire-rate {100 * floor:g}%" if floor else "")
                         + ": what it does was barely tested (--focus, --seeds or your own --ops may reach it)")
        if stats.behaviours:
            lines.append(f"behaviours of the named passes first seen: {stats.behaviours}, the last "
                         f"{clock(stats.last_new_behaviour)} into the run")
        if stats.known_hits:  # which ones, so a run's known hits can be looked up without running it again
            names = dict(config.fault_names)
            names.update((fid.rsplit("-", 1)[-1], names.get(where.split(" ", 1)[0], where.split(" ", 1)[0]))
                         for fid, where in stats.variants.items())  # a variant this run saved, met again
            from passfuzz.findings.known_bugs import hits_by_fault  # TVM: only once a run has hit one

            hits = hits_by_fault(stats.known_hits, names)
            lines.append(f"known faults hit ({len(hits)}; passfuzz known ID shows one):")
            lines += [f"  {name}: {counted(count, 'hit')}" for name, count in hits]
        if stats.examples_by_worker:
            lines.append("examples by worker: " + ", ".join(f"{name} {count}"
                                                           for name, count in stats.examples_by_worker.items()))
        lines += [f"  generator defect: {sample}" for sample in stats.defect_samples]

        def listed(findings: dict[str, str]) -> list[str]:
            return [f"  {path}    reproduce: python {path[:-5]}.py"
                    + ("    (unshrunk)" if fid.rsplit("-", 1)[-1] in unshrunk else "")
                    for fid, path in sorted(findings.items())]

        if stats.findings:
            lines.append(f"{len(stats.findings)} new finding{'s' * (len(stats.findings) > 1)}:")
            lines += listed(stats.findings)
        else:
            lines.append("no new finding")
        if stats.unblamed:
            lines.append(f"{len(stats.unblamed)} new bug{'s' * (len(stats.unblamed) > 1)} of TVM's plain build, "
                         "blaming no pass (the unoptimized module is already wrong, against numpy or across targets):")
            lines += listed(stats.unblamed)
        if stats.outside_contract:
            lines.append(f"{len(stats.outside_contract)} finding{'s' * (len(stats.outside_contract) > 1)} outside the "
                         "pass contracts (misuse, not bugs), saved apart:")
            lines += [f"  {path}" for _, path in sorted(stats.outside_contract.items())]
        if stats.missed_rewrites or stats.not_idempotent:
            lines.append(f"observations (not bugs): {counted(stats.missed_rewrites, 'missed rewrite')}, "
                         f"{stats.not_idempotent} not idempotent; the first of each saved apart"
                         + (":" if stats.missed else " (all seen before)"))
            lines += [f"  {path}" for _, path in sorted(stats.missed.items())]
        if stats.variants:
            names = dict(config.fault_names)
            lines.append(f"{counted(len(stats.variants), 'variant')} of known faults (matching their signatures; "
                         "saved apart, not counted as new):")
            for _, where in sorted(stats.variants.items()):
                fault, _, path = where.partition(" ")
                lines.append(f"  {names.get(fault, fault)}: {path}")
        if stats.stop_reason == "interrupted":
            lines.append(_interrupted(stats, unshrunk, resume))
        self._result("\n".join(f"passfuzz: {line}" if i == 0 else line for i, line in enumerate(lines)))


def _interrupted(stats, unshrunk: set[str], resume) -> str:
    """The summary's last line for a run stopped by Ctrl-C: what is left unshrunk, and how to finish."""
    left = [fid for fid in (*stats.findings, *stats.unblamed) if fid.rsplit("-", 1)[-1] in unshrunk]
    if resume is None:
        return "interrupted: a cluster run cannot be resumed; a finding saved unshrunk stays as first seen " \
               "(passfuzz replay --rewrite --reduce RECORD reduces it)"
    if left:
        return (f"interrupted: {counted(len(left), 'finding')} marked (unshrunk) {'is' if len(left) == 1 else 'are'} "
                f"saved as first seen, not yet shrunk; passfuzz --resume {resume} finishes shrinking "
                f"{'it' if len(left) == 1 else 'them'} and the run")
    return f"interrupted: passfuzz --resume {resume} continues the run"


def print_rich(renderable) -> None:
    """A rich table on stdout, wrapped to the terminal's width (80 columns, or $COLUMNS, when stdout
    is a file or a pipe)."""
    from rich.console import Console as RichConsole

    RichConsole(soft_wrap=False, highlight=False).print(renderable)

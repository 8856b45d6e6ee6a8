"""The run directory: what a run needs to be continued after Ctrl-C or SIGKILL (``--resume DIR``).

A run writes ``<corpus>/.runs/<run id>/`` (the run id is the UTC start time and a random suffix):

- ``run.json``: the run's arguments, as parsed, with the seed drawn and the corpus made absolute,
  so that ``--resume`` rebuilds the same configuration;
- ``worker-<i>.json``, one per fuzzing process: its *position* in its seed stream (the next round
  to run: round ``r`` of worker ``w`` is seeded from ``"{seed}:{w}:{r}"``, so the position is all
  a resumed worker needs to generate what the run would have), its statistics at that position
  (the budgets left are the run's budgets minus them), and its findings in progress;
- ``hypothesis/``: Hypothesis' own files (its cache of the constants in local source files),
  kept here rather than in ``.hypothesis/`` of the working directory.

A round is the unit of progress: a round cut off is run again from its start, with the statistics
as they were before it. A finding in progress is one saved unshrunk whose shrinking or reduction
has not finished; its entry holds the simplest example of it seen so far (the Finding, with the
passes it needs, and the Program), and it is written *before* the unshrunk finding is saved to the
corpus and every time a simpler example is seen, so a kill at any moment leaves either no trace
of the finding (and the resumed round finds it again) or an entry to reduce from.

Every file is written atomically (``corpus.atomic_write``). The directory starts with a dot, so
the corpus loaders (which read ``*.json`` one level deep) never take it for records.
"""

from __future__ import annotations

import datetime
import json
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from passfuzz.findings.corpus import atomic_write
from passfuzz.ir.catalogue import OpError
from passfuzz.ir.program import Program, ProgramError
from passfuzz.judge.finding import Finding

RUNS = ".runs"  # inside the corpus
ARGUMENTS = "run.json"
HYPOTHESIS = "hypothesis"  # Hypothesis' storage directory (passfuzz.campaign.engine.keep_hypothesis_files_in)
BEHAVIOURS = "started.json"  # what the run planned from the corpus: behaviours, focus (write_start)
FORMAT_VERSION = 1


class RunDirError(ValueError):
    """A directory that is not a run directory passfuzz can resume; the message is one line."""


def new_run_dir(corpus_dir: Path) -> Path:
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    path = corpus_dir.resolve() / RUNS / f"{stamp}-{secrets.token_hex(3)}"
    path.mkdir(parents=True)
    return path


def write_arguments(run_dir: Path, arguments: dict) -> None:
    atomic_write(run_dir / ARGUMENTS, json.dumps({"format_version": FORMAT_VERSION, "arguments": arguments},
                                                 indent=1) + "\n")


def read_arguments(run_dir: Path) -> dict:
    if not run_dir.is_dir():
        raise RunDirError(f"{run_dir}: " + ("not a directory" if run_dir.exists() else "no such run directory"))
    if not (run_dir / ARGUMENTS).is_file():
        raise RunDirError(f"{run_dir}: not a run directory passfuzz can resume: it holds no {ARGUMENTS}"
                          f"{_runs_hint(run_dir)}")
    try:
        doc = json.loads((run_dir / ARGUMENTS).read_text(encoding="utf-8"))
        if doc["format_version"] != FORMAT_VERSION or not isinstance(doc["arguments"], dict):
            raise ValueError("unknown format")
        return doc["arguments"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RunDirError(f"{run_dir}: not a run directory passfuzz can resume ({ARGUMENTS}: "
                          f"{type(exc).__name__}: {exc})") from None


def _runs_hint(directory: Path) -> str:
    """'; the latest run in it is DIR' when ``directory`` is a corpus or its .runs/ (a user giving the
    corpus for the run); else a word on where run directories are."""
    runs = directory / RUNS if (directory / RUNS).is_dir() else directory
    try:
        latest = sorted((path for path in runs.iterdir() if (path / ARGUMENTS).is_file()), key=lambda p: p.name)
    except OSError:
        latest = []
    if latest:
        return f"; the latest run in it is {latest[-1]}"
    return f" (a run directory is <corpus>/{RUNS}/<run id>/, printed when the run starts)"


def findings_in_progress(run_dir: Path, seed: int) -> set[str]:
    """The fingerprints of the findings the run's workers left in progress (saved unshrunk, their
    shrinking or reduction cut off): what ``--resume`` finishes. A worker file that cannot be read
    says nothing."""
    found: set[str] = set()
    for path in run_dir.glob("worker-*.json"):
        number = path.stem.split("-", 1)[1]
        if not number.isdigit():
            continue
        try:
            progress = read_progress(run_dir, int(number), seed)
        except RunDirError:
            continue
        if progress is not None:
            found.update(progress.in_progress)
    return found


def findings_saved(run_dir: Path) -> dict[str, dict[str, str]]:
    """What the run's workers saved by their last recorded round, by where it was listed: the
    ``findings``, ``unblamed`` and ``outside_contract`` of their statistics (finding id -> record
    path), for ``passfuzz report``. A worker file that cannot be read says nothing."""
    saved: dict[str, dict[str, str]] = {"findings": {}, "unblamed": {}, "outside_contract": {}}
    for path in sorted(run_dir.glob("worker-*.json")):
        try:
            stats = json.loads(path.read_text(encoding="utf-8"))["stats"]
            for what, listed in saved.items():
                listed.update({str(fid): str(record) for fid, record in stats.get(what, {}).items()})
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
    return saved


# What a run planned from the state of the corpus when it started (its behaviour corpus, the
# probe's cache): a resumed run uses these, not what the corpus holds by then, so it draws what the
# uninterrupted run would.
STARTED_WITH = ("behaviours", "focus", "focus_reason", "focus_constants", "focus_dtypes", "focus_feeds")


def write_start(run_dir: Path, config) -> None:
    """The parts of ``config`` (a FuzzConfig) planned from the corpus, as JSON."""
    doc = {name: getattr(config, name) for name in STARTED_WITH}
    doc["behaviours"] = [program.to_json() for program in config.behaviours]
    atomic_write(run_dir / BEHAVIOURS, json.dumps(doc) + "\n")


def read_start(run_dir: Path) -> dict | None:
    """``write_start``'s fields, as FuzzConfig takes them; None for a run directory without them
    (an older passfuzz's). A program that no longer analyses (another catalogue) is a RunDirError."""
    from passfuzz.ir.graph import analyse

    try:
        doc = json.loads((run_dir / BEHAVIOURS).read_text(encoding="utf-8"))
        programs = tuple(Program.from_json(program) for program in doc["behaviours"])
        for program in programs:
            analyse(program)
        return {"behaviours": programs, "focus": tuple(doc["focus"]), "focus_reason": str(doc["focus_reason"]),
                "focus_constants": bool(doc["focus_constants"]), "focus_dtypes": tuple(doc["focus_dtypes"]),
                "focus_feeds": tuple(tuple(feed) for feed in doc["focus_feeds"])}
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError, KeyError, ProgramError, OpError) as exc:
        raise RunDirError(f"{run_dir / BEHAVIOURS}: cannot resume from it: {type(exc).__name__}: {exc}") from None


@dataclass
class Progress:
    """One worker's position, its statistics there (``stats.Stats`` as a dict), its findings
    in progress: fingerprint -> (Finding, Program) of the simplest example seen, and the round
    each of its findings was first seen in (a round cut off and run again ends where it ended
    the first time: at the first example of a bug first seen in it)."""

    next_round: int = 0
    stats: dict = field(default_factory=dict)
    in_progress: dict[str, tuple[Finding, Program]] = field(default_factory=dict)
    first_seen: dict[str, int] = field(default_factory=dict)  # fingerprint -> the round that first saw it
    focus: tuple[str, ...] | None = None  # the focus a re-plan chose (passfuzz.reach.replan); None: the run's own
    replanned: list[str] = field(default_factory=list)  # the passes re-planned for, once each


def _worker_file(run_dir: Path, worker: int) -> Path:
    return run_dir / f"worker-{worker}.json"


def write_progress(run_dir: Path, worker: int, seed: int, progress: Progress) -> None:
    doc = {"format_version": FORMAT_VERSION, "seed": seed, "next_round": progress.next_round,
           "stats": progress.stats, "first_seen": progress.first_seen,
           "focus": None if progress.focus is None else list(progress.focus), "replanned": progress.replanned,
           "in_progress": [{"finding": {**finding.to_json(), "log": finding.log[-4000:]},
                            "program": program.to_json()} for finding, program in progress.in_progress.values()]}
    atomic_write(_worker_file(run_dir, worker), json.dumps(doc) + "\n")


def read_progress(run_dir: Path, worker: int, seed: int) -> Progress | None:
    """The worker's saved progress; None if it has none yet (it starts at round 0)."""
    path = _worker_file(run_dir, worker)
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc["format_version"] != FORMAT_VERSION or doc["seed"] != seed:
            raise ValueError(f"written by a run with seed {doc['seed']}, not {seed}")
        in_progress = {}
        for entry in doc["in_progress"]:
            finding = Finding.from_json(entry["finding"])
            in_progress[finding.fingerprint] = (finding, Program.from_json(entry["program"]))
        first_seen = {str(fp): int(number) for fp, number in doc["first_seen"].items()}
        focus = doc.get("focus")
        return Progress(int(doc["next_round"]), dict(doc["stats"]), in_progress, first_seen,
                        None if focus is None else tuple(focus), list(doc.get("replanned", [])))
    except (OSError, ValueError, KeyError, TypeError, ProgramError) as exc:
        raise RunDirError(f"{path}: cannot resume from it: {type(exc).__name__}: {exc}") from None

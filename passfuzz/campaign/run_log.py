"""The run log: the run's figures as one JSON line every few seconds, in ``<run dir>/log.jsonl``.

The writer is a consumer of the engine's events, as the Console is: each ``ExampleChecked``
carries the statistics so far, of which it keeps a copy; a timer thread writes the copy out, so
lines keep coming while one example, or a reduction that sends no event, runs for a minute.
Memory is measured when a line is written. Each line is one ``write`` of a whole line, so a
killed run leaves at most a truncated last line, which ``read`` skips with a warning.
"""

from __future__ import annotations

import datetime
import json
import os
import resource
import sys
import threading
import time
from importlib import resources
from pathlib import Path

import jsonschema

from .events import Event, ExampleChecked

FORMAT_VERSION = 1  # of a line; the schema pins it
LOG_NAME = "log.jsonl"
INTERVAL_SECONDS = 5.0

_COUNTS = ("examples", "shrink_runs", "known", "generator_defects", "incomparable", "fired", "behaviours",
           "missed_rewrites", "not_idempotent")
_SETS = ("findings", "unblamed", "outside_contract", "variants", "missed")
_CUMULATIVE = (*_COUNTS, *_SETS, "seconds_generating", "seconds_shrinking")


class RunLogError(Exception):
    """A run log that cannot be read: missing, empty, or a line that is not a run log line."""


def schema() -> dict:
    return json.loads(resources.files("passfuzz").joinpath("schemas/run-log.schema.json").read_text())


# -- memory ---------------------------------------------------------------------------------

def _proc_rss(pid: int | str) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return None  # gone meanwhile, or a kernel thread (no VmRSS)


def _descendants(pid: int) -> list[int]:
    """Live descendants of pid: worker processes and the children running sides."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                # "pid (comm) state ppid ...": comm may hold spaces and parentheses
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def memory() -> dict:
    """Resident memory of this process and of its live descendants, in bytes. Without /proc,
    getrusage gives only the peaks (of this process, and of the largest child waited for)."""
    own = _proc_rss("self")
    if own is not None:
        sizes = [size for size in map(_proc_rss, _descendants(os.getpid())) if size is not None]
        return {"rss_bytes": own, "children_rss_bytes": sum(sizes), "children": len(sizes), "memory_source": "proc"}
    unit = 1 if sys.platform == "darwin" else 1024  # ru_maxrss is bytes on macOS, KiB elsewhere
    return {"rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * unit,
            "children_rss_bytes": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * unit,
            "children": 0, "memory_source": "getrusage-peak"}


# -- writing --------------------------------------------------------------------------------

def figures(stats) -> dict:
    """The counts of a Stats (stats.Stats, read by attribute) that a line records."""
    line = {name: getattr(stats, name) for name in _COUNTS}
    line.update({name: len(getattr(stats, name)) for name in _SETS})
    line["passes"] = {name: {"runs": runs, "fired": stats.pass_fired.get(name, 0),
                             "rate": stats.pass_fired.get(name, 0) / runs}
                      for name, runs in sorted(stats.pass_runs.items()) if runs}
    line["seconds_generating"] = round(stats.seconds_generating, 3)
    line["seconds_shrinking"] = round(stats.seconds_shrinking, 3)
    line["stop_reason"] = stats.stop_reason
    return line


_NOTHING_YET = {**{name: 0 for name in _COUNTS + _SETS}, "passes": {}, "seconds_generating": 0.0,
                "seconds_shrinking": 0.0, "stop_reason": ""}


class RunLog:
    """Appends a line to ``path`` at the start, every ``interval`` seconds, and at ``finish``.
    Use as a context manager around the run; ``handle`` is the event consumer."""

    def __init__(self, path: Path, interval: float = INTERVAL_SECONDS):
        self.path = Path(path)
        self.interval = interval
        self.started = time.monotonic()
        self._latest = dict(_NOTHING_YET)
        self._previous = (0.0, 0)  # elapsed and examples at the line before, for the recent rate
        self._lock = threading.Lock()  # one writer at a time: the timer, or finish
        self._stop = threading.Event()
        self._timer = threading.Thread(target=self._tick, name="passfuzz-run-log", daemon=True)
        self._finished = False

    def __enter__(self) -> "RunLog":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._write(dict(_NOTHING_YET), final=False)
        self._timer.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop_timer()
        if not self._finished:  # the run ended by an exception: keep its last figures
            self._write(self._latest, final=False)

    def handle(self, event: Event) -> None:
        if isinstance(event, ExampleChecked):
            self._latest = figures(event.stats)  # a new dict: the timer reads it whole or not at all

    def finish(self, stats) -> None:
        """The final line, from the run's final statistics (those its summary shows)."""
        self._stop_timer()
        self._write(figures(stats), final=True)
        self._finished = True

    def _stop_timer(self) -> None:
        self._stop.set()
        if self._timer.is_alive():
            self._timer.join()

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            self._write(self._latest, final=False)

    def _write(self, counts: dict, final: bool) -> None:
        with self._lock:
            elapsed = time.monotonic() - self.started
            before_elapsed, before_examples = self._previous
            recent = (counts["examples"] - before_examples) / (elapsed - before_elapsed) \
                if elapsed > before_elapsed else 0.0
            self._previous = (elapsed, counts["examples"])
            line = {
                "format_version": FORMAT_VERSION,
                "time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds"),
                "elapsed": round(elapsed, 3), "final": final, **counts,
                "examples_per_second": round(counts["examples"] / elapsed, 4) if elapsed > 0 else 0.0,
                "recent_examples_per_second": round(max(recent, 0.0), 4), **memory(),
            }
            data = (json.dumps(line, separators=(",", ":")) + "\n").encode()
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)  # less the umask
            try:
                os.write(fd, data)  # one write per line: a kill leaves whole lines and at most one cut
            finally:
                os.close(fd)


# -- reading --------------------------------------------------------------------------------

def read(run_dir: Path) -> tuple[list[dict], list[str]]:
    """The lines of a run directory's log, and warnings (a truncated last line from a killed
    run is skipped). RunLogError for a log that is missing, empty, or garbled elsewhere."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise RunLogError(f"{run_dir}: no such run directory")
    path = run_dir / LOG_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RunLogError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise RunLogError(f"{path}: not a run log (not UTF-8 text)") from None
    rows = text.split("\n")
    complete = rows[-1] == ""  # a killed run may leave a last line without its newline
    if complete:
        rows.pop()
    validator = jsonschema.Draft7Validator(schema())
    lines, warnings = [], []
    for number, row in enumerate(rows, 1):
        problem = None
        try:
            line = json.loads(row)
        except json.JSONDecodeError as exc:
            problem = f"not JSON ({exc.msg})"
        else:
            error = jsonschema.exceptions.best_match(validator.iter_errors(line))
            if error is not None:
                field = "/".join(str(p) for p in error.absolute_path) or "(top level)"
                problem = f"field {field}: {error.message[:200]}"
        if problem is None:
            lines.append(line)
        elif number == len(rows) and not complete:
            warnings.append(f"{path}: skipped the truncated last line {number} (the run was killed mid-write)")
        else:
            raise RunLogError(f"{path}: line {number} is not a run log line: {problem}")
    if not lines:
        raise RunLogError(f"{path}: the run log is empty")
    return lines, warnings


def joined(lines: list[dict]) -> tuple[list[dict], list[float]]:
    """The lines of a run resumed once or more as one run: each resumed segment's clock restarts
    at zero, so its ``elapsed`` is moved on by where the segments before it ended (time while
    stopped left out), and the placeholder line each segment starts with (all counts zero, written
    before the resumed statistics are loaded) is dropped. Counts are the run's own already (a
    resumed run carries its statistics on from its last round boundary); the rounds after that
    boundary, counted before the stop and run again after it, would make them dip, so each count
    is held at its highest so far: the work redone shows as time without progress. Also the
    elapsed seconds at which each resumed segment began."""
    out: list[dict] = []
    resumed_at: list[float] = []
    offset, previous = 0.0, None
    for line in lines:
        if previous is not None and (line["elapsed"] < previous["elapsed"] or previous["final"]):
            offset = out[-1]["elapsed"] if out else 0.0  # a new segment
            resumed_at.append(offset)
            previous = line
            if line["examples"] == 0 and line["shrink_runs"] == 0 and out and out[-1]["examples"] > 0:
                continue  # its placeholder start line
        else:
            previous = line
        held = {name: max(line[name], out[-1].get(name, 0)) for name in _CUMULATIVE if name in line} if out else {}
        out.append({**line, **held, "elapsed": line["elapsed"] + offset})
    return out, resumed_at


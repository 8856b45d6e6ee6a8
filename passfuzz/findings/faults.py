"""A fault: one root cause in TVM, one upstream report, and the corpus records that show it.

Records are not faults. A record is what one run saved (its fingerprint names a kind, a first bad
pass and an error); several records can show one fault (one fix): the float16 intrinsics LLVM
cannot lower are one fault reached through eight ops. A fault is triaged by hand, as a strict TVM
maintainer would, and lives in ``corpus/faults/``:

- ``<id>.json``: the triage (``passfuzz/schemas/fault.schema.json``): title in TVM's issue style,
  the component at fault, trigger, expected behaviour, root cause with cited source lines, upstream
  issues and PRs, the records that show it, and the signatures that make a new finding a *variant*.
- ``<id>.py``: the smallest script (exit 1 reproduces, 0 fixed, 125 cannot run here).
- ``test_<id>.py``: a regression test in the style of TVM's own tests, for the fix PR to carry.
- ``<id>.md``: the report, ready to paste, written from the three above by ``render_report``
  (``passfuzz known --write-baseline``); a test keeps it in step.

The shipped baseline (passfuzz.findings.known_bugs) carries each fault's title, upstream and
``matches``, so a run names the faults it hits and keeps a new finding that matches one as a
variant of it rather than as a new bug.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path

import jsonschema

from passfuzz.judge.finding import without_log_time

from .corpus import atomic_write

FAULTS = "faults"  # the folder of a corpus that holds its faults
CANNOT_RUN = 125  # a script's status when it cannot run at all: what `git bisect run` skips
REPRODUCES, FIXED = 1, 0
# A fault's script is as short as its kind allows: an error needs the module and the call.
LINE_BUDGET = {"pass-error": 40, "ill-formed": 40}
DEFAULT_LINE_BUDGET = 80


class FaultError(ValueError):
    """A fault file that cannot be read; the message names the file and the field."""


@lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(resources.files("passfuzz").joinpath("schemas/fault.schema.json").read_text())


@dataclass(frozen=True)
class Match:
    """A new finding whose signature this regular expression finds (and, for a wrong result, whose
    program calls one of ``ops`` and meets the condition ``when``, one of
    passfuzz.judge.conditions.CONDITIONS) is a variant of the fault."""
    signature: str
    ops: tuple[str, ...] = ()
    when: str = ""

    def to_json(self) -> dict:
        return {"signature": self.signature, **({"ops": list(self.ops)} if self.ops else {}),
                **({"when": self.when} if self.when else {})}

    @classmethod
    def from_json(cls, doc: dict) -> "Match":
        return cls(doc["signature"], tuple(doc.get("ops", ())), doc.get("when", ""))

    def entry(self, fault_id: str) -> str:
        """As a known-set string (passfuzz.judge.finding.variant_of)."""
        return f"~{fault_id}~{','.join(self.ops)}~{self.when}~{self.signature}"


@dataclass(frozen=True)
class Fault:
    id: str
    title: str
    component: str
    shows_as: str
    verdict: str  # "bug" counts; "unsure" is listed, never counted
    trigger: str
    expected: str
    root_cause: str
    upstream: tuple[dict, ...]
    records: tuple[dict, ...]  # {"id", "note"}
    matches: tuple[Match, ...]
    checked_on: str
    unsure_why: str = ""
    observed: dict = field(default_factory=dict, compare=False)

    @property
    def counted(self) -> bool:
        return self.verdict == "bug"

    @property
    def filed(self) -> bool:
        """Is there an upstream issue for this very fault?"""
        return any(ref.get("relation", "same") == "same" for ref in self.upstream)

    @property
    def upstream_line(self) -> str:
        """'apache/tvm#20198 (open); fix apache/tvm/pull/20331 (open)', or 'not filed'."""
        parts = []
        for ref in self.upstream:
            relation = ref.get("relation", "same")
            head = {"same": "", "related": "related: ", "fix": "fix: "}[relation]
            note = f"; {ref['note']}" if ref.get("note") else ""
            parts.append(f"{head}{ref['ref']} ({ref['state']}{note})")
        line = "; ".join(parts)
        return line if self.filed else ("not filed" + (f" ({line})" if line else ""))

    @property
    def record_count(self) -> int:
        return len(self.records)

    @property
    def record_ids(self) -> tuple[str, ...]:
        return tuple(record["id"] for record in self.records)

    @property
    def script_name(self) -> str:
        return f"{self.id}.py"

    @property
    def test_name(self) -> str:
        return f"test_{self.id.replace('-', '_')}.py"

    def to_json(self) -> dict:
        doc = {"format": 1, "id": self.id, "title": self.title, "component": self.component,
               "shows_as": self.shows_as, "verdict": self.verdict}
        if self.unsure_why:
            doc["unsure_why"] = self.unsure_why
        doc.update({"trigger": self.trigger, "expected": self.expected, "root_cause": self.root_cause,
                    "upstream": list(self.upstream), "records": list(self.records),
                    "matches": [m.to_json() for m in self.matches],
                    "checked_on": self.checked_on})
        if self.observed:
            doc["observed"] = self.observed
        return doc

    @classmethod
    def from_json(cls, doc: dict) -> "Fault":
        return cls(doc["id"], doc["title"], doc["component"], doc["shows_as"], doc["verdict"], doc["trigger"],
                   doc["expected"], doc["root_cause"], tuple(doc["upstream"]), tuple(doc["records"]),
                   tuple(map(Match.from_json, doc["matches"])),
                   doc["checked_on"], doc.get("unsure_why", ""), doc.get("observed", {}))


def load_one(path: Path) -> Fault:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        jsonschema.validate(doc, schema())
    except (OSError, ValueError) as exc:
        raise FaultError(f"{path}: not a fault file: {exc}") from None
    except jsonschema.ValidationError as exc:
        where = "/".join(map(str, exc.absolute_path)) or "the top level"
        raise FaultError(f"{path}: {where}: {exc.message}") from None
    if doc["id"] != path.stem:
        raise FaultError(f"{path}: its id is {doc['id']!r}, not its file name")
    for match in doc["matches"]:
        try:
            re.compile(match["signature"])
        except re.error as exc:
            raise FaultError(f"{path}: matches: {match['signature']!r} is not a regular expression: {exc}") from None
    return Fault.from_json(doc)


def load(corpus_dir: Path) -> list[Fault]:
    """The faults of a corpus directory, by id; [] when it has none (a user's own corpus)."""
    folder = Path(corpus_dir) / FAULTS
    return [load_one(path) for path in sorted(folder.glob("*.json"))] if folder.is_dir() else []


def problems(corpus_dir: Path) -> list[str]:
    """One line per way the faults and the records of a corpus disagree: every record shows
    exactly one fault, every fault's records exist, and each fault has its script and test."""
    corpus_dir = Path(corpus_dir)
    found = []
    owner: dict[str, str] = {}
    for fault in load(corpus_dir):
        folder = corpus_dir / FAULTS
        for name in (fault.script_name, fault.test_name):
            if not (folder / name).is_file():
                found.append(f"{fault.id}: no {FAULTS}/{name}")
        for record in fault.record_ids:
            if record in owner:
                found.append(f"{record} is listed by two faults: {owner[record]} and {fault.id}")
            owner[record] = fault.id
            if not (corpus_dir / f"{record}.json").is_file():
                found.append(f"{fault.id}: its record {record} is not in {corpus_dir}")
    for path in sorted(corpus_dir.glob("*.json")):
        if path.stem not in owner:
            found.append(f"{path.stem}: no fault lists this record")
    return found


def non_blank_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())


def line_budget(shows_as: str) -> int:
    return LINE_BUDGET.get(shows_as, DEFAULT_LINE_BUDGET)


@dataclass(frozen=True)
class Census:
    faults: int  # counted: verdict bug
    wrong_results: int  # of those, silent wrong results
    filed: int  # of those, with an upstream issue for this very fault
    unsure: int
    records: int

    def line(self) -> str:
        unsure = f"; {self.unsure} more unsure, not counted" if self.unsure else ""
        return (f"{self.faults} distinct fault{'s' * (self.faults != 1)} ({self.wrong_results} wrong "
                f"result{'s' * (self.wrong_results != 1)}, {self.filed} already filed upstream{unsure}) "
                f"in {self.records} record{'s' * (self.records != 1)}")


WRONG = ("wrong-result", "reference-mismatch", "target-mismatch")


def census(faults, loose_records: int = 0) -> Census:
    """Counted over ``faults`` (a corpus's Fault files or a baseline's KnownFaults: each has
    ``counted``, ``shows_as``, ``filed`` and ``record_count``), plus records of no fault."""
    counted = [fault for fault in faults if fault.counted]
    return Census(len(counted), sum(fault.shows_as in WRONG for fault in counted),
                  sum(fault.filed for fault in counted), len(faults) - len(counted),
                  sum(fault.record_count for fault in faults) + loose_records)


# -- observing a fault's script ----------------------------------------------------------------

OBSERVED_LINES = 12


def observe(corpus_dir: Path, fault: Fault, environment: dict, timeout: float = 300) -> dict:
    """Run the fault's script alone and keep what a report quotes: its status and the last lines
    of its output (for a C++ error, TVM's frames and the check that failed)."""
    script = Path(corpus_dir) / FAULTS / fault.script_name
    try:
        done = subprocess.run([sys.executable, script.name], cwd=script.parent, capture_output=True, text=True,
                              timeout=timeout)
        status, output = done.returncode, (done.stdout + done.stderr)
    except subprocess.TimeoutExpired:
        status, output = -1, f"(no answer within {timeout:g} s)"
    # without TVM's clock times, a run observes what the last one did and rewrites nothing
    lines = [without_log_time(line).rstrip() for line in output.strip().splitlines()]
    return {"status": status, "output": "\n".join(lines[-OBSERVED_LINES:]), "environment": environment}


# -- the report ----------------------------------------------------------------------------

EXPECTED_BY_KIND = {
    "pass-error": "the pass either rewrites the module or leaves it unchanged; it does not raise",
    "ill-formed": "the module the pass returns is well formed (`relax.analysis.well_formed`)",
    "compile-error": "`tvm.compile` builds the module",
    "runtime-error": "the compiled module runs",
    "crash": "no process dies; an unsupported input is a Python exception",
    "hang": "the call returns",
    "wrong-result": "the optimized module computes what the original computes",
    "reference-mismatch": "the compiled module computes what the operator's definition (numpy) computes",
    "target-mismatch": "every target computes the same values",
}


def _status_text(status: int) -> str:
    return {REPRODUCES: "1: reproduces", FIXED: "0: fixed", CANNOT_RUN: "125: cannot run here"}.get(
        status, f"{status}")


def render_report(fault: Fault, script: str, test: str) -> str:
    """The report of one fault, ready to paste into an apache/tvm issue."""
    lines = [f"# {fault.title}", ""]
    if not fault.counted:
        lines += [f"> **Unsure whether this is a bug:** {fault.unsure_why}", ""]
    lines += [f"**Component:** {fault.component}  ", f"**Upstream:** {fault.upstream_line}", "",
              "## Trigger", "", fault.trigger, "", "## Reproducer", "",
              "```python", script.rstrip(), "```", ""]
    observed = fault.observed
    if observed:
        lines += [f"Output (exit status {_status_text(observed.get('status', 0))}):", "", "```",
                  observed.get("output", "").rstrip() or "(nothing)", "```", ""]
    lines += ["## Expected behaviour", "", fault.expected, ""]
    generic = EXPECTED_BY_KIND.get(fault.shows_as)
    if generic and generic not in fault.expected:
        lines += [f"In general: {generic}.", ""]
    lines += ["## Root cause", "", fault.root_cause, ""]
    if fault.upstream:
        lines += ["## Related upstream issues and PRs", ""]
        lines += [f"- {ref['ref']} ({ref['state']}, {ref.get('relation', 'same')}){': ' + ref['note'] if ref.get('note') else ''}"
                  for ref in fault.upstream]
        lines.append("")
    lines += ["## Regression test", "", "For the fix PR (fails while the fault is there):", "",
              "```python", test.rstrip(), "```", ""]
    if fault.records:
        lines += ["## Records that show it", "", "passfuzz records (`corpus/<id>.json`, `.py`, `.md`):", ""]
        lines += [f"- `{record['id']}`: {record['note']}" for record in fault.records]
        lines.append("")
    environment = observed.get("environment", {}) if observed else {}
    lines += ["## Environment", ""]
    if environment:
        lines += [f"- {key}: {value}" for key, value in environment.items()]
    lines.append(f"- triaged on TVM {fault.checked_on}")
    return "\n".join(lines) + "\n"


def write_report(corpus_dir: Path, fault: Fault) -> Path:
    folder = Path(corpus_dir) / FAULTS
    text = render_report(fault, (folder / fault.script_name).read_text(encoding="utf-8"),
                         (folder / fault.test_name).read_text(encoding="utf-8"))
    path = folder / f"{fault.id}.md"
    atomic_write(path, text)
    return path


def write_observed(corpus_dir: Path, fault: Fault, observed: dict) -> Fault:
    updated = replace(fault, observed=observed)
    atomic_write(Path(corpus_dir) / FAULTS / f"{fault.id}.json", json.dumps(updated.to_json(), indent=1) + "\n")
    return updated


# -- the index -------------------------------------------------------------------------------

INDEX_START = "<!-- faults: written by `passfuzz known --write-baseline corpus`; do not edit by hand -->"
INDEX_END = "<!-- end of faults -->"


def render_index(faults: list[Fault]) -> str:
    """The corpus README's table of faults, one row per fault, counted by the tool."""
    rows = [INDEX_START, "", census(faults).line() + ".", "",
            "| fault | shows as | component | records | upstream |", "|---|---|---|---|---|"]
    order = sorted(faults, key=lambda f: (not f.counted, f.shows_as not in WRONG, f.id))
    for fault in order:
        title = fault.title + ("" if fault.counted else " (unsure, not counted)")
        records = ", ".join(f"`{record}`" for record in fault.record_ids) or "none yet"
        rows.append(f"| [{title}](faults/{fault.id}.md) | {fault.shows_as} | {fault.component} | {records} "
                    f"| {fault.upstream_line} |")
    return "\n".join(rows + ["", INDEX_END])


def with_index(readme: str, faults: list[Fault]) -> str:
    """``readme`` with its index section replaced (or appended)."""
    index = render_index(faults)
    start, end = readme.find(INDEX_START), readme.find(INDEX_END)
    if start >= 0 and end > start:
        return readme[:start] + index + readme[end + len(INDEX_END):]
    return readme.rstrip() + "\n\n" + index + "\n"

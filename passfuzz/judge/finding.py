"""A finding's identity, in one module: what a finding is (``Finding``, its kinds), the signature
and fingerprint that name it, how a misuse is keyed apart from the bugs, and which known bug a new
finding is a case of (its trigger).

**Signature and fingerprint.** A signature is ``kind | where | detail``: ``where`` is the first bad
pass (the passes before it vary while a sequence shrinks, the bug does not), with the build and the
schedule primitive it blames; ``detail`` is the normalized error (``normalize_error``: no numbers,
addresses, temporaries' names) or, for a wrong result, what differs (output count, shape, dtype
or values; not the dtype or op of the differing output, which are incidental while generating).
The fingerprint is 12 hex digits of its hash and names the finding's files. Suffixes that key a
finding apart: `` | outside contract`` (a misuse, ``keyed_as_misuse``) and `` | apart from ...``
(a wrong result sharing no op with the known ones, ``identify``).

**Known cases.** Which known bug a finding is a case of.

A finding's fingerprint hashes its signature: kind, first bad pass, and the normalized error. An
error names its fault well enough. A wrong result's signature only says what differs (values,
shape, output count) after which pass, so every wrong result of one pass shares one fingerprint:
once one was in the corpus or the baseline, any other wrong result of that pass counted as known
and was never saved (FastMathTransform's float16 erf hid every other op FastMathTransform might
get wrong).

So a saved wrong result (or target mismatch) also stands for its *trigger*: the Relax ops its
reduced program calls (what a pass sees: a catalogue op such as ``linear`` calls two). A program
showing that fingerprint is a case of the known bug when it shares an op with one of the
fingerprint's triggers. Otherwise it is keyed apart from the known ones
(``identify``), then shrunk and saved as a bug of its own. One shared op is enough, not the whole
trigger: a reduced program can keep ops its bug does not need (the reducer stops when no step it
tries keeps the bug, and permute_dims feeding a matmul and an add may be all it can keep), and
asking for all of them saved a second case of the same bug again. Every case of a pass's bug holds
the op the pass mishandles, and the record holds it too. The price: a new bug on a program that
also holds an op of a known trigger still counts as known. Only a record whose reduction reached
its fixpoint (``minimal``) has a trigger; one saved unshrunk, or reduced until its time ran out,
keeps the old rule: every case of its fingerprint is known.

A known set is plain strings, so it travels as before (a Dask Variable, the baseline file). It
holds fingerprints, and for each trigger an entry ``<key>><record fingerprint>:<op>,<op>``. The
key is the fingerprint of the record's signature without its ``apart from`` part, which is the
fingerprint a new case of it shows.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Protocol, Sequence, TypeVar

from passfuzz.passes.names import PassSpec
from passfuzz.passes.pass_configs import as_config, from_config
from passfuzz.run.builds import PLAIN_BUILD, Build

KINDS = ("pass-error", "ill-formed", "compile-error", "runtime-error", "crash", "hang", "wrong-result",
         "reference-mismatch", "target-mismatch", "pipeline-error", "pipeline-crash", "pipeline-hang", "slowdown",
         "print-round-trip", "json-round-trip", "nondeterministic-pass", "nondeterministic-output",
         "emi-mismatch", "missed-rewrite", "not-idempotent")

# Observations, not bugs (passfuzz.judge.observations): what a pass left undone, saved apart once per
# fingerprint, never shrunk as a bug, never stopping -x, never failing the exit status.
OBSERVATION_KINDS = ("missed-rewrite", "not-idempotent")


# Kinds a fingerprint names only by what differs after which pass: known by their trigger too.
VALUE_KINDS = ("wrong-result", "target-mismatch", "emi-mismatch")


APART = " | apart from "


# A wrong gradient no node of its program shows alone (passfuzz.judge.gradient.localize names the one
# that does) is fingerprinted by its pass list and what differs only, and its trigger shares the
# loss's final sum with every loss program: one such fingerprint stands for every unnamed wrong
# gradient of that pass list, so it must never be known ahead of a run (passfuzz.findings.known_bugs).
UNLOCALIZED = ("loss differs", "gradient differs")


@dataclass(frozen=True)
class Finding:
    kind: str
    fingerprint: str  # 12 hex digits
    signature: str  # what the fingerprint hashes, readable
    message: str  # one line: what went wrong or what differs
    stage: str = ""
    log: str = ""
    passes: tuple[PassSpec, ...] = ()  # the passes that ran up to the failure: what reproduces it
    targets: tuple[str, ...] = ()  # the targets it shows on (for a target-mismatch: reference first); () any
    build: str = ""  # the --build it shows under ("" plain)
    schedule: tuple = ()  # with schedule=random: the drawn steps up to the blamed primitive (the last)
    outside_contract: str = ""  # the pass contract the run broke (passfuzz.passes.contracts); "" when inside them
    pipeline_pass: str = ""  # the pass of the build's Relax pipeline it names: blamed (pipeline-*) or failed in
    tune_records: tuple = ()  # with tune=N: what the tuning chose (passfuzz.portable.tuning_records)
    dlight_rules: tuple | None = None  # with dlight=random: the drawn rule names (passfuzz.portable.dlight_rules)
    variant_of: str = ""  # the known fault (passfuzz.findings.faults) whose ``matches`` it meets: kept, not new
    pass_config: tuple = ()  # with config=random: the drawn PassContext configuration ((key, value), ...)

    @property
    def blamed(self) -> bool:
        """Does it blame what the run was asked to test? A reference mismatch, a target mismatch
        of the unoptimized module, or a pipeline finding blames no pass and no build: TVM's own
        build is at fault, whatever passes were named."""
        return bool(self.passes or self.build)

    def to_json(self) -> dict:
        """Every field as JSON (passes by their text, tuples as lists): what a run directory
        keeps of a finding in progress (passfuzz.campaign.runs), read back by ``from_json``."""
        doc = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return {**doc, "passes": [spec.text for spec in self.passes], "targets": list(self.targets),
                "schedule": [[name, list(choices)] for name, choices in self.schedule],
                "tune_records": [[kernel, trace] for kernel, trace in self.tune_records],
                "dlight_rules": None if self.dlight_rules is None else list(self.dlight_rules),
                "pass_config": as_config(self.pass_config)}

    @classmethod
    def from_json(cls, doc: dict) -> "Finding":
        return cls(**{"variant_of": "", **doc, "passes": tuple(PassSpec(text) for text in doc["passes"]),
                      "targets": tuple(doc["targets"]),
                      "schedule": tuple((name, tuple(choices)) for name, choices in doc.get("schedule", ())),
                      "tune_records": tuple((kernel, trace) for kernel, trace in doc.get("tune_records", ())),
                      "dlight_rules": None if doc.get("dlight_rules") is None else tuple(doc["dlight_rules"]),
                      "pass_config": from_config(doc.get("pass_config") or {})})


class Identified(Protocol):
    kind: str
    fingerprint: str
    signature: str
    outside_contract: str


F = TypeVar("F", bound=Identified)


def signature_key(signature: str) -> str:
    """The fingerprint of a finding's signature: what its files are named after."""
    return hashlib.sha256(signature.encode()).hexdigest()[:12]


def fingerprint(kind: str, passes: Sequence[PassSpec], detail: str, build: Build = PLAIN_BUILD) -> tuple[str, str]:
    """Keyed on the *last* of ``passes``, the first bad pass: the passes before it vary while a
    sequence shrinks, and the bug is the same. A non-plain build is part of the key, and so is
    the schedule primitive it blames (the steps before it vary as the schedule shrinks)."""
    where = passes[-1].text if passes else "-"
    if build.text:
        where += f" @ {build.text}"
    if build.blamed_primitive:
        where += f" [{build.blamed_primitive}]"
    signature = f"{kind} | {where} | {detail}"
    return signature_key(signature), signature


def new_finding(kind: str, passes: Sequence[PassSpec], detail: str, message: str, stage: str = "",
             log: str = "", build: Build = PLAIN_BUILD, targets: tuple[str, ...] = (),
             pipeline_pass: str = "") -> Finding:
    """A finding of ``kind``, keyed on the passes up to the one its stage failed in (``fingerprint``)."""
    ran = tuple(_up_to_failing_pass(passes, stage))
    fp, signature = fingerprint(kind, ran, detail, build)
    head, _, where = stage.partition(":")
    if not targets and head in ("compile", "run", "reference"):
        targets = (where,)  # a failure on one target reproduces on that target
    return Finding(kind, fp, signature, message, stage, log, ran, targets, build.text, build.schedule_steps,
                   pipeline_pass=pipeline_pass, tune_records=build.tune_records, dlight_rules=build.dlight_rules,
                   pass_config=build.pass_config)


def _up_to_failing_pass(passes: Sequence[PassSpec], stage: str) -> Sequence[PassSpec]:
    """When a pass itself failed (raised, crashed, left ill-formed IR), the passes after it never
    ran: the bug belongs to the prefix, and is the same bug whatever follows it. The stage names
    the pass, not which of its runs failed: the prefix ends at its last run, which holds the
    failing one (an earlier run of it may have met a module it took, [P, LegalizeOps, P])."""
    head, _, name = stage.partition(":")
    if head in ("pass", "well-formed"):
        for index in range(len(passes) - 1, -1, -1):
            if passes[index].text == name:
                return passes[:index + 1]
    return passes


_LOG_TIME = re.compile(r"\[\d\d:\d\d:\d\d\]\s*")  # the clock time TVM's logger puts before each line


def without_log_time(text: str) -> str:
    return _LOG_TIME.sub("", text)


def normalize_error(text: str) -> str:
    """The stable core of an error message: no numbers, addresses, paths or names of temporaries."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    line = without_log_time(line)
    line = re.sub(r"(/[\w.\-]+)+:\d+:?", "<src>", line)
    line = re.sub(r"0x[0-9a-fA-F]+", "<addr>", line)
    line = re.sub(r'metadata\["[\w.]+"\]\[\d+\]', "<const>", line)
    for call in sorted(set(re.findall(r"\bR\.[\w.]+\(", line))):  # operands and types vary with the
        line = _elide_calls(line, call)  # program, the bug does not
    line = re.sub(r'dtype="\w+"', 'dtype=...', line)
    # A variable's name is the program's, not the fault's: "Var gv is not defined" and "Var n0 is
    # not defined" are one fault (LiftTransformParams returning a weight, by its name or its dim's).
    line = re.sub(r"\b(Var|DataflowVar|Variable|symbolic variable)\s+(?!(?:with|of|to|in|is|must|and)\b)[A-Za-z_]\w*",
                  r"\1 _", line)
    line = re.sub(r'GlobalVar\("[^"]*"\)', "GlobalVar(...)", line)
    line = re.sub(r"\b[A-Za-z_]\w*_untyped\b", "_untyped", line)  # LazyGetInput's name for a fetched one
    # BlockBuilder numbers its fresh names (lv, lv1, lv6, gv2): one temporary, whatever its number.
    line = re.sub(r"\b(lv|gv)\d+\b", r"\1", line)
    # FuseOps names its functions after the ops fused (fused_greater_logical_and): one fault.
    line = re.sub(r"\bfused_\w+", "fused_...", line)
    line = re.sub(r"\d+", "N", line)
    line = re.sub(r"\s+", " ", line)
    # The first sentence names the fault; what follows names where it surfaced (which op, which
    # operands), and that varies with the program: keying on it split one ToMixedPrecision bug
    # into a finding per downstream op.
    return line.split(". ", 1)[0][:200]


def _elide_calls(text: str, opener: str) -> str:
    """Replace every ``opener...)`` span, nested parentheses included, by ``opener...)``."""
    out, start = [], 0
    while (begin := text.find(opener, start)) >= 0:
        depth, end = 1, begin + len(opener)
        while end < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        out.append(text[start:begin] + opener + "...)")
        start = end
    return "".join(out) + text[start:]


def keyed_as_misuse(finding, broken: str):
    """``finding`` marked outside-contract and keyed apart from the bugs. A fingerprint is kind,
    first bad pass and error, which a misuse can share with a real bug of the same pass (a wrong
    result of DecomposeOpsForTraining is "values differ" for an inference-mode batch_norm and for a
    wrongly decomposed layer_norm alike); once a misuse is saved its fingerprint counts as seen,
    so sharing it would hide the bug."""
    signature = f"{finding.signature} | outside contract"
    return dataclasses.replace(finding, outside_contract=broken, signature=signature,
                               fingerprint=signature_key(signature))


def names_one_bug(signature: str) -> bool:
    """Does a finding's signature tell its bug apart from other bugs of the same passes?"""
    return not signature.endswith(UNLOCALIZED)


def family_key(signature: str) -> str:
    """The fingerprint a new case of the record with ``signature`` shows, before ``identify``."""
    return signature_key(signature.split(APART, 1)[0])


def keyed_by_trigger(kind: str, outside_contract: bool) -> bool:
    """An outside-contract finding is keyed by its fingerprint alone: it is saved unshrunk, once."""
    return kind in VALUE_KINDS and not outside_contract


Ops = Callable[[], Iterable[str]]  # the Relax ops of a program (passfuzz.relax.build.relax_ops), asked for when needed


def trigger_entry(record: dict, ops: Ops) -> str:
    """The known-set entry of a saved record whose program calls the Relax ops ``ops()``; "" for a
    record known by fingerprint alone."""
    if not keyed_by_trigger(record["kind"], bool(record.get("outside_contract"))):
        return ""
    trigger = sorted(set(ops())) if record.get("minimal") else []
    return f"{family_key(record['signature'])}>{record['fingerprint']}:{','.join(trigger)}"


def _triggers(known: set[str], key: str) -> list[tuple[str, frozenset[str]]]:
    found = []
    for entry in known:
        if entry.startswith(key + ">"):
            record, _, ops = entry[len(key) + 1:].partition(":")
            found.append((record, frozenset(filter(None, ops.split(",")))))
    return found


def identify(finding: F, ops: Ops, known: set[str]) -> tuple[F, str]:
    """``finding`` as it is to be named, and the fingerprint of the known bug it is a case of
    ("" for a new bug). ``ops``: the Relax ops of the program that showed it."""
    triggers = _triggers(known, finding.fingerprint) \
        if keyed_by_trigger(finding.kind, bool(finding.outside_contract)) else []
    if not triggers:
        return finding, finding.fingerprint if finding.fingerprint in known else ""
    held = frozenset(ops())
    for record, trigger in sorted(triggers, key=lambda t: (-len(t[1] & held), t[0])):  # the closest first
        if not trigger or trigger & held:
            return finding, record
    signature = finding.signature + APART + ", ".join(sorted(record for record, _ in triggers))
    apart = replace(finding, signature=signature, fingerprint=signature_key(signature))
    return apart, apart.fingerprint if apart.fingerprint in known else ""


def variant_of(finding: Identified, ops: Ops, known: Iterable[str],
               meets: Callable[[str], bool] = lambda condition: True) -> str:
    """The id of the known fault a new ``finding`` is a variant of ("" for none): a fault's entry
    ``~<fault>~<op>,...~<condition>~<regex>`` (passfuzz.findings.faults.Match) whose regular
    expression is found in the finding's signature, where it names ops, whose program calls one of
    them, and where it names a condition, whose program ``meets`` it (passfuzz.judge.conditions).
    A misuse is never a variant: it is keyed apart from the bugs."""
    if finding.outside_contract:
        return ""
    held: frozenset[str] | None = None
    for entry in sorted(e for e in known if e.startswith("~")):
        fault, wanted, condition, pattern = entry[1:].split("~", 3)
        if not re.search(pattern, finding.signature):
            continue
        if wanted:
            held = frozenset(ops()) if held is None else held
            if not held & {op if op.startswith("relax.") else f"relax.{op}" for op in wanted.split(",")}:
                continue
        if condition and not meets(condition):
            continue
        return fault
    return ""


def same_bug(found: Identified, wanted_fingerprint: str, wanted_signature: str) -> bool:
    """Does ``found``, as the oracle keys it, show the bug of that record or finding? A bug keyed
    apart shows with the fingerprint of its family."""
    return found.fingerprint in (wanted_fingerprint, family_key(wanted_signature))


def named_as(found: F, fingerprint: str, signature: str) -> F:
    """``found`` under the name of the bug it shows (``same_bug``)."""
    return replace(found, fingerprint=fingerprint, signature=signature)

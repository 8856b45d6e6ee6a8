"""Which known bug a finding is a case of.

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

import hashlib
from dataclasses import replace
from typing import Callable, Iterable, Protocol, TypeVar

VALUE_KINDS = ("wrong-result", "target-mismatch")
APART = " | apart from "


class Identified(Protocol):
    kind: str
    fingerprint: str
    signature: str
    outside_contract: str


F = TypeVar("F", bound=Identified)


def signature_key(signature: str) -> str:
    """The fingerprint of a finding's signature: what its files are named after."""
    return hashlib.sha256(signature.encode()).hexdigest()[:12]


def family_key(signature: str) -> str:
    """The fingerprint a new case of the record with ``signature`` shows, before ``identify``."""
    return signature_key(signature.split(APART, 1)[0])


def keyed_by_trigger(kind: str, outside_contract: bool) -> bool:
    """An outside-contract finding is keyed by its fingerprint alone: it is saved unshrunk, once."""
    return kind in VALUE_KINDS and not outside_contract


Ops = Callable[[], Iterable[str]]  # the Relax ops of a program (relax_build.relax_ops), asked for when needed


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


def same_bug(found: Identified, wanted_fingerprint: str, wanted_signature: str) -> bool:
    """Does ``found``, as the oracle keys it, show the bug of that record or finding? A bug keyed
    apart shows with the fingerprint of its family."""
    return found.fingerprint in (wanted_fingerprint, family_key(wanted_signature))


def named_as(found: F, fingerprint: str, signature: str) -> F:
    """``found`` under the name of the bug it shows (``same_bug``)."""
    return replace(found, fingerprint=fingerprint, signature=signature)

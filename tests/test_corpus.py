"""Corpus records: schema-checked loading that fails in one clear line, atomic writes."""

import copy
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from passfuzz.findings import corpus
from passfuzz.findings.corpus import CorpusError
from passfuzz.ir.program import Node, Param, Program
from passfuzz.judge.finding import signature_key

PROGRAM = Program((Param((2, 2), "float32", -4, 4, [[0.0, 1.0], [2.0, 3.0]]),
                   Node("permute_dims", (0,), {"axes": None})), (1,))


def record(**changes):
    base = {
        "format_version": 1, "id": "wrong-result-0123456789ab", "kind": "wrong-result",
        "fingerprint": "0123456789ab", "signature": "wrong-result | P | values differ", "message": "m",
        "stage": "run:llvm", "passes": ["FoldConstant"], "targets": ["llvm"], "tvm_version": "0.27",
        "passfuzz_version": "0.1.0", "created": "2026-11-22T00:00:00+00:00", "seed": 1, "shrunk": True,
        "program": PROGRAM.to_json(), "module": "@I.ir_module\nclass Module: ...\n", "log": "",
    }
    base.update(changes)
    return base


def test_save_then_load_round_trips(tmp_path):
    path = corpus.save(tmp_path, record(), "script", "report")
    entry = corpus.load(path)
    assert entry.program == PROGRAM and entry.id == "wrong-result-0123456789ab"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "wrong-result-0123456789ab.json", "wrong-result-0123456789ab.md", "wrong-result-0123456789ab.py"]
    # a wrong result not reduced to its fixpoint is known by its fingerprint alone (an empty trigger)
    assert corpus.known_fingerprints(tmp_path) == {"0123456789ab", f"{signature_key(record()['signature'])}>0123456789ab:"}
    corpus.save(tmp_path, record(minimal=True), "script", "report")
    ops = "relax.permute_dims"  # the Relax ops its module calls
    assert corpus.known_fingerprints(tmp_path) == {"0123456789ab", f"{signature_key(record()['signature'])}>0123456789ab:{ops}"}


@pytest.mark.parametrize("mutate, field", [
    (lambda r: r.pop("kind"), "(top level)"),
    (lambda r: r.update(kind="segfault"), "kind"),
    (lambda r: r["program"]["values"][0].update(dtype="complex64"), "program/values/0"),
    (lambda r: r["program"]["values"][1].update(args=[5]), "program"),
    (lambda r: r["program"]["values"][0].update(value=[[9.0, 1.0], [2.0, 3.0]]), "program"),
    (lambda r: r["program"]["values"][1].update(attrs={"axes": [0, 0]}), "program"),
    (lambda r: r.update(passes=[]), "passes"),
])
def test_invalid_records_are_rejected_naming_file_and_field(tmp_path, mutate, field):
    bad = record()
    mutate(bad)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(CorpusError) as info:
        corpus.load(path)
    message = str(info.value)
    assert message.startswith(str(path)) and f"field {field}" in message and "\n" not in message


def test_unreadable_files_are_clear_errors(tmp_path):
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(CorpusError, match="not JSON"):
        corpus.load(tmp_path / "x.json")
    with pytest.raises(CorpusError, match="no such file"):
        corpus.entries([tmp_path / "missing"])


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(from_schema(corpus.schema()))
def test_loader_fuzzed_with_schema_documents(tmp_path_factory, document):
    """Documents valid for the schema load, or fail the Program's own rules with CorpusError."""
    path = tmp_path_factory.mktemp("doc") / "doc.json"
    path.write_text(json.dumps(document))
    try:
        entry = corpus.load(path)
    except CorpusError as exc:
        assert "field program" in str(exc)  # the schema passed, so only the program can be wrong
    else:
        assert entry.record == document


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(st.data())
def test_loader_rejects_near_miss_documents(tmp_path_factory, data):
    """A valid record with one field dropped or retyped is rejected with CorpusError, never a traceback."""
    bad = copy.deepcopy(record())
    key = data.draw(st.sampled_from(sorted(corpus.schema()["required"])))
    if data.draw(st.booleans()):
        del bad[key]
    else:
        bad[key] = data.draw(st.sampled_from([None, 3.5, [], {"x": 1}, "not-valid id!"]))
        if key in ("message", "signature", "tvm_version", "passfuzz_version", "module") and isinstance(bad[key], str):
            bad[key] = 7
    path = tmp_path_factory.mktemp("doc") / "doc.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(CorpusError):
        corpus.load(path)


def test_interrupted_write_leaves_old_file_and_no_debris(tmp_path, monkeypatch):
    path = tmp_path / "a.json"
    corpus.atomic_write(path, "old")

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        corpus.atomic_write(path, "new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_temporaries_of_killed_writers_are_removed_and_those_of_live_ones_kept(tmp_path):
    import subprocess
    import sys

    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(finished.stdout)
    orphan = tmp_path / f".a.json.{dead}.x1y2z3.tmp"
    live = tmp_path / f".b.json.{os.getpid()}.a1b2c3.tmp"
    for path in (orphan, live):
        path.write_text("{\"half")
    corpus.atomic_write(tmp_path / "c.json", "{}")
    assert corpus.remove_orphaned_temporaries(tmp_path) == [orphan]
    assert sorted(p.name for p in tmp_path.iterdir()) == [live.name, "c.json"]

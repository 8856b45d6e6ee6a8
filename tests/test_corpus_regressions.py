"""The repository's corpus is a regression suite: every reproducer still loads, replays with its
own fingerprint on the pinned TVM, and its standalone script agrees."""

import os
import subprocess
import sys

import pytest

from passfuzz.findings import corpus

from .conftest import ROOT
from .test_reproducer import BUDGET

RECORDS = sorted((ROOT / "corpus").glob("*.json"))


def test_corpus_records_load():
    for path in RECORDS:
        entry = corpus.load(path)
        assert (ROOT / "corpus" / f"{entry.id}.py").exists() and (ROOT / "corpus" / f"{entry.id}.md").exists()
        assert entry.id in (ROOT / "corpus" / "README.md").read_text(), f"{entry.id} has no line in corpus/README.md"


@pytest.mark.skipif(not RECORDS, reason="the corpus holds no reproducer")
def test_corpus_replays(run_cli):
    result = run_cli("replay", "corpus")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.count("REPRODUCES") == len(RECORDS)


def test_every_corpus_script_is_within_its_kinds_line_budget():
    """40 non-blank lines for a pass error or an ill-formed module, 80 for anything else."""
    over = {}
    for path in RECORDS:
        kind = corpus.load(path).record["kind"]
        text = path.with_suffix(".py").read_text()
        count = sum(1 for line in text.splitlines() if line.strip())
        if count > BUDGET.get(kind, 80):
            over[path.stem] = count
    assert not over, over


@pytest.mark.parametrize("record", RECORDS, ids=[path.stem for path in RECORDS])
def test_script_reproduces(record):
    """Each script alone (one test per record, so the workers share them)."""
    script = subprocess.run([sys.executable, str(record.with_suffix(".py"))], cwd=ROOT, capture_output=True,
                            text=True, timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert script.returncode == 1 and script.stdout.startswith("BUG REPRODUCES"), (record, script.stdout)

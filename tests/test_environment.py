"""Where a finding was seen: TVM's version, where it came from and its real commit, in one home
(passfuzz.findings.environment) that every report reads."""

import importlib.metadata
import json

import tvm

from passfuzz.findings import record
from passfuzz.findings.environment import FIELDS, environment, environment_lines, tvm_commit, tvm_source


def test_the_commit_is_the_hash_without_git_describes_g_prefix(monkeypatch):
    for described, commit in (("g7b5acb32b", "7b5acb32b"), ("v0.27.0-12-g7b5acb32b.dirty", "7b5acb32b"),
                              ("7b5acb32b0c1", "7b5acb32b0c1")):
        monkeypatch.setattr(tvm._version, "commit_id", described)
        assert tvm_commit() == commit
    assert environment_lines({"tvm": "0.27.0", "tvm_commit": "g7b5acb32b"})[0] == "- TVM 0.27.0, commit 7b5acb32b"


class _Distribution:
    """An installed distribution owning the imported tvm, with or without PEP 610's direct_url.json."""

    def __init__(self, direct_url):
        self.direct_url, self.version = direct_url, "0.27.0"

    def locate_file(self, path):
        return tvm.__file__

    def read_text(self, name):
        return {"direct_url.json": self.direct_url and json.dumps(self.direct_url), "INSTALLER": "pip\n"}.get(name)


def test_where_tvm_came_from_is_read_from_its_distribution(monkeypatch):
    def installed(direct_url):
        monkeypatch.setattr(importlib.metadata, "distribution", lambda name: _Distribution(direct_url))
        return tvm_source()

    assert installed(None) == "PyPI wheel (apache-tvm 0.27.0, installed by pip)"
    assert installed({"url": "file:///src/tvm/python", "dir_info": {}}) == "source build at /src/tvm/python"
    assert installed({"url": "https://x/tvm.whl", "archive_info": {}}) == "wheel from https://x/tvm.whl"

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)
    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    assert tvm_source().startswith("source build at ")  # imported from a checkout no installer knows


def test_environment_has_every_field_and_the_report_states_them():
    here = environment()
    assert tuple(here) == FIELDS and all(isinstance(value, str) and value for value in here.values())
    assert not here["tvm_commit"].startswith("g") and here["tvm"] == tvm.__version__
    text = "\n".join(environment_lines(here))
    assert f"from {here['tvm_source']}" in text and f"LLVM {here['llvm']}" in text and here["numpy"] in text
    assert record.environment is environment  # a record's environment comes from the one home

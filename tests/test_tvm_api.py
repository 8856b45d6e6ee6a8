"""What passfuzz needs of TVM is checked at run time, not pinned by version: an older TVM (faked
by a stand-in ``tvm`` package first on the path) is refused in one line naming what it lacks,
while TVM main's version string passes and the installed release passes."""

import os
import subprocess
import sys
import re
import types

import pytest

from passfuzz.relax import tvm_api

from .conftest import ROOT


def test_the_installed_tvm_has_everything_passfuzz_needs():
    import tvm

    assert tvm_api.missing(tvm) == []
    assert tvm_api.check() == tvm.__version__


def test_a_development_version_of_tvm_main_passes_the_check(monkeypatch):
    import tvm

    monkeypatch.setattr(tvm, "__version__", "0.28.dev412+g1a2b3c4")
    assert tvm_api.check(tvm) == "0.28.dev412+g1a2b3c4"


def test_a_tvm_without_the_renamed_api_is_refused_naming_what_it_lacks():
    import tvm

    # TVM 0.26's shape: tvm.tir, no tvm.tirx; everything else present
    old = types.ModuleType("tvm_old")
    old.__version__ = "0.26.0"
    for name in ("compile", "relax", "s_tir", "script", "runtime"):
        setattr(old, name, getattr(tvm, name))
    assert tvm_api.missing(old) == ["tirx.IntImm"]
    with pytest.raises(tvm_api.UnsupportedTVM, match=r"TVM 0\.26\.0 lacks tvm\.tirx\.IntImm.*apache-tvm>=0\.27"):
        tvm_api.check(old)


def test_pyproject_has_no_upper_bound_on_tvm_and_ci_pins_the_release():
    [tvm] = re.findall(r'^\s*"(apache-tvm[^"]*)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert tvm == "apache-tvm>=0.27"
    assert '"apache-tvm>=0.27,<0.28"' in (ROOT / ".ci" / "run").read_text()


@pytest.mark.parametrize("args", [("passes",), ("--passes", "FoldConstant", "--max-examples", "1"),
                                  ("replay", "corpus")])
def test_every_command_using_tvm_refuses_an_old_tvm_in_one_line_and_writes_nothing(tmp_path, args):
    fake = tmp_path / "site" / "tvm"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('__version__ = "0.26.0"\n')
    env = dict(os.environ, PYTHONPATH=f"{fake.parent}{os.pathsep}{ROOT}")
    result = subprocess.run([sys.executable, "-m", "passfuzz", *args], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith("passfuzz: error: the installed TVM 0.26.0 lacks tvm.compile") and "TVM main" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # no corpus, no .hypothesis


def test_commands_that_need_no_tvm_run_with_an_old_one(tmp_path):
    fake = tmp_path / "tvm"
    fake.mkdir()
    (fake / "__init__.py").write_text('__version__ = "0.26.0"\n')
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    result = subprocess.run([sys.executable, "-m", "passfuzz", "ops"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "reshape" in result.stdout

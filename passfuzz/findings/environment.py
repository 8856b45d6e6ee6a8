"""Where a finding was seen, as a maintainer asks first: which TVM (its version, where it came
from, its commit), its LLVM, and the machine. One home for every report that states it (a
record's ``.md``, and any report built from records).

TVM from PyPI carries no build information in ``tvm.support.libinfo()``; its ``tvm._version``
holds ``git describe``'s abbreviated commit with its ``g`` prefix ("g7b5acb32b"), which is
``7b5acb32b``. Where TVM came from is read from its installed distribution (PEP 610's
``direct_url.json``: a local directory or an archive URL; none for an index such as PyPI).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import re

import numpy as np
import tvm

# The field names, in the order a report lists them.
FIELDS = ("tvm", "tvm_source", "tvm_commit", "llvm", "os", "cpu", "python", "numpy")


def tvm_commit() -> str:
    """TVM's commit hash as the build recorded it, without ``git describe``'s ``g`` prefix
    ('unknown' when neither the build information nor the version module has one)."""
    commit = tvm.support.libinfo().get("GIT_COMMIT_HASH") or getattr(getattr(tvm, "_version", None), "commit_id", None)
    if not commit:
        return "unknown"
    match = re.fullmatch(r"(?:.*-)?g([0-9a-f]{7,40})(?:\.dirty)?", str(commit))
    return match.group(1) if match else str(commit)


def tvm_source() -> str:
    """Where the imported TVM came from: 'PyPI wheel (apache-tvm)', 'wheel from URL', 'source
    build at PATH' (installed from a directory, or imported from one no distribution owns)."""
    package_dir = os.path.dirname(tvm.__file__)
    for name in ("apache-tvm", "tvm"):
        try:
            distribution = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        if os.path.realpath(distribution.locate_file("tvm/__init__.py")) != os.path.realpath(tvm.__file__):
            continue  # a distribution of that name is installed, but the TVM imported is another
        direct = distribution.read_text("direct_url.json")
        if direct is None:  # installed from an index, by name
            installer = (distribution.read_text("INSTALLER") or "").strip() or "an installer"
            return f"PyPI wheel ({name} {distribution.version}, installed by {installer})"
        url = json.loads(direct).get("url", "")
        if url.startswith("file://") and "dir_info" in json.loads(direct):
            return f"source build at {url.removeprefix('file://')}"
        return f"wheel from {url}"
    return f"source build at {os.path.dirname(package_dir)}"


def llvm_version() -> str:
    """LLVM's version as TVM reports it (its major version), or 'none' for a TVM built without it."""
    try:
        return str(tvm.support.libinfo().get("LLVM_VERSION") or tvm.target.codegen.llvm_version_major())
    except Exception:  # noqa: BLE001 - a TVM built without LLVM has no such function
        return "none"


def cpu() -> str:
    """The CPU's model name, and what LLVM calls it (what -mcpu=host means here)."""
    name = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            name = next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), name)
    except OSError:
        pass
    try:
        name += f" ({tvm.target.codegen.llvm_get_system_cpu()})"
    except Exception:  # noqa: BLE001 - a TVM built without LLVM
        pass
    return name


def environment() -> dict[str, str]:
    """The fields of ``FIELDS`` for this process: TVM's version, source and commit, LLVM, OS,
    CPU, Python and numpy."""
    return {"tvm": tvm.__version__, "tvm_source": tvm_source(), "tvm_commit": tvm_commit(), "llvm": llvm_version(),
            "os": platform.platform(), "cpu": cpu(), "python": platform.python_version(), "numpy": np.__version__}


def environment_lines(env: dict[str, str]) -> list[str]:
    """``env`` (as ``environment`` returns it; older records lack fields) as markdown list items."""
    lines = [f"- TVM {env.get('tvm', '?')}"
             + (f" from {env['tvm_source']}" if env.get("tvm_source") else "")
             + (f", commit {tvm_commit_of(env)}" if env.get("tvm_commit") else "")
             + (f"; LLVM {env['llvm']} (as TVM reports it)" if env.get("llvm") else "")]
    if env.get("os") or env.get("cpu"):
        lines.append(f"- {env.get('os', '?')}; CPU {env.get('cpu', '?')}")
    if env.get("python") or env.get("numpy"):
        lines.append(f"- Python {env.get('python', '?')}, numpy {env.get('numpy', '?')}")
    return lines


def tvm_commit_of(env: dict[str, str]) -> str:
    """The commit of ``env``, with the ``g`` prefix an older record kept taken off."""
    return re.sub(r"^g(?=[0-9a-f]{7,40}$)", "", env.get("tvm_commit", "unknown"))

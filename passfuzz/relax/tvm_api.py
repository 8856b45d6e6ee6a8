"""What passfuzz needs of the installed TVM, checked at run time instead of pinned by version.

pyproject.toml asks only for ``apache-tvm>=0.27``: a source build of TVM main installs as
``apache-tvm`` 0.28.devN, which an upper pin (``<0.28``) would replace with the release wheel. So
what passfuzz relies on is checked here, by name: the Python API that 0.27 renamed (``tvm.tirx``,
``relax.TensorType``, ``tvm.s_tir``) and the entry points every side calls. A TVM that lacks one
is refused in one line naming what is missing, before any command does work.
"""

from __future__ import annotations

import importlib

# dotted name under ``tvm`` -> why passfuzz needs it (said when it is missing)
REQUIRED = {
    "compile": "every side is compiled with tvm.compile",
    "relax.BlockBuilder": "Programs are built with BlockBuilder",
    "relax.TensorType": "Relax types (named StructInfo before TVM 0.27)",
    "relax.VirtualMachine": "compiled modules run on the Relax VM",
    "relax.transform": "the passes fuzzed",
    "tirx.IntImm": "TIR expressions (tvm.tir before TVM 0.27)",
    "s_tir.Schedule": "the schedule axis of --build (tvm.tir.Schedule before TVM 0.27)",
    "script.from_source": "reproducers and records hold TVMScript",
    "runtime.tensor": "argument values are passed as TVM tensors",
}
HINT = 'install TVM 0.27 or newer: pip install "apache-tvm>=0.27", or a source build of TVM main (README: "TVM main")'


class UnsupportedTVM(Exception):
    """The installed TVM cannot run passfuzz; the message is one line saying why."""


def _lookup(root, dotted: str):
    """``root.a.b.c``, importing ``root.a`` (and deeper) as a submodule where it is not an attribute yet."""
    value, path = root, root.__name__
    for part in dotted.split("."):
        path = f"{path}.{part}"
        if not hasattr(value, part):
            try:
                importlib.import_module(path)
            except ImportError:
                return None
        value = getattr(value, part, None)
        if value is None:
            return None
    return value


def missing(tvm_module) -> list[str]:
    """The names of REQUIRED that ``tvm_module`` lacks, in REQUIRED's order."""
    return [name for name in REQUIRED if _lookup(tvm_module, name) is None]


def check(tvm_module=None) -> str:
    """The version of the installed TVM (or of ``tvm_module``) if it has everything passfuzz
    needs; UnsupportedTVM otherwise."""
    if tvm_module is None:
        try:
            import tvm as tvm_module
        except Exception as exc:  # noqa: BLE001 - a broken build fails in many ways; say which, in one line
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise UnsupportedTVM(f"TVM is not importable ({why}); {HINT}") from None
    version = getattr(tvm_module, "__version__", "of unknown version")
    absent = missing(tvm_module)
    if absent:
        first = absent[0]
        more = f" (and {len(absent) - 1} more of what it needs)" if absent[1:] else ""
        raise UnsupportedTVM(f"the installed TVM {version} lacks tvm.{first}, which passfuzz needs: "
                             f"{REQUIRED[first]}{more}; {HINT}")
    return version

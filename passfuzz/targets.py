"""Which compilation targets this TVM build can run here.

Detection is at run time: a GPU kind counts when the runtime is built in *and* a device is
present. How a side is compiled for a target is passfuzz.standalone.load.
"""

from __future__ import annotations

import shutil

import tvm

from .standalone import GPU_KINDS, kind_of

CPU_KINDS = ("llvm", "c")
KNOWN_KINDS = CPU_KINDS + GPU_KINDS



def unavailable_reason(target: str) -> str | None:
    """None when ``target`` can compile and run on this machine, else why not (one line)."""
    kind = kind_of(target)
    if kind not in KNOWN_KINDS:
        return f"unknown target kind {kind!r} (known: {', '.join(KNOWN_KINDS)})"
    if kind == "llvm":
        return None if tvm.runtime.enabled("llvm") else "this TVM build has no LLVM"
    if kind == "c":
        return None if shutil.which("gcc") or shutil.which("cc") else "the c target needs a C compiler (gcc)"
    if not tvm.runtime.enabled(kind):
        return f"this TVM build has no {kind} runtime"
    if not tvm.runtime.device(kind, 0).exist:
        return f"no {kind} device present"
    return None


def default_targets() -> list[str]:
    """Every target this machine can run, except the C backend (it needs gcc at every run)."""
    return [kind for kind in ("llvm",) + GPU_KINDS if unavailable_reason(kind) is None]

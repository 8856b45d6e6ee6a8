"""Which compilation targets this TVM build can run here, and how to compile and run on them.

Detection is at run time: a GPU kind counts when the runtime is built in *and* a device is
present. GPU targets compile through their default Relax pipeline, which schedules the kernels
(thread binding) that the plain pipeline leaves unscheduled.
"""

from __future__ import annotations

import shutil

import tvm
from tvm import relax

CPU_KINDS = ("llvm", "c")
GPU_KINDS = ("cuda", "rocm", "vulkan", "opencl", "metal")
KNOWN_KINDS = CPU_KINDS + GPU_KINDS


def kind_of(target: str) -> str:
    return target.split()[0].split("-")[0]


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


def device_for(target: str):
    kind = kind_of(target)
    return tvm.cpu(0) if kind in CPU_KINDS else tvm.runtime.device(kind, 0)


def compile_module(mod: tvm.IRModule, target: str):
    """tvm.compile for ``target``; GPU kinds go through the target's own default pipeline."""
    tgt = tvm.target.Target(target)
    if kind_of(target) in GPU_KINDS:
        return tvm.compile(mod, target=tgt, relax_pipeline=relax.get_default_pipeline(tgt))
    return tvm.compile(mod, target=tgt)

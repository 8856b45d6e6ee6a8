"""Compiling and loading one side, exactly as passfuzz and its reproducer scripts both do it.

Reproducer scripts run with tvm and numpy alone, so this module imports nothing from passfuzz:
``reproducer.py`` copies ``GPU_KINDS``, ``kind_of`` and ``load`` into every script and ``execute.py`` calls it,
so a script can never compile a module differently from the run that found the bug.
"""

import os
import shutil
import tempfile

import tvm
from tvm import relax

GPU_KINDS = ("cuda", "rocm", "vulkan", "opencl", "metal")  # they need their pipeline's scheduling


def kind_of(target):
    """The target kind of a target name such as "llvm" or "cuda"."""
    return target.split()[0].split("-")[0]

def has_closures(mod):
    """Does a Relax function of ``mod`` define a local function? (They must be lifted first.)"""
    found = []
    for func in mod.functions.values():
        if isinstance(func, relax.Function):
            relax.analysis.post_order_visit(func.body, lambda e: found.append(isinstance(e, relax.Function)))
    return any(found)


def load(mod, target, build=None):
    """(executable, device): ``mod`` compiled for ``target`` (a target kind such as "llvm") under
    ``build``, a dict of passfuzz.builds.Build fields (None or {} for the plain build)."""
    build = build or {}
    kind = kind_of(target)
    if build.get("codegen") == "c" and kind == "llvm":
        kind, target = "c", "c"
    llvm_options = {key: build[field] for field, key in (("opt_level", "opt-level"), ("mcpu", "mcpu"))
                    if build.get(field) is not None}
    if llvm_options and kind == "llvm":
        if llvm_options.get("mcpu") == "host":
            llvm_options["mcpu"] = tvm.target.codegen.llvm_get_system_cpu()
        target = {"kind": "llvm", **llvm_options}
    if has_closures(mod):  # the build pipeline cannot lower local functions
        mod = relax.transform.LambdaLift()(mod)
    tgt = tvm.target.Target(target)
    target_pipeline = kind in GPU_KINDS or build.get("pipeline") == "target"
    pipeline = relax.get_default_pipeline(tgt) if target_pipeline else "default"
    executable = relax.build(mod, tgt, relax_pipeline=pipeline, exec_mode=build.get("exec_mode", "bytecode"))
    if build.get("export"):  # the serialization round trip: export_library, then load it back
        directory = tempfile.mkdtemp(prefix="passfuzz-")
        try:
            path = os.path.join(directory, "side.so")
            executable.export_library(path)
            executable = tvm.runtime.load_module(path)
        finally:
            shutil.rmtree(directory, ignore_errors=True)  # a loaded library stays mapped
    device = tvm.cpu(0) if kind in ("llvm", "c") else tvm.runtime.device(kind, 0)
    return executable, device

"""Compiling, running and isolating one side, exactly as passfuzz and its reproducer scripts do it.

Reproducer scripts run with tvm and numpy alone, so this module imports nothing from passfuzz
but passfuzz.portable.schedules, passfuzz.portable.tuning_records and passfuzz.portable.dlight_rules (tvm only, each
copied whole into a script that schedules): ``reproducer.py`` copies into a script the
functions it needs (``inspect.getsource``) and passfuzz calls the same functions, so a script can never compile a module, pass its arguments or read its
outputs differently from the run that found the bug. A plain build for a CPU target
(``is_plain``) is ``tvm.compile(mod, target)``, which a script writes out as that call. Any other
is ``compile_with`` taking one small step per feature the target and the build name
(``steps_for``: options, codegen, pipeline, schedule, dlight, tuning records, export, closures);
a script copies ``compile_with`` and those steps alone, so it holds no code for what its build
does not use.

A target is a string as on TVM's old command line, "llvm -mcpu=skylake -mattr=+avx2,+fma" or
"cuda -arch=sm_80": TVM 0.27 takes only JSON-like dicts, and ``target_config`` turns the string
into one, typed by the target kind's option schema.
"""

import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import tempfile

import numpy as np
import tvm
from tvm import relax

from .dlight_rules import gpu_pipeline
from .schedules import schedule_pass
from .tuning_records import records_pass

def headline(error: str) -> str:
    """The line of a child's error that names it: the first, and for a C compiler's failure (TVM's
    ``Compilation error:`` with the compiler's output after it) the compiler's first diagnostic too,
    without its file and position; otherwise every malformed C source is one error."""
    lines = error.strip().splitlines()
    if not lines:
        return ""
    if lines[0].rstrip().endswith("Compilation error:"):
        diagnostic = next((line for line in lines[1:] if re.search(r"\b(fatal )?error:", line)), "")
        if diagnostic:
            where = re.compile(r"^[^:]*:(\d+:)*\s*")  # file:line:column:
            return f"{lines[0].rstrip()} {where.sub('', diagnostic.strip())}"
    return lines[0]


GPU_KINDS = ("cuda", "rocm", "vulkan", "opencl", "metal")  # they need their pipeline's scheduling


def kind_of(target):
    """The target kind of a target string such as "llvm" or "cuda -arch=sm_80"."""
    return target.split()[0] if target.split() else ""


def target_config(target):
    """"llvm -mcpu=skylake -opt-level=2" -> {"kind": "llvm", "mcpu": "skylake", "opt-level": 2}.
    Each option is -name=value (a bare -name is true); its type comes from the kind's options:
    int, bool (true/false/1/0), Array<str> (comma-separated) or str. ValueError, one line, for
    an option the kind does not have or a value of the wrong type."""
    words = target.split()
    kind = words[0] if words else ""
    if kind not in tvm.target.Target.list_kinds():
        raise ValueError(f"TVM knows no target kind {kind!r}")
    options = tvm.target.TargetKind.options_from_name(kind)
    config = {"kind": kind}
    for word in words[1:]:
        name, equals, value = word.lstrip("-").partition("=")
        if not word.startswith("-") or not name or name not in options or name in ("kind", "host"):
            raise ValueError(f"{kind} has no option {word!r} (options: {', '.join(sorted(options))})")
        schema = options[name]
        if schema == "bool" and value.lower() in ("", "true", "1", "false", "0"):
            config[name] = value.lower() in ("", "true", "1")
        elif schema == "int" and value.lstrip("-").isdigit():
            config[name] = int(value)
        elif schema.startswith("Array") and value:
            config[name] = value.split(",")
        elif schema == "str" and equals and value:
            config[name] = value
        else:
            raise ValueError(f"{kind} option {name} takes {schema}, not {value!r}")
    return config


def to_tvm(argument, device=None):
    """One of ``Program.arguments()`` as the VM takes it, on ``device`` (the CPU if None): a tensor, a
    ShapeTuple for an R.Shape parameter, the int, float or bool for an R.Prim one, a tuple of those
    for a tuple."""
    if isinstance(argument, (int, float)):  # a bool is an int
        return argument
    if isinstance(argument, tuple) and all(isinstance(item, int) for item in argument):
        return tvm.runtime.ShapeTuple(argument)
    if isinstance(argument, tuple):
        return tuple(to_tvm(item, device) for item in argument)
    return tvm.runtime.tensor(argument, device)


def has_closures(mod):
    """Does a Relax function of ``mod`` define a local function? (They must be lifted first.)"""
    found = []
    for func in mod.functions.values():
        if isinstance(func, relax.Function):
            relax.analysis.post_order_visit(func.body, lambda e: found.append(isinstance(e, relax.Function)))
    return any(found)


def is_plain(target, build=None):
    """Is this the plain build (``tvm.compile(mod, target)``) for a CPU target without options?"""
    return not build and target in ("llvm", "c")


def numpy_outputs(value):
    """The VM's result (tensors, R.Shape values as int64, nested tuples of them) as flat numpy arrays."""
    if hasattr(value, "numpy") or isinstance(value, tvm.runtime.ShapeTuple):
        return [value.numpy() if hasattr(value, "numpy") else np.array(list(value), dtype="int64")]
    return [array for item in value for array in numpy_outputs(item)]


def load(mod, target, build=None):
    """(executable, device): ``mod`` compiled for ``target`` (a target string such as "llvm" or
    "cuda -arch=sm_80") under ``build``, a dict of passfuzz.run.builds.Build fields (None or {} for the
    plain build): ``tvm.compile`` itself for the plain build on a CPU target, otherwise
    ``compile_with`` taking the steps the target and the build call for (``steps_for``)."""
    build = build or {}
    if is_plain(target, build):
        return tvm.compile(lift_closures(mod) if has_closures(mod) else mod, target), tvm.cpu(0)
    return compile_with(mod, target, build, steps_for(target, build, has_closures(mod)))


def steps_for(target, build, closures=False):
    """The steps ``compile_with`` takes for ``target`` under ``build`` (a dict, as ``load`` takes
    it; ``closures``: the module defines local functions): those of ``STEPS`` that do something
    here, per phase. A reproducer copies just these. GPU kinds always take the target's pipeline."""
    kind = kind_of(target)
    c = build.get("codegen") == "c" and kind == "llvm"
    gpu = kind in GPU_KINDS
    wanted = {lift_closures: closures, target_options: len(target.split()) > 1, c_codegen: c,
              llvm_options: kind == "llvm" and not c and (build.get("opt_level") is not None
                                                          or build.get("mcpu") is not None),
              target_pipeline: gpu or build.get("pipeline") == "target",
              dlight_pipeline: gpu and build.get("dlight_rules") is not None,
              scheduled_pipeline: bool(build.get("schedule_steps")), tuned_pipeline: bool(build.get("tune_records")),
              exported: bool(build.get("export"))}
    chosen = {phase: [step for step in steps if wanted[step]] for phase, steps in STEPS.items()}
    return {phase: steps for phase, steps in chosen.items() if steps}


def compile_with(mod, target, build, steps):
    """(executable, device): ``mod`` built by ``relax.build`` for ``target`` under ``build`` after
    ``steps`` (``steps_for``), phase by phase; without steps, the plain build."""
    for step in steps.get("module", ()):
        mod = step(mod)
    config = {"kind": kind_of(target)}
    for step in steps.get("target", ()):
        config = step(config, target, build)
    tgt = tvm.target.Target(config)
    pipeline = "default"
    for step in steps.get("pipeline", ()):
        pipeline = step(pipeline, tgt, build)
    pass_config = {key: dict(value) if isinstance(value, (tuple, list)) else value  # config=random's keys (a
                   for key, value in build.get("pass_config", ())}  # struct's: its fields); else the caller's context
    with tvm.transform.PassContext(config=pass_config) if pass_config else tvm.transform.PassContext.current():
        executable = relax.build(mod, tgt, relax_pipeline=pipeline, exec_mode=build.get("exec_mode", "bytecode"))
    for step in steps.get("executable", ()):
        executable = step(executable)
    kind = config["kind"]
    return executable, tvm.cpu(0) if kind in ("llvm", "c") else tvm.runtime.device(kind, 0)


# The steps, one per feature of a target or a build; each returns what it maps.
def lift_closures(mod):
    """The module's local functions lifted to global ones: the build pipeline cannot lower them."""
    return relax.transform.LambdaLift()(mod)


def target_options(config, target, build):
    """The options written in the target string ("llvm -mcpu=skylake")."""
    return {**config, **target_config(target)}


def c_codegen(config, target, build):
    """codegen=c: the C codegen in place of LLVM (without LLVM's options)."""
    return {"kind": "c"}


def llvm_options(config, target, build):
    """opt-level and mcpu (mcpu=host: this machine's CPU) on top of the target's options."""
    options = {key: build[field] for field, key in (("opt_level", "opt-level"), ("mcpu", "mcpu"))
               if build.get(field) is not None}
    if options.get("mcpu") == "host":
        options["mcpu"] = tvm.target.codegen.llvm_get_system_cpu()
    return {**config, **options}


def target_pipeline(pipeline, tgt, build):
    """pipeline=target, and every GPU kind: the target's own default Relax pipeline, which fuses;
    on a GPU it schedules every kernel onto threads (dlight), without which none passes VerifyMemory."""
    return relax.get_default_pipeline(tgt)


def dlight_pipeline(pipeline, tgt, build):
    """dlight=random: the GPU pipeline with the drawn dlight rules in place of the default ones."""
    return gpu_pipeline(tgt, build["dlight_rules"])


def scheduled_pipeline(pipeline, tgt, build):
    """schedule=random: the drawn schedule, on the kernels the Relax pipeline leaves."""
    return followed_by(pipeline, schedule_pass(build["schedule_steps"]))


def tuned_pipeline(pipeline, tgt, build):
    """tune=N: what tuning chose, applied to the kernels as MetaSchedule applies its database."""
    return followed_by(pipeline, records_pass(build["tune_records"], tgt))


def followed_by(pipeline, last):
    """The Relax pipeline ``pipeline`` (a name or a pass), then the pass ``last``."""
    return tvm.transform.Sequential([relax.get_pipeline(pipeline) if isinstance(pipeline, str) else pipeline, last])


def exported(executable):
    """export: the serialization round trip, export_library then load the library back."""
    directory = tempfile.mkdtemp(prefix="passfuzz-")
    try:
        path = os.path.join(directory, "side.so")
        executable.export_library(path)
        return tvm.runtime.load_module(path)
    finally:
        shutil.rmtree(directory, ignore_errors=True)  # a loaded library stays mapped


# Every step, per phase in the order compile_with takes them: "module" steps map the module,
# "target" steps (config, target, build) the target's config, "pipeline" steps (pipeline, tgt,
# build) the Relax pipeline, "executable" steps the built executable.
STEPS = {"module": (lift_closures,), "target": (target_options, c_codegen, llvm_options),
         "pipeline": (target_pipeline, dlight_pipeline, scheduled_pipeline, tuned_pipeline),
         "executable": (exported,)}


def run_child(argv, timeout):
    """Run ``argv`` (a script re-running itself with an argument) in a fresh process, which arms
    ``signal.alarm(timeout)`` once it has imported TVM: '' when it exits 0, else how it ended:
    "died of SIGSEGV", "no result after 60 s", or "exited with status 1: " and the last line
    it wrote to stderr. Importing TVM takes seconds, so the parent waits that much longer before
    it gives up on a child that never armed its alarm."""
    try:
        child = subprocess.run(argv, capture_output=True, text=True, timeout=timeout + 60)
    except subprocess.TimeoutExpired:
        return f"no result after {timeout + 60:g} s"
    if child.returncode == -signal.SIGALRM:
        return f"no result after {timeout:g} s"
    if child.returncode < 0:
        return f"died of {signal.Signals(-child.returncode).name}"
    if child.returncode > 0:
        last = (child.stderr.strip().splitlines() or [""])[-1]
        return f"exited with status {child.returncode}: {last}"
    return ""


def outputs_in_child(script, target, timeout):
    """(outputs, '') of ``script`` run as ``script target path`` in a fresh process, which
    pickles its outputs on ``target`` to ``path``; (None, how it ended) when it fails. Each target
    gets a process of its own: a GPU runtime does not survive a fork once initialised."""
    directory = tempfile.mkdtemp(prefix="passfuzz-")
    try:
        path = os.path.join(directory, "outputs.pickle")
        fate = run_child([sys.executable, script, target, path], timeout)
        if fate:
            return None, fate
        with open(path, "rb") as file:
            return pickle.load(file), ""
    finally:
        shutil.rmtree(directory, ignore_errors=True)

"""Which compilation targets the user asked for, and which of them can run on this machine.

``--targets`` is a comma-separated list of target strings, each a kind with options as on TVM's
old command line: ``llvm,llvm -mcpu=skylake -opt-level=0,cuda -arch=sm_80``. A list option's
value contains commas too (``-mattr=+avx2,+fma``), so a comma starts a new target only when the
word after it is a target kind; otherwise it continues the previous target's last option.

Detection is at run time: a GPU kind counts when this TVM build has its runtime *and* a device is
present. Asking whether a device is present initialises its driver (CUDA above all), after which
this process could no longer fork safely, so the question is asked in a short-lived fresh process
(``isolate.run_fresh``), never here. How a side is compiled for a target is passfuzz.portable.standalone.load.
"""

from __future__ import annotations

import os
import shutil

import tvm

from passfuzz.portable.standalone import GPU_KINDS, kind_of, target_config

CPU_KINDS = ("llvm", "c")
KNOWN_KINDS = CPU_KINDS + GPU_KINDS
_PROBE_SECONDS = 120.0  # importing TVM and creating a device context in a fresh process


class TargetError(ValueError):
    """A --targets value that does not parse; the message is one line."""


def split_targets(text: str) -> list[str]:
    """``"llvm -mattr=+avx2,+fma,c"`` -> ``["llvm -mattr=+avx2,+fma", "c"]`` (see the module doc)."""
    targets: list[str] = []
    for piece in text.split(","):
        words = piece.split()
        if not words:
            raise TargetError(f"--targets: empty target in {text!r}")
        if targets and words[0] not in KNOWN_KINDS and len(words) == 1 and _ends_in_list_option(targets[-1]):
            targets[-1] += "," + words[0]
        else:
            targets.append(" ".join(words))
    return targets


def _ends_in_list_option(target: str) -> bool:
    """Whether ``target``'s last word is -name=value with an Array option, which takes more values."""
    words = target.split()
    name, equals, _ = words[-1].lstrip("-").partition("=")
    if len(words) < 2 or not equals or kind_of(target) not in KNOWN_KINDS:
        return False
    return tvm.target.TargetKind.options_from_name(kind_of(target)).get(name, "").startswith("Array")


def check_target(target: str) -> str:
    """The canonical spelling of ``target`` (single spaces); TargetError if the kind is not one
    passfuzz runs, or an option does not exist for the kind or has a value of the wrong type."""
    kind = kind_of(target)
    if kind not in KNOWN_KINDS:
        raise TargetError(f"--targets: unknown target kind {kind!r} in {target!r} (known: {', '.join(KNOWN_KINDS)})")
    try:
        config = target_config(target)
        tvm.target.Target(config)
    except ValueError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise TargetError(f"--targets: {target!r}: {first[:300]}") from None
    mcpu = config.get("mcpu")
    if kind == "llvm" and mcpu and not tvm.target.codegen.llvm_is_valid_cpu(
            mcpu, config.get("mtriple") or tvm.target.codegen.llvm_get_system_triple()):
        raise TargetError(f"--targets: {target!r}: LLVM knows no CPU {mcpu!r}")  # LLVM would only warn
    return " ".join(target.split())


def parse_targets(text: str) -> list[str]:
    """The canonical target strings of a --targets value, duplicates dropped, order kept."""
    return list(dict.fromkeys(check_target(target) for target in split_targets(text)))


def unavailable_reason(target: str) -> str | None:
    """None when ``target`` can compile and run on this machine, else why not (one line)."""
    kind = kind_of(target)
    if kind not in KNOWN_KINDS:
        return f"unknown target kind {kind!r} (known: {', '.join(KNOWN_KINDS)})"
    if kind == "llvm":
        return "this TVM build has no LLVM" if not tvm.runtime.enabled("llvm") else _missing_isa(target)
    if kind == "c":
        return None if shutil.which("gcc") or shutil.which("cc") else "the c target needs a C compiler (gcc)"
    if not tvm.runtime.enabled(kind):
        return f"this TVM build has no {kind} runtime"
    return _device_reason(kind)


# Features that name instructions (as opposed to LLVM's tuning flags such as slow-3ops-lea): code
# compiled for a -mcpu with one of these that this CPU lacks dies of SIGILL, an alarm on no pass.
_ISA_PREFIXES = ("avx", "sse", "ssse", "amx", "fma", "f16c", "bmi", "popcnt", "lzcnt", "movbe", "vpclmul", "gfni",
                 "vaes", "evex512", "xop", "sse4a", "tbm", "sve", "sme", "neon", "fp16", "bf16", "i8mm", "dotprod")


def _missing_isa(target: str) -> str | None:
    config = target_config(target)
    if "mcpu" not in config and "mattr" not in config or config.get("mtriple"):
        return None  # this machine's own CPU, or cross-compiling (never run here)
    codegen = tvm.target.codegen
    host = set(codegen.llvm_get_cpu_features(tvm.target.Target({"kind": "llvm",
                                                                   "mcpu": codegen.llvm_get_system_cpu()})))
    wanted = set(codegen.llvm_get_cpu_features(tvm.target.Target(config)))
    missing = sorted(f for f in wanted - host if f.startswith(_ISA_PREFIXES))
    if missing:
        return f"this CPU ({codegen.llvm_get_system_cpu()}) lacks instructions it may use: {', '.join(missing[:6])}"
    return None


_device_reasons: dict[str, str | None] = {}


def _device_reason(kind: str) -> str | None:
    """Whether a ``kind`` device is present, asked once per run in a fresh process (see above)."""
    if kind not in _device_reasons:
        from . import isolate

        probe = isolate.run_fresh(device_present, (kind,), _PROBE_SECONDS)
        if probe.status != "ok":
            _device_reasons[kind] = f"probing the {kind} device failed: {probe.status} {probe.error}".strip()
        else:
            _device_reasons[kind] = None if probe.value else f"no {kind} device present"
    return _device_reasons[kind]


def device_present(kind: str) -> bool:
    """Runs in the probing process: this initialises the device's driver."""
    return bool(tvm.runtime.device(kind, 0).exist)


def default_targets() -> list[str]:
    """Every target this machine can run, except the C backend (it needs gcc at every run)."""
    return [kind for kind in ("llvm",) + GPU_KINDS if unavailable_reason(kind) is None]


# Dtypes a target kind cannot compute at all, so programs for it are not drawn in them: TVM's C
# codegen resolves no half-precision math intrinsic (`tirx.exp` of float16 stays an unresolved
# call) and gcc rejects its float16 arithmetic.
UNSUPPORTED_DTYPES = {"c": ("float16", "bfloat16")}


def drawable_dtypes(targets, dtypes) -> tuple[str, ...]:
    """``dtypes`` without those a target in ``targets`` cannot compute."""
    unsupported = {d for target in targets for d in UNSUPPORTED_DTYPES.get(kind_of(target), ())}
    return tuple(d for d in dtypes if d not in unsupported)


def needs_fresh_process(targets) -> bool:
    """Whether a side compiled or run for ``targets`` must not run in a child forked from this
    process: a GPU driver (CUDA above all) breaks in a child forked after it was initialised, and
    a forked child of a process that has run a GPU side would inherit it. PASSFUZZ_ISOLATION=fresh
    makes every side take the GPU path (to test it, or when a CPU runtime misbehaves after fork)."""
    return os.environ.get("PASSFUZZ_ISOLATION") == "fresh" or any(kind_of(target) in GPU_KINDS for target in targets)

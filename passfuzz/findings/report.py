"""A finding as a markdown bug report: what happens, the key lines of the error or the differing
values, the reproducer script inline, what should happen, and the environment it ran in."""

from __future__ import annotations

import re

from passfuzz.ir.catalogue import RTOL
from passfuzz.judge.gradient import PASS_NAME as GRADIENT
from passfuzz.judge.oracle import REFERENCE_SLACK, target_slack
from passfuzz.passes.names import PassSpec
from passfuzz.run.builds import parse_build

from .environment import environment_lines
from .record import unoptimized_on_target
from .reproducer import describe, requirements


def _short_path(line: str) -> str:
    """A traceback frame's file relative to site-packages (tvm/ir/transform.py)."""
    return re.sub(r'File "[^"]*/site-packages/', 'File "', line)


def key_lines(record: dict, limit: int = 14) -> str:
    """The lines of the record's log a maintainer reads first: the last traceback's frames inside
    TVM (passfuzz's own frames only say how it got there) and the exception; for a crash or hang,
    what the process wrote last; for a wrong result, the message (what differs)."""
    log, kind = record.get("log", ""), record["kind"]
    message = record["message"]
    if kind in ("crash", "hang", "pipeline-crash", "pipeline-hang"):
        tail = [line for line in log.strip().splitlines() if line.strip()][-limit + 1:]
        return "\n".join([message] + tail)
    if "Traceback (most recent call last):" not in log:
        return message
    traceback = log[log.rindex("Traceback (most recent call last):"):].rstrip().splitlines()
    kept, frame_in_passfuzz = [traceback[0]], False
    for line in traceback[1:]:
        if line.startswith("  File "):
            frame_in_passfuzz = "/passfuzz/" in line
        if line.startswith(" ") and (frame_in_passfuzz or set(line.strip()) <= set("^~ ")):
            continue  # passfuzz's frames, and the carets under a line
        # passfuzz's own exception (an ill-formed module) wraps TVM's message: show the message
        kept.append(re.sub(r"^passfuzz\.[\w.]+: ", "", _short_path(line)))
    if not any(line.startswith("  File ") for line in kept):  # no frame of TVM's: a bare header says nothing
        return message
    return "\n".join(kept if len(kept) <= limit else kept[:1] + ["  ..."] + kept[-limit + 2:])


def _error_of(record: dict) -> str:
    """The error of a failed stage, without passfuzz's "error at <stage>: " prefix (or "error at
    <stage> in <pipeline pass>: ", which the title says otherwise)."""
    inside = f" in {record['pipeline_pass']}" if record.get("pipeline_pass") else ""
    return record["message"].split(f" at {record.get('stage', '')}{inside}: ", 1)[-1]


def _title(record: dict) -> str:
    kind, passes = record["kind"], record["passes"]
    build = parse_build(record.get("build", ""))
    how = describe(passes, build)
    error = _error_of(record)
    error = error if len(error) <= 90 else error[:87] + "..."
    last = f"`{passes[-1]}`" if passes else "the build"
    if unoptimized_on_target(record):
        what = {"compile-error": "fails to compile", "runtime-error": "fails to run", "crash": "crashes",
                "hang": "hangs"}[kind]
        return f"unoptimized module {what} on `{record['targets'][0]}` only: {error}"
    if kind == "pass-error":
        return f"{last} raises {error}"
    if kind == "ill-formed":
        return f"{last} leaves an ill-formed module: {error}"
    if kind == "compile-error":
        inside = f" in `{record['pipeline_pass']}`" if record.get("pipeline_pass") else ""
        return f"compile error{inside} {how}: {error}"
    if kind == "runtime-error":
        return f"run-time error {how}: {error}"
    if kind in ("crash", "hang"):
        return f"{kind} at {record.get('stage', '')} {how}".rstrip()
    if kind == "reference-mismatch":
        return f"unoptimized module differs from numpy on `{record['targets'][0]}`"
    if kind.startswith("pipeline-"):
        what = {"pipeline-error": "fails", "pipeline-crash": "crashes", "pipeline-hang": "hangs"}[kind]
        return f"`tvm.compile` {what} at {record.get('stage', '')} because of `{record['pipeline_pass']}`"
    if kind == "target-mismatch":
        first, second = record["targets"][:2]
        return f"`{second}` and `{first}` disagree on the same module {how}".rstrip()
    if kind == "slowdown":
        return f"module {record['slowdown_threshold']:g}x slower or more {how} on `{record['targets'][0]}`"
    if kind in ("print-round-trip", "json-round-trip"):
        after = f"after {last}" if passes else "before any pass"
        how_back = "print and parse back" if kind == "print-round-trip" else "save and load back as JSON"
        return f"module does not {how_back} {after}"
    if kind == "nondeterministic-pass":
        return f"{last} gives two fresh copies of one module different results"
    if kind == "nondeterministic-output":
        return f"two compiles and runs of one module {how} give different outputs".replace("  ", " ")
    if kind == "missed-rewrite":
        return f"{last} leaves a form it rewrites elsewhere: {record['signature'].rsplit(' | ', 1)[-1]}"
    if kind == "not-idempotent":
        return f"{last} applied once more to its own output changes it"
    if kind == "emi-mismatch":
        return f"outputs {how or 'of the unoptimized module'} change when If branches that never run are pruned"
    return f"wrong result {how}"


def _tolerance_note() -> str:
    return " or ".join(f"{rtol:g} ({dtype})" for dtype, rtol in RTOL.items())


def _expected(record: dict) -> str:
    kind, passes = record["kind"], record["passes"]
    last = f"`{passes[-1]}`" if passes else "the build"
    if kind == "pass-error":
        return (f"{last} transforms the module. The module is valid input: it is well formed, and it compiles\n"
                "and runs unoptimized.")
    if kind == "ill-formed":
        return f"The module {last} returns passes `relax.analysis.well_formed`."
    if any(PassSpec(p).name == GRADIENT for p in passes):
        return ("The module is well formed and compiles, and `main_adjoint` returns `main`'s loss and its\n"
                "gradients: within rounding and truncation error of central finite differences of `main`\n"
                "(float64, step 1e-4; the script computes them and says how large an error it allows).")
    if kind == "reference-mismatch":
        return (f"The same values as numpy (integers and bools exactly; floats within {REFERENCE_SLACK:g} times a\n"
                f"relative tolerance of {_tolerance_note()}, as the script's `assert_allclose` says). This is a\n"
                "legalization or codegen bug of TVM, or a mistake in passfuzz's op catalogue: check the op's\n"
                "documented semantics before filing.")
    if kind.startswith("pipeline-"):
        return (f"`tvm.compile` builds the module, and it runs and returns numpy's values, as it does when\n"
                f"`{record['pipeline_pass']}` is left out of the pipeline (`PassContext(disabled_pass=...)`, which\n"
                "the script runs too).")
    if kind == "target-mismatch":
        first, second = record["targets"][:2]
        return (f"The same outputs on `{first}` and `{second}`: integers and bools exactly, floats within the\n"
                f"script's `assert_allclose` tolerance (a relative tolerance of {_tolerance_note()}, widened\n"
                f"{target_slack((first, second)):g} times between these target kinds).")
    if unoptimized_on_target(record):
        return (f"The module compiles and runs on `{record['targets'][0]}` as it does on the run's first target, with\n"
                "no pass applied: a codegen or runtime fault of that target, not of any Relax pass.")
    if kind == "hang":
        return "The script finishes: passfuzz gave the optimized side as long as the script's timeout."
    if kind == "print-round-trip":
        return ("`mod.script()` parsed back by `tvm.script.from_source` (with the module's constants bound to\n"
                "`metadata`, which the printer leaves out) is structurally equal to the module.")
    if kind == "json-round-trip":
        return "`tvm.ir.load_json(tvm.ir.save_json(mod))` is structurally equal to `mod`, without crashing."
    if kind == "nondeterministic-pass":
        return "The same passes applied to two fresh copies of one module give structurally equal modules."
    if kind == "nondeterministic-output":
        return "The same module compiled and run twice on a CPU target gives bit-identical outputs."
    if kind == "missed-rewrite":
        return (f"{last} rewrites the form the message names, as it does where its pattern matches elsewhere: the\n"
                "module holds it where the pass's own conditions (the source lines cited) say it applies. A\n"
                "missed optimization, not a wrong result: file it as an enhancement, or as a pattern narrower\n"
                "than the pass's documentation.")
    if kind == "not-idempotent":
        return f"{last} applied to its own output returns it unchanged (structurally equal)."
    if kind == "emi-mismatch":
        when = f"after {last}" if passes else "unoptimized"
        return ("The module and its twin `Pruned`, which differs only in the If branches these arguments do not\n"
                f"take (each replaced by the smallest branch of its type), give bit-identical outputs {when}:\n"
                "the code that runs is the same, and code that never runs must not change what it computes.")
    if kind == "slowdown":
        return (f"The optimized module, which returns the original's outputs, is not slower than the original by\n"
                f"{record['slowdown_threshold']:g}x or more. The script times both in one process, interleaved, and\n"
                "calls it slower only when the 99% lower bound of the ratio (the sign test's, on paired timings)\n"
                "is above that; timings on a busy machine vary, the bound is what matters.")
    return ("The optimized module compiles, runs, and returns the same outputs as the original (integers and\n"
            "bools exactly; floats within the script's `assert_allclose` tolerance, a relative tolerance of\n"
            f"{_tolerance_note()} with an absolute part scaled by the output's static bound).")


def _environment(record: dict) -> str:
    lines = environment_lines({"tvm": record["tvm_version"], **(record.get("environment") or {})})
    lines.append(f"- target `{', '.join(record['targets'])}`"
                 + (f", build `{record['build']}`" if record.get("build") else ""))
    lines.append(f"- found by passfuzz {record['passfuzz_version']}: `{record['id']}` ({record['signature']})")
    return "\n".join(lines)


def _needs(script: str) -> str:
    """What running the script takes, from its own imports."""
    extra = requirements(script)
    return "needs only `tvm` and `numpy`" if not extra else \
        "needs `tvm`, `numpy` and " + ", ".join(f"`{name}`" for name in extra)


def render_report(record: dict, script: str) -> str:
    """A markdown bug report, ready to paste into an issue; ``script`` is the reproducer."""
    return f"""# [Bug][Relax] {_title(record)}

## Actual behaviour

```
{key_lines(record)}
```

## Expected behaviour

{_expected(record)}

## Steps to reproduce

`python {record['id']}.py` {_needs(script)}; it prints one line and exits 1 while the bug is present, 0 once
it is fixed, and 125 when it cannot run at all (an error outside the call under test, or a failure of another
kind than this one).

```python
{script.rstrip()}
```

## Environment

{_environment(record)}
"""

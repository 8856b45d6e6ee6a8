"""Render a finding as a standalone script (tvm + numpy, and what its header names beyond them),
written for the reader of a bug report.

A script is the original module as TVMScript (constants inline: ``script(show_meta=True)``
segfaults on tensor constants, so metadata references are replaced by value; symbolic dims as
written by hand), then the few straight-line calls its kind needs, and one printed line:
"BUG REPRODUCES (kind): ..." with exit status 1, or "fixed: ..." with 0. Only the call under test
is inside ``try``; any other uncaught error exits CANNOT_RUN (125, what ``git bisect run``
skips) through the script's ``sys.excepthook``, and so does a failure of another kind ("changed").

- pass-error / ill-formed: the passes (the failing one inside ``try``), then ``well_formed``.
- compile-error / runtime-error / wrong-result: the optimized module compiled and called (through
  the adapter passfuzz used, when a pass changed ``main``), then the original, then a dtype/shape
  check and ``np.testing.assert_allclose`` with the oracle's rtol/atol (the oracle judges floats
  by the same criterion, ``oracle.close_floats``). Gradient: ``main_adjoint`` against the loss
  and central differences the oracle expected, inline (``finite_differences.expected_gradients``).
  A schedule the finding blames: its kernel alone (``scheduled_kernel``), TVM's schedule calls.
- crash / hang: what runs before the crashing call runs in the script; the call alone in a forked
  child, whose signal or timeout the script reads.
- reference-mismatch: numpy's outputs inline against the unoptimized module.
- pipeline-error / pipeline-crash / pipeline-hang: a child runs ``tvm.compile`` and the call as is
  and fails (``standalone.run_child`` reads how); then the build with the blamed pipeline pass
  left out (``PassContext(disabled_pass=[...])``) runs and matches numpy's outputs inline.
- target-mismatch: each target in a child process of its own (``standalone.outputs_in_child``).
- slowdown: both modules compiled in the script's process and timed interleaved
  (passfuzz.portable.timing, copied), which prints both medians, the ratio and its interval.
- print-round-trip: the passes, ``mod.script()`` parsed back (passfuzz.portable.round_trip,
  copied) and ``assert_structural_equal``.
- json-round-trip: the passes, then ``save_json``, ``load_json`` and ``assert_structural_equal`` in
  a forked child (it segfaults on TVM 0.27.0.post1), as a crash script does.
- nondeterministic-pass: two fresh copies of the module (its text inside a function), the passes
  applied to each, ``assert_structural_equal``.
- nondeterministic-output: the optimized module compiled and called twice, outputs compared bit for bit.
- emi-mismatch: the module and its twin ``Pruned`` (the If branches its arguments do not take
  pruned, passfuzz.ir.emi), the passes applied to each, both compiled and called, outputs compared
  bit for bit.

Everything a script runs beyond TVM's and numpy's API is real code of passfuzz.portable.standalone and
passfuzz.portable.conventions (which passfuzz calls for the same job), copied with ``inspect.getsource``
only when the script needs it; this module writes glue only. A build other than the plain one
copies ``standalone.compile_with`` and only the steps ``standalone.steps_for`` picks for it.
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
from typing import Sequence

import numpy as np
import tvm
from tvm import relax

from passfuzz.ir.catalogue import is_float
from passfuzz.ir.emi import pruned
from passfuzz.ir.graph import analyse, evaluate, output_leaves, rounding_dtypes
from passfuzz.ir.program import Program
from passfuzz.judge import gradient
from passfuzz.judge.emi import EMI_MISMATCH
from passfuzz.judge.finding import Finding
from passfuzz.judge.oracle import PIPELINE_KINDS, REFERENCE_SLACK, target_slack, tolerance
from passfuzz.passes.names import PassSpec
from passfuzz.portable import (
    conventions,
    dlight_rules,
    finite_differences,
    round_trip,
    schedules,
    standalone,
    timing,
    tuning_records,
)
from passfuzz.relax.build import build_module
from passfuzz.run.builds import PLAIN_BUILD, Build
from passfuzz.run.calling import ADJOINT, PLAIN, Adapter
from passfuzz.run.execute import Outcome
from passfuzz.run.speed import SpeedCheck

from .scheduled_kernel import Kernel, scheduled_kernel


def _array_literal(array) -> str:
    """An argument as Python source: an array, an int, float or bool (an R.Prim parameter), a
    tuple of ints (an R.Shape parameter), or a tuple of arrays (a tuple parameter)."""
    if isinstance(array, (int, float)):
        return repr(array)
    if isinstance(array, tuple) and all(isinstance(item, int) for item in array):
        return repr(array)
    if isinstance(array, tuple):
        return "(" + "".join(f"{_array_literal(item)}, " for item in array) + ")"
    # tolist() then repr() round-trips float32/float16/bfloat16 exactly; -0.0 keeps its sign.
    return f"np.array({array.tolist()!r}, dtype={_dtype_literal(array.dtype)})"


def _dtype_literal(dtype: np.dtype) -> str:
    """numpy has no bfloat16 of its own: ml_dtypes (a dependency of tvm) provides it."""
    return "ml_dtypes.bfloat16" if dtype.name == "bfloat16" else repr(dtype.name)


def _const_literal(array: np.ndarray) -> str:
    # The dtype is spelled out: TVMScript parses R.const of an int64 array as int32 otherwise.
    return f"R.const({_array_literal(array)}, {array.dtype.name!r})"


def module_script(mod: tvm.IRModule) -> str:
    """TVMScript of ``mod`` that parses on its own: constants inline, no metadata section."""
    constants = round_trip.constants_in_print_order(mod)
    text = mod.script()
    text = re.sub(r'metadata\["ir\.GenericConst"\]\[(\d+)\]',
                  lambda m: _const_literal(constants[int(m.group(1))].value.numpy()), text)
    for special in ("nan", "inf", "-inf"):
        text = text.replace(f'R.const("{special}"', f'R.const(float("{special}")')
    text = re.sub(r"^ *def \w+\(.*$", _quoted_prim_dims, text, flags=re.MULTILINE)
    lines = [line for line in text.splitlines()  # the script imports what it needs itself
             if not line.startswith(("# from tvm.", "# from typing")) and "Metadata omitted" not in line]
    return tvmscript_dims("\n".join(lines).strip() + "\n")


def tvmscript_dims(text: str) -> str:
    """Symbolic dims as TVMScript is written by hand: TVM 0.27 prints ``n = TypeVar("n")`` above
    the module and ``R.Tensor((n, 3))``; written, a signature names them as strings
    (``R.Tensor(("n", 3))``) and a body that uses them declares them first (``n = T.int64()``).
    Both parse to the same module; a text without TypeVar is returned as it is. A TIR kernel's
    signature (an imported module's ``call_tir``) keeps its TypeVar: written as a string, the
    parser makes its buffer's dim int32, another kernel."""
    names = re.findall(r'^(\w+) = TypeVar\("\w+"\)$', text, flags=re.MULTILINE)
    if not names:
        return text
    lines = text.splitlines()
    kernels = {i for i, line in enumerate(lines) if re.match(r" *def \w+\(", line) and i and "@T.prim_func" in lines[i - 1]}
    kept = {n for i in kernels for n in names if re.search(rf'(?<![\w".]){n}\b', lines[i])}
    lines = [line for line in lines if not re.fullmatch(r'\w+ = TypeVar\("\w+"\)', line)
             or line.split(" ")[0] in kept]
    for i, line in enumerate(lines):
        if not re.match(r" *def \w+\(", line) or (i and "@T.prim_func" in lines[i - 1]):
            continue
        used = [n for n in names if re.search(rf'(?<![\w".]){n}\b(?!\s*:)', line)]
        for name in used:
            line = re.sub(rf'(?<![\w".]){name}\b(?!\s*:)', f'"{name}"', line)
        later = "\n".join(lines[i + 1:])
        indent = " " * (len(line) - len(line.lstrip()) + 4)
        declared = [f"{indent}{n} = T.int64()" for n in used if re.search(rf'(?<![\w".]){n}\b', later)]
        lines[i] = "\n".join([line, *declared])
    return "\n".join(lines) + "\n"


def _quoted_prim_dims(match: re.Match) -> str:
    """A signature with an R.Prim parameter ``n: T.int64`` prints the tensors it types as
    ``R.Tensor((n, 3))``, which the parser rejects (n is no Python name there; TVM 0.27); the
    string form ``R.Tensor(("n", 3))`` parses to the same module."""
    line = match.group(0)
    for name in re.findall(r"\b(\w+): T\.int64\b", line):
        line = re.sub(rf'(?<![\w".]){name}\b(?!\s*:)', f'"{name}"', line)
    return line


def module_text(program: Program, passes: Sequence[PassSpec]) -> str:
    """The module a finding's passes ran on, as TVMScript: with Gradient, the program's float64
    twin (passfuzz.judge.gradient)."""
    return module_script(build_module(gradient.promote(program) if gradient.involved(passes) else program))


# What a script copies, per need: (name, source). Only tvm, numpy and the standard library are
# imported by what is copied.
def _source(*functions) -> str:
    return "\n\n\n".join(inspect.getsource(f).rstrip() for f in functions)


# A build other than the plain one is compile_with and the steps its target and build take
# (standalone.steps_for): a script copies those steps alone, each with what it calls.
_COMPILE_WITH = _source(standalone.kind_of, standalone.compile_with)


def _steps_sources(steps: dict, build: dict) -> list[str]:
    """The source of each of ``steps`` (as standalone.steps_for gives them), each after what it calls."""
    needs = {standalone.target_options: lambda: [_source(standalone.target_config)],
             standalone.dlight_pipeline: lambda: [_DLIGHT_RULES],
             standalone.scheduled_pipeline: lambda: [_schedules_for(build["schedule_steps"]),
                                                     _source(standalone.followed_by)],
             standalone.tuned_pipeline: lambda: [_TUNING_RECORDS, _source(standalone.followed_by)]}
    sources = []
    for step in (step for phase in steps.values() for step in phase):
        sources += needs.get(step, list)() + [_source(step)]
    return sources


def _steps_literal(steps: dict) -> str:
    """standalone.steps_for's dict as Python source: the phases and their steps by name."""
    return "{" + ", ".join(f"{phase!r}: [{', '.join(step.__name__ for step in chosen)}]"
                           for phase, chosen in steps.items()) + "}"


def _schedules_for(steps) -> str:
    """What applies a --build schedule=random finding's steps (data in the build; the step
    scheduled_pipeline runs it after the Relax pipeline): passfuzz.portable.schedules with only the
    primitives the steps name, each its real function (whatever the table holds: a test may plant
    a wrong one), and their table."""
    named = {step[0] for step in steps}
    names = [name for name in schedules.PRIMITIVES if name in named]
    primitives = [schedules.OWN_PRIMITIVES[name] for name in names]
    needs_loop = any("loop_at(" in inspect.getsource(f) for f in primitives)
    constants = [f"CHOICES = {schedules.CHOICES}"]
    if "split" in named:
        constants.append(f"SPLIT_FACTORS = {schedules.SPLIT_FACTORS!r}")
    table = "PRIMITIVES = {" + ", ".join(f"{name!r}: {f.__name__}" for name, f in zip(names, primitives)) + "}"
    return "\n\n\n".join(["\n".join(constants), _source(*([schedules.loop_at] if needs_loop else []), *primitives),
                           table, _source(schedules.root_blocks, schedules.schedulable, schedules.apply_step,
                                          schedules.schedule_of, schedules.schedule_function,
                                          schedules.steps_per_function, schedules.apply_schedule,
                                          schedules.schedule_pass)])


def below_imports(source: str) -> str:
    """A portable module's code after its last top-level import (its docstring and imports left
    out: a script imports what it needs itself), found in its syntax tree, so the order and the
    form of the imports do not matter."""
    tree = ast.parse(source)
    last = max((node.end_lineno for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))), default=0)
    return "".join(source.splitlines(keepends=True)[last:]).strip()


# What a --build tune=N finding's tuning chose is data in its build; this applies it with MetaSchedule's
# database pass (passfuzz.portable.tuning_records below its imports, which the script's imports include).
_TUNING_RECORDS = below_imports(inspect.getsource(tuning_records))
# The dlight rules a --build dlight=random finding drew are data in its build (passfuzz.portable.dlight_rules).
_DLIGHT_RULES = below_imports(inspect.getsource(dlight_rules))
_TIMING = below_imports(inspect.getsource(timing))
# A script's exit status when it cannot run at all: what ``git bisect run`` skips.
CANNOT_RUN = 125
EXIT_STATUSES = (f"Exit status: 1 reproduces, 0 fixed, {CANNOT_RUN} cannot run (an error outside the call under test, "
                 "or another kind of failure).")
# An uncaught exception (an import, an API TVM renamed, a step before the call under test) is no
# verdict: the script exits CANNOT_RUN after Python's traceback, not 1.
_CANNOT_RUN_HOOK = (f"sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit({CANNOT_RUN}))"
                    "  # cannot run")
# Importing tvm wraps the hook in one that, for a DiagnosticError (TVMScript the parser rejects),
# prints a note instead of calling it: Python then exits 1. Set again after the imports.
_CANNOT_RUN_HOOK_AGAIN = _CANNOT_RUN_HOOK.replace("# cannot run", "# again: import tvm wrapped it")


def _in_fstring(text: str) -> str:
    """``text`` (a pass with a dict argument, ``ConvertLayout({'relax.nn.conv2d': [...]})``) inside a
    printed f-string: its braces doubled, else the script fails on them (exit 125, not 1)."""
    return text.replace("{", "{{").replace("}", "}}")


# Pipeline scripts: how a child re-running the script ended.
_FATE_PREFIX = {"pipeline-crash": "died of", "pipeline-hang": "no result", "pipeline-error": "exited with status"}
# Kinds about the module itself, not its run on a target.
_MODULE_KINDS = ("print-round-trip", "json-round-trip", "nondeterministic-pass", "missed-rewrite", "not-idempotent")


class _Script:
    """A script under construction: helpers copied, lines of glue, imports derived from both."""

    def __init__(self, finding: Finding, title: str):
        self.finding, self.title = finding, title
        self.helpers: list[str] = []
        self.lines: list[str] = []
        self.custom_imports: list[str] = []
        self.tvm_imports: list[str] = []  # TVM modules a pass's arguments come from (PassSpec.tvm_imports)

    def need(self, source: str) -> None:
        if source not in self.helpers:
            self.helpers.append(source)

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def verdict(self, what: str, *, first_line: bool = True) -> None:
        """Print "BUG REPRODUCES (kind): what" and the error's first (or last) line, and exit 1
        (inside an ``except ... as error`` block)."""
        f = "f" if "{" in what else ""
        if first_line and "Compilation error:" in self.finding.message:
            # a C compiler's failure: its first line says only that; the run named it by gcc's diagnostic
            self.need(inspect.getsource(standalone.headline))
            said = "headline(str(error))"
        else:
            said = f"*str(error).strip().splitlines(){'[:1]' if first_line else '[-1:]'}"
        self.add(f'    print({f}"BUG REPRODUCES ({self.finding.kind}): {what}", {said})',
                 "    sys.exit(1)")

    def changed(self, now: str, what: str) -> None:
        """Print "changed (``now``, not kind): what" and the error, and exit CANNOT_RUN (inside an
        ``except ... as error`` block): a failure of another kind than the recorded one."""
        f = "f" if "{" in what else ""
        self.add(f'    print({f}"changed ({now}, not {self.finding.kind}):{" " + what if what else ""}",'
                 ' " ".join(str(error).split()))',
                 f"    sys.exit({CANNOT_RUN})")

    def text(self, module: str) -> str:
        message = self.finding.message.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
        blocks = self.helpers + [module, "\n".join(self.lines)]
        body = "\n\n" + "\n\n\n".join(blocks) + "\n"
        imports = self._imports(body)
        extra = requirements(imports)
        needs = f"Needs tvm and numpy, and {', '.join(extra)}.\n" if extra else ""
        header = (f'"""passfuzz {self.finding.kind}-{self.finding.fingerprint}: {self.finding.kind} {self.title}.\n\n'
                  f"{message}\n{needs}{EXIT_STATUSES}\n\"\"\"\n")
        return header + imports + body

    def _imports(self, code: str) -> str:
        def uses(name: str) -> bool:
            return re.search(rf"(?<![\w.]){re.escape(name)}[.(]", code) is not None
        stdlib = [f"import {m}" for m in ("importlib", "math", "os", "pickle", "re", "shutil", "signal", "subprocess", "sys",
                                          "tempfile", "time", "typing") if m == "sys" or uses(m)]
        if "TypeVar(" in code:
            # A TIR kernel's symbolic buffer shape, as 0.27 prints it and parses it exactly (written
            # as a string, the parser makes it int32); TVM's parser, not Python, reads the annotations.
            stdlib = ["from __future__ import annotations", "", *stdlib, "from typing import TypeVar"]
        third = [line for name, line in (("ml_dtypes", "import ml_dtypes"), ("np", "import numpy as np"),
                                         ("tvm", "import tvm"), ("relax", "from tvm import relax"),
                                         ("s_tir", "from tvm import s_tir"),
                                         ("ms", "from tvm.s_tir import meta_schedule as ms"),
                                         ("Trace", "from tvm.s_tir.schedule import Trace"),
                                         ("dl", "from tvm.s_tir import dlight as dl"),
                                         ("I", "from tvm.script import ir as I"),
                                         ("R", "from tvm.script import relax as R"),
                                         ("T", "from tvm.script import tirx as T")) if uses(name)]
        text = "\n".join(stdlib) + "\n\n" + _CANNOT_RUN_HOOK + "\n\n" \
            + "\n".join(third + list(dict.fromkeys(self.tvm_imports))) + "\n\n" + _CANNOT_RUN_HOOK_AGAIN + "\n"
        if self.custom_imports:  # a pass of the user's own, found from the current directory as passfuzz did
            text += '\nsys.path.insert(0, "")\n' + "\n".join(sorted(set(self.custom_imports))) + "\n"
        return text


def requirements(script: str) -> list[str]:
    """What a script (or its imports) imports beyond tvm, numpy and the standard library: its
    top-level modules, in the order it imports them (ml_dtypes for bfloat16 values, a user's
    own pass module)."""
    found: list[str] = []
    for node in ast.parse(script).body:
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
        for root in (name.split(".")[0] for name in names):
            if root not in ("tvm", "numpy", *sys.stdlib_module_names, *found):
                found.append(root)
    return found


def _literal(values) -> str:
    """A list of arrays as Python source: on one line when it is short."""
    items = [_array_literal(a) for a in values]
    if sum(len(item) + 2 for item in items) <= 90:
        return f"[{', '.join(items)}]"
    return "[\n" + "".join(f"    {item},\n" for item in items) + "]"


def render_script(program: Program, passes: Sequence[PassSpec], finding: Finding, mod_script: str,
                  targets: Sequence[str], timeout: float, optimized: Outcome | None,
                  build: Build = PLAIN_BUILD, speed: SpeedCheck | None = None) -> str:
    """The reproducer of ``finding``. ``targets``: where it shows (both, for a target mismatch);
    ``optimized``: the optimized side's Outcome, when one ran (its adapter says how main was
    called); ``timeout``: how long a crash or hang script waits for its child; ``speed``: how
    a slowdown was judged (its threshold)."""
    kind, stage = finding.kind, finding.stage
    title = describe([p.text for p in passes], build) or "in the unoptimized module"
    if kind == "target-mismatch":
        title = f"between {' and '.join(targets[:2])} {title}"
    elif kind not in ("reference-mismatch", *_MODULE_KINDS):
        title += f" on {targets[0]}"
    script = _Script(finding, title)
    script.custom_imports = [p.python_import for p in passes if p.python_import]
    script.tvm_imports = [line for p in passes for line in p.tvm_imports]
    adapter = optimized.adapter if optimized is not None and optimized.adapter is not None else PLAIN
    closures = optimized.closures if optimized is not None else False
    if gradient.involved(passes):  # the float64 twin ran; its gradients are checked, not main's outputs
        twin = gradient.promote(program)
        sides = _Sides(twin, passes, targets, build, ADJOINT, False)
    else:
        sides = _Sides(program, passes, targets, build, adapter, closures)
    kernel = _scheduled_kernel(program, passes, finding, targets[0], build, adapter, timeout)
    if kernel is not None:  # the schedule is at fault: its kernel alone, no Relax
        script.custom_imports = []
        _kernel(script, kernel, targets[0], _tolerances(program, passes, 1.0))
        return script.text(kernel.script.rstrip())
    if kind in ("pass-error", "ill-formed"):
        _pass_failure(script, sides, kind)
    elif kind in ("crash", "hang"):
        _crash(script, sides, stage, timeout)
    elif kind in PIPELINE_KINDS.values():
        _pipeline(script, sides, program, timeout)
    elif kind == "reference-mismatch":
        _reference(script, sides, program)
    elif kind == "target-mismatch":
        _targets(script, sides, targets, timeout)
    elif kind == "slowdown":
        _slowdown(script, sides, speed or SpeedCheck())
    elif kind == "print-round-trip":
        _print_round_trip(script, sides)
    elif kind == "json-round-trip":
        _json_round_trip(script, sides, timeout)
    elif kind == "nondeterministic-pass":
        _repeated_passes(script, sides)
        mod_script = _in_function("fresh_module", mod_script)
    elif kind == "nondeterministic-output":
        _rerun(script, sides)
    elif kind == "missed-rewrite":
        _missed_rewrite(script, sides)
    elif kind == "not-idempotent":
        _not_idempotent(script, sides)
    elif kind == EMI_MISMATCH:
        _modulo_inputs(script, sides)
        mod_script = mod_script.rstrip() + "\n\n\n" + _pruned_module(program)
    elif gradient.involved(passes):
        _gradient(script, sides, gradient.noise(program))
    else:
        _differential(script, sides, _tolerances(program, passes, 1.0))
    return script.text(mod_script.rstrip())


class _Sides:
    """The glue that builds, compiles and calls one side of a finding."""

    def __init__(self, program: Program, passes: Sequence[PassSpec], targets: Sequence[str], build: Build,
                 adapter: Adapter, closures: bool):
        """``targets``: the first is where the finding shows; a target mismatch compares the first two."""
        self.program, self.passes, self.build = program, passes, build
        self.target, self.targets = targets[0], list(targets[:2])
        self.adapter, self.closures = adapter, closures
        self.arguments = program.arguments()

    def pass_lines(self, passes: Sequence[PassSpec] | None = None, keep_original: bool = False) -> list[str]:
        """``mod = P(...)`` per pass; ``keep_original``: on a copy of Module, which is compiled too."""
        passes = self.passes if passes is None else passes
        lines = [f"mod = {p.for_program(self.program).python_expr()}({'mod' if i else 'Module'})"
                 for i, p in enumerate(passes)] or ["mod = Module"]
        if keep_original:  # a pass, or the build's pipeline, may update its input in place
            lines[0] = lines[0].replace("(Module)", "(Module.clone())").replace("= Module", "= Module.clone()") + \
                "  # passes may update their input in place"
        return lines

    def arguments_lines(self) -> list[str]:
        return [f"arguments = {_literal(self.arguments)}"]

    def compile_lines(self, script: _Script, module: str, optimized: bool,
                      target: str | None = None) -> tuple[list[str], str, str]:
        """(lines that compile ``module`` into ``executable`` as passfuzz did, the device, how an
        argument ``a`` is converted for it: a caller that converts calls ``converting``).
        ``target``: an expression standing for the target (a target mismatch runs one script per
        target)."""
        build = self.build.as_dict() if optimized else {}
        lift = self.closures if optimized else standalone.has_closures(build_module(self.program))
        tuples = any(not isinstance(a, np.ndarray) for a in self.arguments)  # not all tensors
        if target is None and standalone.is_plain(self.target, build):
            compiled = f"relax.transform.LambdaLift()({module})" if lift else module
            return ([f"executable = tvm.compile({compiled}, {self.target!r})"], "tvm.cpu()",
                    "to_tvm(a)" if tuples else "tvm.runtime.tensor(a)")
        every = {name: standalone.steps_for(name, build, lift) for name in ([self.target] if target is None
                                                                            else self.targets)}
        script.need(_COMPILE_WITH)
        for source in (source for steps in every.values() for source in _steps_sources(steps, build)):
            script.need(source)
        steps = _steps_literal(every[self.target]) if target is None else \
            "{" + ", ".join(f"{name!r}: {_steps_literal(chosen)}" for name, chosen in every.items()) + f"}}[{target}]"
        return [f"executable, device = compile_with({module}, {target or repr(self.target)}, {build!r}, {steps})"], \
            "device", "to_tvm(a, device)" if tuples else "tvm.runtime.tensor(a, device)"

    @staticmethod
    def converting(script: _Script, convert: str) -> str:
        """``convert`` (as compile_lines gives it), with the helper it calls copied."""
        if convert.startswith("to_tvm("):
            script.need(_source(standalone.to_tvm))
        return convert

    def run_lines(self, script: _Script, module: str, optimized: bool, result: str,
                  target: str | None = None) -> list[str]:
        """Compile ``module`` and call it as passfuzz did, leaving its outputs (numpy) in ``result``;
        the call into ``result`` is the last line but one."""
        compiled, called = self.run_parts(script, module, optimized, result, target)
        return compiled + called

    def run_parts(self, script: _Script, module: str, optimized: bool, result: str,
                  target: str | None = None) -> tuple[list[str], list[str]]:
        """``run_lines`` in two: (the lines that compile, the lines that call), so that a script
        catches a failure in the one its finding is about."""
        adapter = self.adapter if optimized else PLAIN
        lines, device, convert = self.compile_lines(script, module, optimized, target)
        script.need(_source(standalone.numpy_outputs))
        before, call = self._call(script, adapter)
        setter = "setter" in (adapter.slots or ())
        *call, last = call
        returned = "outputs.in_order()" if setter else last.removeprefix("result = ")
        if setter:
            call.append(last)
        executable, lines = _inlined(lines) if not optimized else ("executable", lines)
        return lines, [f"args = [{self.converting(script, convert)} for a in arguments]"] + before + \
            [f"vm = relax.VirtualMachine({executable}, {device})"] + call + [f"{result} = numpy_outputs({returned})"]

    def _call(self, script: _Script, adapter: Adapter) -> tuple[list[str], list[str]]:
        """(lines before the VM is created, lines that call it into ``result``): adapter.call as glue."""
        if adapter.adjoint:
            return [], ['result = vm["main_adjoint"](*args)']
        if adapter.transform is None and adapter.slots is None and not adapter.dropped:
            return [], ['result = vm["main"](*args)']
        n = adapter.input_count(self.program, len(self.arguments))
        before, call = [], []
        if adapter.dropped:  # a pass bound these R.Prim parameters' variables: main no longer takes them
            before.append(f"args = [a for k, a in enumerate(args) if k not in {adapter.dropped!r}]")
        weights = f"args[{n}:]"
        if adapter.lazy_transform:  # LazyTransformParams: weights through get_item, results through set_item
            script.need(_source(conventions.copy_value, conventions.Collected, conventions.lazy_weights))
            before.append(f"transformed = lazy_weights(args[{n}:])")
            call += [f'vm[{adapter.transform!r}]()', "weights = transformed.in_order()"]
            weights = "weights"
        elif adapter.transform:  # LiftTransformParams: the weights as one tuple (nested per BundleModelParams)
            nested = "[" * adapter.transform_wrap + f"args[{n}:]" + "]" * adapter.transform_wrap
            call.append(f'weights = vm[{adapter.transform!r}]({nested})')
            weights = "weights"
        if adapter.slots is None:
            call.append(f'result = vm["main"](*args[:{n}], *{weights})')
            return before, call
        slots, tensors = [], 0
        for slot in adapter.slots:
            if slot == "tensor":
                slots.append(f"{weights}[{tensors}]" if weights == "weights" else f"args[{n + tensors}]")
                tensors += 1
            elif slot == "tuple":  # BundleModelParams
                slots.append("[" * adapter.tuple_wrap + weights + "]" * adapter.tuple_wrap)
            elif slot == "getter":  # LazyGetInput
                script.need(_source(conventions.param_getter))
                slots.append(f"param_getter({weights})")
            else:  # LazySetOutput: main hands its outputs to fset_output
                script.need(_source(conventions.copy_value, conventions.Collected))
                call.append("outputs = Collected()")
                slots.append("outputs.put")
        call.append(f'result = vm["main"](*args[:{n}], {", ".join(slots)})')
        return before, call


def _inlined(compiled: list[str]) -> tuple[str, list[str]]:
    """(the executable, the lines left): ``tvm.compile(...)`` itself when that is the one line, for
    a side no compile error is expected of; else ``executable`` after the lines."""
    if compiled[0].startswith("executable = "):
        return compiled[0].removeprefix("executable = "), []
    return "executable", compiled


def _tolerances(program: Program, passes: Sequence[PassSpec], slack: float) -> list[tuple[float, float] | None]:
    """Per output tensor, the (rtol, atol) the oracle compares it with; None: exactly."""
    infos = analyse(program, check_values=False)
    rounding = rounding_dtypes(program, infos)
    return [tolerance(rounding[index], info.magnitude, passes, slack) if is_float(info.dtype) else None
            for index, info in output_leaves(program, infos)]


def _assertions(tolerances: list, dtypes: list[str]) -> list[str]:
    """Lines asserting ``actual`` equals ``expected`` as oracle.compare_arrays judges: count, dtype
    and shape, then integers exactly and floats by np.testing.assert_allclose in float64."""
    count = len(tolerances)
    lines = [f'assert len(actual) == {count}, f"{count} output(s) expected, {{len(actual)}} returned"']
    if count == 1:
        lines.append('assert (actual[0].dtype, actual[0].shape) == (expected[0].dtype, expected[0].shape), '
                     'f"{expected[0].dtype}{expected[0].shape} became {actual[0].dtype}{actual[0].shape}"')
    else:
        lines += ["for got, want in zip(actual, expected):",
                  '    assert (got.dtype, got.shape) == (want.dtype, want.shape), '
                  'f"{want.dtype}{want.shape} became {got.dtype}{got.shape}"']
    for i, (limits, dtype) in enumerate(zip(tolerances, dtypes)):
        if limits is None:
            lines.append(f"np.testing.assert_array_equal(actual[{i}], expected[{i}], err_msg='output {i}')")
        else:
            f64 = "" if dtype == "float64" else '.astype("float64")'
            lines.append(f"np.testing.assert_allclose(actual[{i}]{f64}, expected[{i}]{f64}, rtol={limits[0]!r}, "
                         f"atol={limits[1]!r}, equal_nan=True, err_msg='output {i}')")
    return lines


def _comparison(script: _Script, tolerances: list, dtypes: list[str], what: str) -> None:
    """``actual`` against ``expected`` (``_assertions``); a difference is the bug, or for a finding
    of another kind (a compile or run error) a change."""
    script.add("try:", *[f"    {line}" for line in _assertions(tolerances, dtypes)], "except AssertionError as error:")
    if script.finding.kind in ("compile-error", "runtime-error"):
        script.changed("wrong-result", what)
        return
    script.add(f'    print("BUG REPRODUCES ({script.finding.kind}):{(" " + what) if what else ""}",'
               ' " ".join(str(error).split()))',
               "    sys.exit(1)")


def _under_test(script: _Script, parts: Sequence[list[str]], kinds: Sequence[str]) -> None:
    """Each of ``parts`` (a side's compile lines, then its call lines) as is, but the one of the
    finding's kind (``kinds``: the kind each part fails with) inside ``try``: its failure is the
    bug; any other step's error is no verdict (the script's exit hook)."""
    for part, kind in zip(parts, kinds):
        if kind != script.finding.kind:
            script.add(*part)
            continue
        script.add("try:", *[f"    {line}" for line in part], "except Exception as error:")
        script.verdict("{type(error).__name__}:")


def _output_dtypes(program: Program) -> list[str]:
    return [info.dtype for _, info in output_leaves(program, analyse(program, check_values=False))]


def _scheduled_kernel(program: Program, passes: Sequence[PassSpec], finding: Finding, target: str, build: Build,
                      adapter: Adapter, timeout: float) -> Kernel | None:
    """The kernel of a finding its schedule is blamed for (``finding.schedule`` holds the steps up
    to the blamed one) when the build is only the schedule on a CPU target, and the finding a
    compile or run error or a wrong result; else None (the script then runs the whole module)."""
    if not finding.schedule or finding.kind not in ("compile-error", "runtime-error", "wrong-result") \
            or not standalone.is_plain(target) or set(build.as_dict()) - {"schedule", "schedule_steps"}:
        return None
    return scheduled_kernel(program, passes, finding.schedule, target, adapter, timeout)


def _kernel(script: _Script, kernel: Kernel, target: str, tolerances: list) -> None:
    """The kernel's schedule (TVM's own calls, from its trace), its compile or call inside ``try``
    for a compile or run error, then the unscheduled kernel, and its outputs compared."""
    name = kernel.name
    arguments = [f"np.zeros({a.shape!r}, {_dtype_literal(a.dtype)})" if k in kernel.outputs else _array_literal(a)
                 for k, a in enumerate(kernel.arguments)]
    listed = f"[{', '.join(arguments)}]" if sum(len(a) + 2 for a in arguments) <= 90 else \
        "[\n" + "".join(f"    {a},\n" for a in arguments) + "]"
    script.add(f"sch = tvm.s_tir.Schedule({name})", *kernel.trace, f"arguments = {listed}")
    _under_test(script, ([f"scheduled = tvm.compile(sch.mod, {target!r})"],
                         ["actual = [tvm.runtime.tensor(a) for a in arguments]", "scheduled(*actual)"]),
                ("compile-error", "runtime-error"))
    script.add("expected = [tvm.runtime.tensor(a) for a in arguments]", f"tvm.compile({name}, {target!r})(*expected)")
    limits = [limit for limit in tolerances if limit is not None]
    rtol, atol = (max(r for r, _ in limits), max(a for _, a in limits)) if limits else (0.0, 0.0)
    checks = []
    for k in kernel.outputs:
        pair, what = f"actual[{k}].numpy(), expected[{k}].numpy()", f"err_msg='buffer {k}'"
        if kernel.arguments[k].dtype.kind in "iub":
            checks.append(f"np.testing.assert_array_equal({pair}, {what})")
        else:  # the finding's tolerance (the largest of its outputs'), in float64
            pair = f'actual[{k}].numpy().astype("float64"), expected[{k}].numpy().astype("float64")'
            checks.append(f"np.testing.assert_allclose({pair}, rtol={rtol!r}, atol={atol!r}, equal_nan=True, {what})")
    script.add("try:", *[f"    {line}" for line in checks], "except AssertionError as error:")
    what = f"the scheduled {name} differs from the unscheduled one:"
    if script.finding.kind == "wrong-result":
        script.add(f'    print("BUG REPRODUCES (wrong-result): {what}", " ".join(str(error).split()))', "    sys.exit(1)")
    else:
        script.changed("wrong-result", what)
    script.add(f'print("fixed: the scheduled {name} compiles, runs and matches the unscheduled one")')


def _pass_failure(script: _Script, sides: _Sides, kind: str) -> None:
    *earlier, last = sides.pass_lines()
    name = sides.passes[-1].text
    if kind == "pass-error":
        script.add(*earlier, "try:", f"    {last}", "except Exception as error:")
        script.verdict(f"{_in_fstring(name)} raised {{type(error).__name__}}:")
        script.add(f'print("fixed: {name} no longer raises")')
    else:
        script.add(*earlier, last, "try:", "    relax.analysis.well_formed(mod)  # raises on the first violation",
                   "except Exception as error:")
        script.verdict(f"the module is ill-formed after {_in_fstring(name)}:", first_line=False)
        script.add(f'print("fixed: the module is well formed after {name}")')


def _crash(script: _Script, sides: _Sides, stage: str, timeout: float) -> None:
    """What runs before the crashing call runs here, the call itself in a forked child whose end
    this process reads: a signal, or SIGALRM after the time passfuzz gave the side (a hang)."""
    kind = script.finding.kind
    head, _, name = stage.partition(":")
    passes = sides.passes
    if head == "pass":  # the passes up to the one that crashed, that one in the child
        ran = script.finding.passes  # up to the failing run: P crashing on its own output is [P, P]
        passes = passes[:len(ran) if ran and ran[-1].text == name
                        else next(i for i, p in enumerate(passes) if p.text == name) + 1]
    before = sides.pass_lines(passes)
    if head == "pass":
        before, crashing = before[:-1], before[-1:]
    elif head == "well-formed":
        crashing = ["relax.analysis.well_formed(mod)"]
    elif head == "compile":
        crashing = sides.compile_lines(script, "mod", True)[0]
    else:  # run: compiled here, called in the child
        compiled, crashing = sides.run_parts(script, "mod", True, "actual")
        before = sides.arguments_lines() + before + compiled
    seconds = int(max(1, timeout))
    reproduces = '== "SIGALRM"' if kind == "hang" else f'not in (0, {CANNOT_RUN}, "SIGALRM")'
    fate = f"no result after {seconds} s" if kind == "hang" else "died of {ended}"
    script.add(*before,
               "if os.fork() == 0:  # a child makes the call; this process reads how it ends",
               f"    signal.alarm({seconds})  # the time passfuzz gave the side",
               *[f"    {line}" for line in crashing],
               "    os._exit(0)",
               "_, status = os.wait()",
               "ended = signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)",
               f"if ended {reproduces}:",
               f'    print(f"BUG REPRODUCES ({kind}): {_in_fstring(stage)}: {fate}")',
               "    sys.exit(1)",
               "if ended != 0:  # the child's own traceback says what failed instead",
               f'    print(f"changed (not a {kind}): the call at {_in_fstring(stage)} ended with {{ended}}")',
               f"    sys.exit({CANNOT_RUN})",
               f'print("fixed: no {kind} at {stage}")')


def _differential(script: _Script, sides: _Sides, tolerances: list) -> None:
    """The optimized module first (compiling the original first can hide a bug), its compile or
    its call inside ``try`` for a compile or run error; then the original, and the comparison."""
    script.add(*sides.arguments_lines(), *sides.pass_lines(keep_original=True))
    _under_test(script, sides.run_parts(script, "mod", True, "actual"), ("compile-error", "runtime-error"))
    script.add(*sides.run_lines(script, "Module", False, "expected"))
    _comparison(script, tolerances, _output_dtypes(sides.program), "")
    script.add('print("fixed: the optimized module compiles, runs and matches the original")')


def _gradient(script: _Script, sides: _Sides, noise: float) -> None:
    """``main_adjoint``'s loss and gradients against the values the oracle held them to, inline:
    numpy's loss and the central differences of numpy's loss, with the error allowed each
    (passfuzz.portable.finite_differences.expected_gradients, on the float64 twin)."""
    loss, loss_allowed, expected, allowed = finite_differences.expected_gradients(
        gradient.loss_function(sides.program), sides.arguments, noise)
    script.add(*sides.arguments_lines(), *sides.pass_lines(keep_original=True))
    _under_test(script, sides.run_parts(script, "mod", True, "actual"), ("compile-error", "runtime-error"))
    script.add("loss, *gradients = actual",
               f"expected_loss, loss_error = {loss!r}, {loss_allowed!r}  # numpy's loss, in float64",
               f"expected = {_literal(expected)}  # central differences of numpy's loss, step "
               f"{finite_differences.STEP:g}",
               f"allowed = {_literal([np.asarray(a) for a in allowed])}  # their truncation and rounding error",
               "try:",
               '    assert abs(loss - expected_loss) <= loss_error, f"loss {float(loss)!r}, expected {expected_loss!r}"',
               '    assert len(gradients) == len(expected), f"{len(gradients)} gradients for {len(expected)} parameters"',
               "    for k, (got, want, error) in enumerate(zip(gradients, expected, allowed)):",
               '        assert got.shape == want.shape and (abs(got - want) <= error).all(), \\',
               '            f"gradient {k}: got {got.tolist()}, expected {want.tolist()} (allowed error {error.max():.3g})"',
               "except AssertionError as error:")
    if script.finding.kind in ("compile-error", "runtime-error"):
        script.changed("wrong-result", "main_adjoint:")
    else:
        script.add(f'    print("BUG REPRODUCES ({script.finding.kind}): main_adjoint:", error)', "    sys.exit(1)")
    script.add('print("fixed: main_adjoint\'s loss and gradients match central differences of numpy\'s loss")')


def _slowdown(script: _Script, sides: _Sides, speed: SpeedCheck) -> None:
    """Both modules compiled and loaded in this one process, then timed interleaved by the
    copied passfuzz.portable.timing, which prints both medians, the ratio and its interval."""
    script.need(_TIMING)
    original, device, convert = sides.compile_lines(script, "Module", False)
    optimized, optimized_device, _ = sides.compile_lines(script, "mod", True)
    device = "device" if "device" in (device, optimized_device) else device
    settings = ", ".join(f"{name}={value!r}" for name, value in speed.arguments().items())
    dropped = sides.adapter.dropped
    script.add(*sides.arguments_lines(), *sides.pass_lines(keep_original=True),
               *[re.sub(r"\bexecutable\b", "original", line) for line in original],
               *[re.sub(r"\bexecutable\b", "optimized", line) for line in optimized],
               *([] if device == "device" else [f"device = {device}"]),
               f"args = [{sides.converting(script, convert)} for a in arguments]",
               *([f"optimized_args = [a for k, a in enumerate(args) if k not in {dropped!r}]  # {sides.passes[-1].text} "
                  "bound them"] if dropped else []),
               "original_vm, optimized_vm = relax.VirtualMachine(original, device), "
               "relax.VirtualMachine(optimized, device)",
               "run_original = lambda: (original_vm[\"main\"](*args), device.sync())",
               f"run_optimized = lambda: (optimized_vm[\"main\"](*{'optimized_args' if dropped else 'args'}), "
               "device.sync())",
               f"timed = compare_speed(run_original, run_optimized, {settings})",
               "if timed[\"slower\"]:",
               f'    print("BUG REPRODUCES ({script.finding.kind}):", speed_line(timed))',
               "    sys.exit(1)",
               'print("fixed: not slower beyond the threshold:", speed_line(timed))')


def _reference(script: _Script, sides: _Sides, program: Program) -> None:
    script.add(f"expected = {_literal(evaluate(program))}  # numpy's outputs", *sides.arguments_lines(),
               *sides.run_lines(script, "Module", False, "actual"))
    _comparison(script, _tolerances(program, (), REFERENCE_SLACK), _output_dtypes(program),
                "the unoptimized module differs from numpy:")
    script.add('print("fixed: the unoptimized module matches numpy")')


def _pipeline(script: _Script, sides: _Sides, program: Program, timeout: float) -> None:
    """A child runs the plain build and call (``tvm.compile``) and fails; then the same build with
    the blamed pipeline pass left out runs and matches numpy, which names that pass."""
    kind, stage, blamed = script.finding.kind, script.finding.stage, script.finding.pipeline_pass
    prefix = _FATE_PREFIX[kind]
    script.need(_source(standalone.run_child))
    run = sides.run_lines(script, "Module", False, "actual")
    script.add(*sides.arguments_lines(),
               'if sys.argv[1:] == ["child"]:  # tvm.compile as is: the failing build and call',
               f"    signal.alarm({int(max(1, timeout))})  # the child's time limit, as passfuzz's for one side",
               *[f"    {line}" for line in run], "    sys.exit(0)",
               f'fate = run_child([sys.executable, __file__, "child"], {int(max(1, timeout))})',
               f"if not fate.startswith({prefix!r}):",
               f'    print(f"fixed: tvm.compile\'s module no longer fails at {_in_fstring(stage)} ({{fate or \'it exits 0\'}})")',
               "    sys.exit(0)",
               f"with tvm.transform.PassContext(disabled_pass=[{blamed!r}]):  # the pipeline without {blamed}",
               *[f"    {line}" for line in run],
               f"expected = {_literal(evaluate(program))}  # numpy's outputs",
               *_assertions(_tolerances(program, (), REFERENCE_SLACK), _output_dtypes(program)),
               f'print(f"BUG REPRODUCES ({kind}): tvm.compile\'s module fails at {_in_fstring(stage)}: {{fate}}; '
               f'without {_in_fstring(blamed)} it runs and matches numpy")',
               "sys.exit(1)")


def _targets(script: _Script, sides: _Sides, targets: Sequence[str], timeout: float) -> None:
    first, second = targets[:2]
    script.need(_source(standalone.run_child, standalone.outputs_in_child))
    script.add("if len(sys.argv) == 3:  # a child: the outputs on target sys.argv[1], pickled to sys.argv[2]",
               *[f"    {line}" for line in sides.pass_lines() + sides.arguments_lines()
                 + sides.run_lines(script, "mod", True, "outputs", target="sys.argv[1]")],
               '    with open(sys.argv[2], "wb") as file:', "        pickle.dump(outputs, file)",
               "    sys.exit(0)",
               f"expected, fate = outputs_in_child(__file__, {first!r}, {int(max(1, timeout))})",
               f"actual, other_fate = outputs_in_child(__file__, {second!r}, {int(max(1, timeout))})",
               "if fate or other_fate:",
               f'    print(f"BUG REPRODUCES ({script.finding.kind}): the module fails on {first} '
               f'({{fate or \'ok\'}}) or '
               f'{second} ({{other_fate or \'ok\'}}); the targets cannot be compared")',
               "    sys.exit(1)")
    _comparison(script, _tolerances(sides.program, sides.passes, target_slack(targets[:2])),
                _output_dtypes(sides.program), f"{second} disagrees with {first}:")
    script.add(f'print("fixed: the module gives the same outputs on {first} and {second}")')


def describe(passes: Sequence[str], build: Build = PLAIN_BUILD) -> str:
    """'after P1, P2', 'after P1 compiled with exec-mode=compiled', 'compiled with export'."""
    text = f'after {", ".join(passes)}' if passes else ""
    if build.text:
        text = f"{text} compiled with {build.text}".strip()
    return text


def _print_round_trip(script: _Script, sides: _Sides) -> None:
    script.need(f"INLINE_SCALAR_DTYPES = {round_trip.INLINE_SCALAR_DTYPES!r}")
    script.need(_source(round_trip.printed_as_metadata, round_trip.constants_in_print_order, round_trip.printed_back))
    whose = f"the module after {sides.passes[-1].text}" if sides.passes else "the module"
    script.add(*sides.pass_lines(), "try:", "    tvm.ir.assert_structural_equal(mod, printed_back(mod))",
               "except Exception as error:")
    script.verdict(f"{_in_fstring(whose)} does not print and parse back to itself:")
    script.add(f'print("fixed: {whose} prints and parses back to itself")')


def _json_round_trip(script: _Script, sides: _Sides, timeout: float) -> None:
    """The passes here, the round trip in a forked child (it segfaults on TVM 0.27.0.post1), whose
    end this process reads, as a crash script does."""
    kind, seconds = script.finding.kind, int(max(1, timeout))
    script.add(*sides.pass_lines(),
               "if os.fork() == 0:  # a child makes the round trip; this process reads how it ends",
               f"    signal.alarm({seconds})",
               "    tvm.ir.assert_structural_equal(mod, tvm.ir.load_json(tvm.ir.save_json(mod)))",
               "    os._exit(0)",
               "_, status = os.wait()",
               "ended = signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)",
               "if ended != 0:  # a signal, or the child's traceback (exit 1) says what differs",
               f'    print(f"BUG REPRODUCES ({kind}): save_json, load_json: {{ended}}")',
               "    sys.exit(1)",
               'print("fixed: the module saves and loads back as itself")')


def _in_function(name: str, module: str) -> str:
    """The module's text inside a function returning it: each call parses a fresh copy."""
    body = "\n".join(f"    {line}" if line else line for line in module.rstrip().splitlines())
    return f"def {name}():\n{body}\n    return Module\n"


def _repeated_passes(script: _Script, sides: _Sides) -> None:
    lines = []
    for copy in ("first", "second"):
        lines += [f"{copy} = fresh_module()"] + [f"{copy} = {p.for_program(sides.program).python_expr()}({copy})"
                                                  for p in sides.passes]
    script.add(*lines, "try:", "    tvm.ir.assert_structural_equal(first, second)", "except ValueError as error:")
    script.verdict(f"{_in_fstring(sides.passes[-1].text)} gives two fresh copies of the module different results:")
    script.add('print("fixed: the passes give two fresh copies of the module the same result")')


def _rerun(script: _Script, sides: _Sides) -> None:
    script.add(*sides.arguments_lines(), *sides.pass_lines(),
               *sides.run_lines(script, "mod", True, "first"), *sides.run_lines(script, "mod", True, "second"),
               "for i, (a, b) in enumerate(zip(first, second)):",
               "    if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():",
               f'        print(f"BUG REPRODUCES ({script.finding.kind}): output {{i}} differs between two compiles '
               'and runs of the same module")',
               "        sys.exit(1)",
               'print("fixed: two compiles and runs of the module give bit-identical outputs")')


def _missed_rewrite(script: _Script, sides: _Sides) -> None:
    """An observation, not a bug: the pass returns the module unchanged (exit 1 while it does)."""
    name = sides.passes[-1].text
    script.add(*sides.pass_lines(keep_original=True), "try:", "    tvm.ir.assert_structural_equal(mod, Module)",
               "except ValueError:",
               f'    print("fixed: {name} rewrites the module now")',
               "    sys.exit(0)",
               f'print("MISSED REWRITE REPRODUCES ({script.finding.kind}): {name} returns the module unchanged")',
               "sys.exit(1)")


def _not_idempotent(script: _Script, sides: _Sides) -> None:
    """An observation, not a bug: the last pass, applied once more to its own output, changes it."""
    last = sides.passes[-1]
    script.add(*sides.pass_lines(keep_original=True),
               f"again = {last.for_program(sides.program).python_expr()}(mod.clone())  # passes may update their input in place",
               "try:", "    tvm.ir.assert_structural_equal(again, mod)", "except ValueError as error:",
               f'    print("NOT IDEMPOTENT ({script.finding.kind}): {last.text} applied once more to its own output '
               'changes it:", *str(error).strip().splitlines()[:1])',
               "    sys.exit(1)",
               f'print("fixed: {last.text} applied once more to its own output gives it back")')
def _pruned_module(program: Program) -> str:
    """The twin of the finding's module, as TVMScript, named ``Pruned``."""
    text = module_script(build_module(pruned(program)))
    return "# The same module with the If branches the arguments do not take pruned\n" + \
        re.sub(r"^class Module:", "class Pruned:", text, count=1, flags=re.MULTILINE)


def _modulo_inputs(script: _Script, sides: _Sides) -> None:
    """The passes applied to the module and to its pruned twin, both compiled and called, and their
    outputs compared bit for bit."""
    optimized = bool(sides.passes)
    twin_passes = [re.sub(r"\bModule\b", "Pruned", re.sub(r"\bmod\b", "pruned", line)) for line in sides.pass_lines()]
    module, twin = ("mod", "pruned") if optimized else ("Module", "Pruned")
    whose = f"after {sides.passes[-1].text}, the" if optimized else "the unoptimized"
    script.add(*sides.arguments_lines(), *(sides.pass_lines() + twin_passes if optimized else []),
               *sides.run_lines(script, module, optimized, "actual"),
               *sides.run_lines(script, twin, optimized, "expected"),
               "differ = [i for i, (a, b) in enumerate(zip(actual, expected))",
               "          if (a.dtype, a.shape, a.tobytes()) != (b.dtype, b.shape, b.tobytes())]",
               "if differ or len(actual) != len(expected):",
               f'    print(f"BUG REPRODUCES ({script.finding.kind}): {whose} module\'s outputs {{differ}} '
               'are not bit-identical to its twin\'s, whose untaken If branches are pruned")',
               "    sys.exit(1)",
               f'print("fixed: {whose} module and its pruned twin give bit-identical outputs")')

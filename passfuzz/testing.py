"""Compare a Program before and after passes in your own tests, exactly as the fuzzer does.

``assert_same_outputs(program, passes)`` runs one trial of passfuzz's (passfuzz.judge.trial.check):
the original module is built, compiled and run in a child process and held against the numpy
reference; the passes are applied (their prerequisites inserted) in another child, which checks
well-formedness, calls ``main`` through the calling convention the passes leave (LiftTransformParams'
``main_transform_params`` first, bound weights left out, ...), and runs it; the two sides' outputs
are compared with the tolerance the passes and the program's ops allow. A crash, a hang, an
exception or an ill-formed module is a failure too. The failure is an ``AssertionError`` that reads
as a bug report: the passes, what differs, the module as TVMScript and the differing values::

    from hypothesis import given, settings
    from strategies import relax_programs
    from passfuzz.testing import assert_same_outputs

    @settings(deadline=None)
    @given(relax_programs(max_nodes=6))
    def test_my_pass_keeps_results(program):
        assert_same_outputs(program, ["my_package.my_module:my_pass"])

Importing this module also makes a Program print as the TVMScript of the module it builds in
Hypothesis' falsifying-example output (``Program.pretty_text``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from passfuzz.ir.catalogue.base import NO_REFERENCE
from passfuzz.ir.graph import evaluate
from passfuzz.ir.program import Program
from passfuzz.judge.oracle import Verdict
from passfuzz.judge.trial import check
from passfuzz.passes.catalogue import with_prerequisites
from passfuzz.passes.names import PassSpec, resolve
from passfuzz.relax.build import build_module
from passfuzz.run.execute import Outcome

__all__ = ["Comparison", "GeneratorDefect", "PassesChangedOutputs", "assert_same_outputs", "compare", "tvmscript"]

_SHOWN_ELEMENTS = 24  # of each differing output, in a failure's message


class PassesChangedOutputs(AssertionError):
    """The passes changed what ``main`` computes, or failed on the module (a finding)."""


class GeneratorDefect(Exception):
    """The module does not even build, compile or run, or disagrees with numpy, before any pass:
    the program or TVM's plain build is at fault, not the passes."""


@dataclass(frozen=True)
class Comparison:
    """One trial's verdict, and the optimized side's outcome (None if the trial stopped before it)."""

    verdict: Verdict
    optimized: Outcome | None

    @property
    def incomparable(self) -> str:
        """Why the two sides could not be compared ("" if they were): passfuzz counts such examples
        and moves on, as a test should."""
        return self.verdict.incomparable


def tvmscript(program: Program) -> str:
    """The module ``program`` builds, as TVMScript, under comments that summarise it and give the
    arguments ``main`` is called with (``program.arguments()``)."""
    show = dict(threshold=_SHOWN_ELEMENTS, edgeitems=3, precision=5, max_line_width=100)

    def shown(argument) -> str:
        if isinstance(argument, (tuple, list)) and not isinstance(argument, np.ndarray):
            return "(" + ", ".join(shown(item) for item in argument) + ")"
        return np.array2string(np.asarray(argument), **show).replace("\n", " ")

    arguments = [f"#   {index}: {shown(argument)}" for index, argument in enumerate(program.arguments())]
    return "\n".join([f"# Program: {program.summary()}", "# arguments of main:", *arguments,
                      build_module(program).script().rstrip()])


def compare(program: Program, passes: Sequence[str | PassSpec], *, targets: Sequence[str] = ("llvm",),
            timeout: float = 60.0) -> Comparison:
    """Run ``program`` unoptimized and after ``passes`` on ``targets`` and judge the two as the
    fuzzer does. ``passes``: names as ``--passes`` takes them ("FoldConstant",
    "ToMixedPrecision(out_dtype='float16')", "package.module:attr") or PassSpecs; the
    prerequisites a pass needs are inserted, as the fuzzer inserts them."""
    specs = with_prerequisites([p if isinstance(p, PassSpec) else resolve(p) for p in passes])
    verdict, optimized = check(program, specs, list(targets), timeout)
    return Comparison(verdict, optimized)


def assert_same_outputs(program: Program, passes: Sequence[str | PassSpec], *, targets: Sequence[str] = ("llvm",),
                        timeout: float = 60.0) -> Comparison:
    """``compare``, raising PassesChangedOutputs on a finding and GeneratorDefect when the
    unoptimized module already fails; returns the Comparison otherwise (incomparable included)."""
    comparison = compare(program, passes, targets=targets, timeout=timeout)
    verdict = comparison.verdict
    if verdict.generator_defect:
        raise GeneratorDefect(f"before any pass: {verdict.generator_defect}\n\n{_script_or_why(program)}")
    finding = verdict.finding
    if finding is None:
        return comparison
    if not finding.blamed:  # the unoptimized module is wrong against numpy or across targets
        raise GeneratorDefect(f"TVM's plain build, before any pass: {finding.kind}: {finding.message}\n\n"
                              f"{_script_or_why(program)}")
    lines = [f"{','.join(p.text for p in finding.passes) or 'the build'} {_what(finding.kind)}: "
             f"{finding.kind} at {finding.stage or 'the end'}", f"  {finding.message}"]
    if finding.outside_contract:
        lines.append(f"  outside the pass contracts (misuse, not a TVM bug): {finding.outside_contract}")
    lines += ["", "the module before the passes:", _script_or_why(program)]
    lines += _differing_values(program, comparison.optimized)
    if finding.log and finding.kind != "wrong-result":
        lines += ["", "the log's end:", finding.log[-1500:]]
    raise PassesChangedOutputs("\n".join(lines))


def _what(kind: str) -> str:
    return "changed the outputs" if kind == "wrong-result" else "failed on the module"


def _script_or_why(program: Program) -> str:
    try:
        return tvmscript(program)
    except Exception as exc:  # noqa: BLE001 - the failure must still be reported
        return f"(no TVMScript: {type(exc).__name__}: {exc}; the Program: {program!r})"


def _differing_values(program: Program, optimized: Outcome | None) -> list[str]:
    """Each output the optimized side got wrong against the numpy reference, both shown."""
    if optimized is None or not optimized.outputs:
        return []
    with np.errstate(all="ignore"):
        expected = evaluate(program)
    lines = []
    for target, outputs in optimized.outputs.items():
        for index, (want, got) in enumerate(zip(expected, outputs)):
            if want is NO_REFERENCE:  # computed by an opaque kernel: numpy has nothing to show
                continue
            want, got = np.asarray(want), np.asarray(got)
            if want.shape == got.shape and np.allclose(want.astype(np.float64), got.astype(np.float64),
                                                       rtol=1e-3, atol=1e-3, equal_nan=True):
                continue
            show = dict(threshold=_SHOWN_ELEMENTS, edgeitems=3, precision=5)
            lines += ["", f"output {index} on {target} ({got.dtype}, shape {got.shape}):",
                      f"  numpy reference: {np.array2string(want, **show)}",
                      f"  after the passes: {np.array2string(got, **show)}"]
    return lines


Program.pretty_text = tvmscript

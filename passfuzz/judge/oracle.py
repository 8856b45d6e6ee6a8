"""The oracle: from the original's and the optimized side's Outcomes to a verdict.

A failure of the *original* side is never a bug of the passes under test. When leaving one pass
out of TVM's build pipeline makes it run and match numpy (``passfuzz.judge.pipeline_blame`` finds it),
it is a ``pipeline-error``, ``pipeline-crash`` or ``pipeline-hang`` blaming that pipeline pass;
else it is a generator defect, counted and kept apart. Otherwise the optimized side either failed
(the pass raised, left an ill-formed module, broke compilation, crashed or hung at run time) or
its outputs are compared with the original's: count, shape and dtype exactly, integers and bools
exactly, floats within a dtype-aware tolerance whose absolute part scales with the output's
static bound, and NaN and infinity positions must agree (``np.testing.assert_allclose``'s
criterion, which reproducer scripts call).

Before any pass is judged, the original side is held against the catalogue's numpy semantics
(``reference_verdict``). A disagreement there is a ``reference-mismatch``: a codegen or
legalization bug of TVM, or an error in passfuzz's own catalogue, and never blamed on a pass
(its pass list is empty). Such an example is not used to judge the passes: its original is
already suspect.

With two or more targets, outputs are also compared *across* targets (``target_verdict``): the
original side's (a codegen bug of one target, blamed on no pass), and the optimized side's (the
same optimized module must agree on every device). A wrong result on some targets but not on
others is a ``target-mismatch`` as well: the passes' output is right on one device, so the other
device's compilation is at fault. The tolerance between targets is per target kind
(``TARGET_SLACK``).

With ``--check-speed``, matching sides are also timed (passfuzz.run.speed, passfuzz.portable.timing): an
optimized module slower than the original beyond a threshold, with confidence, is a
``slowdown`` (``slowdown_verdict``).

Each Finding carries a fingerprint (kind, first bad pass, normalized error or difference class),
so that distinct bugs stay distinct while Hypothesis shrinks them and in the corpus. A wrong
result is fingerprinted by what differs (output count, shape, dtype or values), not by the
dtype or op of the differing output: those are incidental while generating, and keying on them
split one planted bug into one finding per dtype.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Sequence, TypeVar

import numpy as np

from passfuzz.ir.catalogue import RTOL, ValueInfo, is_float
from passfuzz.ir.catalogue.base import NO_REFERENCE, leaves
from passfuzz.ir.graph import analyse, evaluate_all, flatten, output_leaves, rounding_dtypes
from passfuzz.ir.program import Program
from passfuzz.passes.catalogue import info as pass_info
from passfuzz.passes.names import PassSpec
from passfuzz.portable.timing import speed_line
from passfuzz.run.builds import PLAIN_BUILD, Build
from passfuzz.run.execute import Outcome

from .finding import Finding, fingerprint, new_finding, normalize_error

# The unoptimized module's plain build failed, and leaving one pass out of TVM's build pipeline
# makes it run and match numpy (passfuzz.judge.pipeline_blame): that pass is at fault.
PIPELINE_KINDS = {"error": "pipeline-error", "crash": "pipeline-crash", "hang": "pipeline-hang"}
# How much wider the tolerance against numpy is than between two TVM modules: numpy evaluates
# each op in the tensor's own dtype with its own algorithms (pairwise summation, float16 rounded
# after every op), TVM's kernels accumulate in another order and sometimes in float32.
REFERENCE_SLACK = 10.0
# How much wider the tolerance between two targets is than between two modules on one target, per
# target kind (the wider of a pair applies). CPU codegens differ by FMA contraction and vectorised
# reduction order, which the bound-scaled tolerance covers (llvm against c, and llvm at two -mcpu,
# agree within it). GPU kernels reduce across threads in another order (dlight's schedules) and
# their exp, log and tanh are approximations a few ulp off (CUDA's fast intrinsics; Vulkan, OpenCL
# and Metal allow 3 ulp and more): the GPU factors are estimates, to be measured on a GPU.
TARGET_SLACK = {"llvm": 1.0, "c": 1.0, "cuda": 10.0, "rocm": 10.0, "vulkan": 10.0, "opencl": 10.0, "metal": 10.0}


@dataclass(frozen=True)
class Verdict:
    """Exactly one of: a finding, or a reason there is none."""

    finding: Finding | None = None
    generator_defect: str = ""  # the original side failed: a defect of passfuzz's generator
    incomparable: str = ""  # no equivalent call exists; nothing was compared
    # the Program the finding was seen with, when not the one checked: an argument draw's (judge.trial)
    program: Program | None = None
    # what the passes left undone, beside any verdict (passfuzz.judge.observations): never a finding,
    # so a verdict with observations still equals Verdict()
    observations: tuple[Finding, ...] = field(default=(), compare=False)


def pipeline_verdict(original: Outcome, blamed: str, targets: Sequence[str] = ()) -> Verdict:
    """The unoptimized module's failed plain build: a ``pipeline-*`` finding blaming the pipeline
    pass ``blamed`` (without which it runs and matches numpy); with no pipeline pass to blame
    (``blamed`` is ""), a failure on a target after the first of ``targets``, which built and ran
    it, is that target's own fault (``target_failure``), and any other a generator defect. Keyed
    like a pass failure: the blamed pass and the normalized error (a crash or hang: where it
    happened)."""
    failure = f"failed to {original.stage}: {original.status} {original.error}"
    if not blamed:
        head, _, where = original.stage.partition(":")
        if head in ("compile", "run") and targets and where in targets[1:]:
            return Verdict(target_failure(original, targets[0]))
        return Verdict(generator_defect=failure)
    kind = PIPELINE_KINDS.get(original.status, "pipeline-error")
    detail = original.stage if original.status in ("crash", "hang") else normalize_error(original.error)
    inside = f" (in {original.pipeline_pass})" if original.pipeline_pass else ""
    message = f"tvm.compile's pipeline {failure}{inside}; without {blamed} the module runs and matches numpy"
    fp, signature = fingerprint(kind, (), f"{blamed} | {detail}")
    head, _, where = original.stage.partition(":")
    targets = (where,) if head in ("compile", "run") else ()
    return Verdict(Finding(kind, fp, signature, message, original.stage, original.log, (), targets,
                           pipeline_pass=blamed))


def target_failure(original: Outcome, first: str) -> Finding:
    """The unoptimized module failing on a target after ``first`` had built and run it: a codegen
    or runtime fault of that target (a C codegen with no lowering for an intrinsic), blaming no
    pass; keyed on the error and the target, as a reference mismatch on another target is."""
    kind = _failure_kind(original.stage, original.status)
    where = original.stage.partition(":")[2]
    detail = original.stage if kind in ("crash", "hang") else f"{normalize_error(original.error)} on {where}"
    # "<status> at <stage>: <error>", as a failure of the optimized side reads (the report takes the
    # error from it); the first target that built it is told after
    message = f"{original.status} at {original.stage}: {original.error} ({first} builds and runs the same module)"
    return new_finding(kind, (), detail, message, original.stage, original.log, targets=(where,))


def _failure_kind(stage: str, status: str) -> str:
    if status in ("crash", "hang"):
        return status
    head = stage.split(":")[0]
    return {"pass": "pass-error", "well-formed": "ill-formed", "compile": "compile-error"}.get(head, "runtime-error")


def tolerance(dtype: str, bound: float, passes: Sequence[PassSpec] = (), slack: float = 1.0) -> tuple[float, float]:
    """(rtol, atol) for a float output whose elements are statically bounded by ``bound``; a pass
    that changes precision on purpose (the pass catalogue's rtol) widens it, and so does ``slack``."""
    rtol = slack * max([RTOL[dtype]] + [pass_info(p).rtol for p in passes if pass_info(p).rtol])
    return rtol, rtol * max(1.0, bound)


def close_floats(actual: np.ndarray, desired: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """Per element, the criterion of ``np.testing.assert_allclose(actual, desired, rtol, atol,
    equal_nan=True)`` (reproducer scripts call that): ``|actual - desired| <= atol + rtol *
    |desired|`` for finite ``desired``, infinities and NaNs in the same places. In float64, so a
    float16 or bfloat16 value is judged without rounding the difference."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.isclose(actual.astype("float64"), desired.astype("float64"), rtol=rtol, atol=atol, equal_nan=True)


def compare_arrays(a: np.ndarray, b: np.ndarray, info: ValueInfo, passes: Sequence[PassSpec] = (),
                   names: tuple[str, str] = ("original", "optimized"), slack: float = 1.0,
                   rounding: str = "") -> tuple[str, str]:
    """('', '') when ``b`` matches ``a`` (by default: the optimized side the original), else
    (what differs: 'shape', 'dtype' or 'values', a one-line description). ``rounding``: the
    dtype whose precision the value carries (graph.rounding_dtypes), if coarser than its own."""
    if a.shape != b.shape:
        return "shape", f"shape {a.shape} became {b.shape}"
    if a.dtype != b.dtype:
        return "dtype", f"dtype {a.dtype} became {b.dtype}"
    if not is_float(a.dtype.name):
        bad = a != b
    else:  # np.testing.assert_allclose(b, a, rtol, atol, equal_nan=True), as reproducer scripts judge
        rtol, atol = tolerance(rounding or a.dtype.name, _magnitude(a, info), passes, slack)
        bad = ~close_floats(b, a, rtol, atol)
    if not bad.any():
        return "", ""
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    return "values", (f"{int(bad.sum())} of {bad.size} elements differ, first at {list(where)}: "
                      f"{names[0]} {a[where].item()!r}, {names[1]} {b[where].item()!r}")


def _magnitude(expected: np.ndarray, info: ValueInfo) -> float:
    """The bound the tolerance scales with: the static one, or for a value computed by an opaque
    kernel, which has none (``ValueInfo.bounded``), the largest finite element expected."""
    if info.bounded:
        return info.magnitude
    finite = np.abs(expected.astype("float64"))[np.isfinite(expected.astype("float64"))]
    return float(finite.max()) if finite.size else 0.0


def judge(program: Program, passes: Sequence[PassSpec], original: Outcome, optimized: Outcome,
          build: Build = PLAIN_BUILD, numpy_outputs: Sequence[np.ndarray] | None = None) -> Verdict:
    """``numpy_outputs``: the reference's outputs, flattened. When the two sides' values differ
    but the optimized side's match numpy (within the reference tolerance) and are at least as
    close to it wherever the sides disagree, the original is the less precise side (a pass that
    computes in a wider type on purpose): no pass is blamed."""
    if not original.ok or optimized.stage == "build":
        failed = original if not original.ok else optimized
        return Verdict(generator_defect=f"failed to {failed.stage}: {failed.status} {failed.error}")
    if optimized.status == "incomparable":
        return Verdict(incomparable=optimized.error)
    if not optimized.ok and optimized.external and optimized.stage.startswith("compile:"):
        # Functions meant for an external codegen, compiled on llvm as plain Relax: their users
        # compile them with RunCodegen for that backend, so a failure here is no fault of a pass.
        return Verdict(incomparable=f"{optimized.status} compiling functions for the {', '.join(optimized.external)} "
                                    f"codegen on {optimized.stage.partition(':')[2]}: {optimized.error}")
    if not optimized.ok:
        kind = _failure_kind(optimized.stage, optimized.status)
        detail = optimized.stage if kind in ("crash", "hang") else normalize_error(optimized.error)
        if kind in ("pass-error", "ill-formed"):
            detail = f"{optimized.stage} {detail}"
        # The pipeline pass it failed in is told, not fingerprinted: the error names the fault already.
        inside = f" in {optimized.pipeline_pass}" if optimized.pipeline_pass else ""
        message = f"{optimized.status} at {optimized.stage}{inside}: {optimized.error}"
        return Verdict(new_finding(kind, passes, detail, message, optimized.stage, optimized.log, build,
                                pipeline_pass=optimized.pipeline_pass))
    infos = analyse(program, check_values=False)
    rounding = rounding_dtypes(program, infos)
    tensors = output_leaves(program, infos)
    wrong: dict[str, Finding] = {}
    closer_to_numpy = ""
    for target, expected in original.outputs.items():
        got = optimized.outputs[target]
        if len(got) != len(expected):
            wrong[target] = new_finding("wrong-result", passes, "output count",
                                     f"{target}: {len(expected)} outputs became {len(got)}", f"run:{target}",
                                     build=build)
            continue
        for i, (a, b) in enumerate(zip(expected, got)):
            index, info = tensors[i]
            what, difference = compare_arrays(a, b, info, passes, rounding=rounding[index])
            if what == "values" and numpy_outputs is not None and numpy_outputs[i] is not NO_REFERENCE \
                    and _closer_to_numpy(a, b, numpy_outputs[i]) \
                    and not compare_arrays(numpy_outputs[i], b, info, passes, ("numpy", "optimized"), REFERENCE_SLACK,
                                           rounding[index])[0]:
                closer_to_numpy = f"{target}: output {i} differs from the original's, but matches numpy's: {difference}"
                continue
            if what:
                wrong[target] = new_finding("wrong-result", passes, f"{what} differ",
                                         f"{target}: output {i} ({a.dtype}, shape {a.shape}): {difference}",
                                         f"run:{target}", build=build)
                break
    right = [target for target in original.outputs if target not in wrong]
    if wrong and right:  # right on one device: the other device's compilation is at fault
        bad = next(iter(wrong))
        mismatch = _compare_targets(program, optimized, passes, build, right[0], bad)
        if mismatch is not None:
            return Verdict(mismatch)
    if wrong:
        return Verdict(next(iter(wrong.values())))
    if closer_to_numpy:
        return Verdict(incomparable=closer_to_numpy)
    return target_verdict(program, optimized, passes, build)


def _closer_to_numpy(original: np.ndarray, optimized: np.ndarray, want: np.ndarray) -> bool:
    """Is every element the sides disagree on at least as close to numpy's on the optimized side?"""
    x, y, z = (np.asarray(v).astype("float64") for v in (original, optimized, want))
    if x.shape != y.shape or y.shape != z.shape:
        return False
    differ = x != y
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.abs(y - z)[differ] <= np.abs(x - z)[differ]))


def target_slack(targets: Sequence[str]) -> float:
    """The widening of the tolerance between the outputs of one module on ``targets``."""
    return max(TARGET_SLACK.get(target.split()[0], max(TARGET_SLACK.values())) for target in targets)


def target_verdict(program: Program, outcome: Outcome, passes: Sequence[PassSpec] = (),
                   build: Build = PLAIN_BUILD, probe: Outcome | None = None) -> Verdict:
    """Every target's outputs of one side against the first target's: a ``target-mismatch``
    finding or nothing. On the original side (no passes, plain build) it blames no pass, and
    ``probe``, the run of ``probe_program(program)`` on the same targets when there is one, names
    the first op whose value the targets disagree on, as a reference mismatch is named."""
    targets = list(outcome.outputs)
    for other in targets[1:]:
        mismatch = _compare_targets(program, outcome, passes, build, targets[0], other, probe)
        if mismatch is not None:
            return Verdict(mismatch)
    return Verdict()


def _first_difference(program: Program, outcomes: tuple[list, list], pair: tuple[str, str],
                      passes: Sequence[PassSpec] = ()) -> tuple[str, str, int | None]:
    """(what differs, how, the value index of the output) of the first of ``program``'s output
    tensors that two targets' ``outcomes`` disagree on; ("", "", None) when none."""
    expected, got = outcomes
    if len(expected) != len(got):
        return "output count", f"{len(expected)} outputs on {pair[0]}, {len(got)} on {pair[1]}", None
    infos = analyse(program, check_values=False)
    rounding, tensors = rounding_dtypes(program, infos), output_leaves(program, infos)
    for i, (a, b) in enumerate(zip(expected, got)):
        index, info = tensors[i]
        what, difference = compare_arrays(a, b, info, passes, names=pair, slack=target_slack(pair),
                                          rounding=rounding[index])
        if what:
            return what, f"output {i} ({a.dtype}, shape {a.shape}): {difference}", index
    return "", "", None


def _compare_targets(program: Program, outcome: Outcome, passes: Sequence[PassSpec], build: Build,
                     reference: str, other: str, probe: Outcome | None = None) -> Finding | None:
    pair = (reference, other)
    what, difference, _ = _first_difference(program, (outcome.outputs[reference], outcome.outputs[other]),
                                            pair, passes)
    if not what:
        return None
    detail = f"{what} differ between {reference} and {other}"
    message = f"{other} disagrees with {reference} on the same module: {difference}"
    if probe is not None and probe.ok and not passes and reference in probe.outputs and other in probe.outputs:
        # Keyed on the first node the targets disagree on, not the pair alone: two codegen faults
        # of one pair are two findings, and one fault met through different consumers stays one.
        _, _, first = _first_difference(probe_program(program), (probe.outputs[reference], probe.outputs[other]),
                                        pair)
        if first is not None:
            op = program.values[first].op
            detail += f" at {op}"
            message += f"; the first value that differs is node {first} ({op})"
    return new_finding("target-mismatch", passes, detail, message, f"run:{other}", build=build, targets=pair)


def slowdown_verdict(passes: Sequence[PassSpec], timings: dict[str, dict], build: Build = PLAIN_BUILD) -> Verdict:
    """A ``slowdown`` finding when on some target the optimized module is slower than the
    original beyond the threshold with confidence (passfuzz.portable.timing's ``slower``), else nothing.
    Keyed on the first pass and the target, never on the ratio: a timing varies from run to run,
    the slowdown does not."""
    for target, timed in timings.items():
        if timed["slower"]:
            return Verdict(new_finding("slowdown", passes, f"slower on {target}", f"{target}: {speed_line(timed)}",
                                    f"time:{target}", build=build, targets=(target,)))
    return Verdict()


Seen = TypeVar("Seen")


def pin_to_prefix(verdict: Verdict, seen: Seen, ends: Iterable[int],
                  attempt: Callable[[int], tuple[Verdict, Seen]]) -> tuple[Verdict, Seen]:
    """A finding pinned to the shortest prefix that shows its kind, so that it names the first bad
    pass (or schedule step): ``attempt(end)`` judges the first ``end`` of them, for each of
    ``ends`` in turn, and the first whose finding is of ``verdict``'s kind wins, with what was seen
    there. When none is, ``(verdict, seen)``."""
    for end in ends:
        shorter, seen_there = attempt(end)
        if shorter.finding is not None and shorter.finding.kind == verdict.finding.kind:
            return shorter, seen_there
    return verdict, seen


def probe_program(program: Program) -> Program:
    """``program`` with every computed value as an output: run once when an output disagrees
    with numpy, it shows which node disagrees first, and that op names the finding (the output
    that disagreed is often just a consumer of the faulty value)."""
    nodes = tuple(i for i, v in enumerate(program.values) if getattr(v, "op", "const") != "const")
    return replace(program, outputs=nodes or program.outputs)


def reference_verdict(program: Program, original: Outcome, probe: Outcome | None = None) -> Verdict:
    """The original side's outputs against the numpy reference: a ``reference-mismatch``
    finding, a generator defect when the reference itself fails, or nothing. An output computed
    by an opaque kernel (NO_REFERENCE) is not held against numpy. ``probe`` is the
    run of ``probe_program(program)``, when there is one, to name the first disagreeing op."""
    try:
        with np.errstate(all="ignore"):
            values = evaluate_all(program)
    except Exception as exc:  # noqa: BLE001 - a reference that raises is a catalogue defect
        return Verdict(generator_defect=f"numpy reference raised {type(exc).__name__}: {exc}")
    infos = analyse(program, check_values=False)
    rounding = rounding_dtypes(program, infos)

    def tensors(of: Program) -> list[tuple[int, np.ndarray, ValueInfo]]:
        """(value index, numpy's tensor, facts) of each tensor of ``of``'s outputs, flattened."""
        return [(o, want, info) for o in of.outputs for want, info in zip(flatten(values[o], infos[o]), leaves(infos[o]))]

    def differs(index: int, want: np.ndarray, info: ValueInfo, got: np.ndarray) -> tuple[str, str]:
        if want is NO_REFERENCE:  # computed by an opaque kernel: held against the optimized side only
            return "", ""
        return compare_arrays(want, got, info, names=("numpy", "tvm"), slack=REFERENCE_SLACK,
                              rounding=rounding[index])

    for target, outputs in original.outputs.items():
        for i, ((index, want, info), got) in enumerate(zip(tensors(program), outputs)):
            what, difference = differs(index, want, info, got)
            if not what:
                continue
            op = getattr(program.values[index], "op", "parameter")
            message = (f"{target}: output {i} ({op}, {want.dtype}, shape {want.shape}) of the unoptimized module "
                       f"differs from numpy: {difference}")
            if probe is not None and probe.ok:
                probed = zip(tensors(probe_program(program)), probe.outputs.get(target, []))
                first = next((node for (node, want_, info_), value in probed if differs(node, want_, info_, value)[0]),
                             None)
                if first is not None and first != index:
                    op = program.values[first].op
                    message += f"; the first value that differs is node {first} ({op})"
            # A mismatch on another target than llvm is that target's (its codegen's) own: keyed apart,
            # so a C codegen fault is not taken for an llvm one at the same op.
            where = "" if target.split()[0] == "llvm" else f" on {target.split()[0]}"
            return Verdict(new_finding("reference-mismatch", (), f"{what} differ at {op}{where}", message,
                                       f"reference:{target}"))
    return Verdict()

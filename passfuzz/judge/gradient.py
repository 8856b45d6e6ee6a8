"""Fuzzing ``relax.transform.Gradient``: loss programs, their float64 twin, the gradient oracle.

Gradient("main") adds ``main_adjoint``, which returns (main's output, (d output / d parameter,
...)); it needs main's output to be a 0-d float tensor and supports only ops with a registered
``FPrimalGradient``. When Gradient is among the passes:

- programs are *loss programs* (``relax_programs(loss=True)``): float32, drawn only from the
  catalogue's smooth ops (``OpDef.smooth``) whose Relax op has a registered gradient (asked of
  TVM at run time, ``loss_ops``), with one 0-d output; an op smooth only away from a kink
  (``OpDef.kinks``: abs, relu, maximum, ...) only where its operands' ranges keep clear of it. Smooth by construction, so that finite
  differences mean something for every argument the shrinker may pick.
- the optimized side runs the program's **float64 twin** (same ops, same values, every float32
  made float64), passes applied, and calls ``main_adjoint`` (calling.ADJOINT). Its gradients
  are compared with central finite differences of the twin evaluated with the catalogue's numpy
  references (passfuzz.portable.finite_differences, which documents the tolerance), its loss with the
  numpy loss. Why float64: in float32 a forward cancellation (a - b of large values, then exp)
  can move TVM's gradient by percents against the exact one, by an amount no static bound
  gives; in float64 the same cancellation is 2**29 times smaller, and the tolerance can be
  derived from the intermediates' static bounds.
- a disagreement is a ``wrong-result`` blamed on the last pass (Gradient, or a pass after it),
  named after the op whose gradient is wrong (``localize``): each node is checked alone, its
  operands made parameters holding the values they had; a crash of ``main_adjoint`` is named the
  same way. Anything the oracle cannot judge soundly (a reduced program that is no longer a loss program,
  arguments too close to their declared bounds for the step, a twin that does not compile) is
  *incomparable*, never a finding.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import replace
from typing import Sequence

import numpy as np
import tvm

from passfuzz.ir.catalogue import BY_NAME
from passfuzz.ir.catalogue.base import (
    ValueInfo,
    differentiable_here,
    kinked_here,
    varying_where_held,
)
from passfuzz.ir.graph import analyse, evaluate_all
from passfuzz.ir.program import Node, Param, Program, ProgramError, parameter_dependent
from passfuzz.passes.names import PassSpec
from passfuzz.portable.finite_differences import STEP, gradient_mismatch
from passfuzz.run.builds import PLAIN_BUILD, Build
from passfuzz.run.calling import ADJOINT
from passfuzz.run.execute import Outcome, run_side

from .finding import UNLOCALIZED, Finding, new_finding, signature_key
from .oracle import Verdict, judge, pin_to_prefix

PASS_NAME = "Gradient"
# Bound on the relative rounding error one node adds to one evaluation in float64, against the
# largest static bound of any value: a sum of up to 64 elements accumulates a few ulps; 45 ulps
# (1e-14 / 2.2e-16) per node is a generous margin.
NOISE_PER_NODE = 1e-14


def involved(passes: Sequence[PassSpec]) -> bool:
    return any(spec.name == PASS_NAME for spec in passes)


def relax_op(name: str) -> str | None:
    """The Relax op a catalogue op emits (``relax.<name>`` or ``relax.nn.<name>``), if TVM has one."""
    for candidate in (f"relax.{name}", f"relax.nn.{name}"):
        try:
            tvm.ir.Op.get(candidate)
            return candidate
        except Exception:  # noqa: BLE001 - TVM raises its own error for an unknown op
            continue
    return None


def has_gradient(name: str) -> bool:
    op = relax_op(name)
    return op is not None and tvm.ir.Op.get(op).get_attr("FPrimalGradient") is not None


def loss_ops(ops: Sequence[str] | None = None) -> list[str]:
    """The catalogue ops loss programs are drawn from: smooth, with a registered gradient, and
    among ``ops`` when given."""
    return [name for name, op in BY_NAME.items()
            if op.smooth and op.propose is not None and (ops is None or name in ops) and has_gradient(name)]


def promote(program: Program) -> Program:
    """The float64 twin: every float32 parameter, constant and dtype attribute (``dtype``, and
    ``out_dtype`` and the like: a matmul's out_dtype left float32 made a mixed-dtype matmul of
    float64 operands, which Gradient's matmul rule rejects) made float64."""
    def wide(dtype: str) -> str:
        return "float64" if dtype == "float32" else dtype

    def names_dtype(key: str) -> bool:
        return key == "dtype" or key.endswith("_dtype")

    values = []
    for value in program.values:
        if isinstance(value, Param):
            value = replace(value, dtype=wide(value.dtype))
        elif any(names_dtype(key) for key in value.attrs):
            value = Node(value.op, value.args, {key: wide(v) if names_dtype(key) and isinstance(v, str) else v
                                                for key, v in value.attrs.items()})
        values.append(value)
    return Program(tuple(values), program.outputs)


def unjudgeable(program: Program) -> str:
    """Why ``program`` is no loss program the oracle can judge soundly ('' when it is one)."""
    try:
        infos = analyse(program)
    except ProgramError as exc:
        return f"not a valid program: {exc}"
    if len(program.outputs) != 1 or infos[program.outputs[0]].shape != () \
            or infos[program.outputs[0]].dtype != "float32":
        return "the output is not one 0-d float32 loss"
    if any(p.dtype != "float32" for _, p in program.params) or \
            any(not BY_NAME[n.op].smooth and n.op != "const" for n in program.nodes):
        return "not every value is float32 and every op smooth"
    if any(not has_gradient(n.op) for n in program.nodes if n.op != "const"):
        return "an op has no registered gradient"
    varying = parameter_dependent(program.values)
    limits = [differentiable_here(BY_NAME[n.op], n.attrs) or varying_where_held(BY_NAME[n.op], n.attrs, n.args, varying)
              for n in program.nodes if n.op != "const"]
    if any(limits):
        return next(limit for limit in limits if limit)
    # Central differences evaluate at x +- 2 STEP: the program must stay valid (and so, its ops
    # being smooth on every accepted range, smooth) on the parameter ranges widened by that much.
    widened = tuple(replace(v, lo=v.lo - 2 * STEP, hi=v.hi + 2 * STEP) if isinstance(v, Param) else v
                    for v in program.values)
    try:
        reach = analyse(Program(widened, program.outputs), check_values=False)
    except ProgramError as exc:
        return f"not valid a finite-difference step past the parameter ranges: {exc}"
    kinks = [kinked_here(BY_NAME[n.op], [reach[a] for a in n.args]) for n in program.nodes if n.op != "const"]
    return next((f"a kink within a finite-difference step of the parameter ranges: {kink}" for kink in kinks if kink), "")


def noise(program: Program) -> float:
    """A bound on the absolute rounding error of one float64 evaluation of the loss."""
    infos = analyse(program, check_values=False)
    largest = max(max(info.magnitude for info in infos), 1.0)
    return NOISE_PER_NODE * largest * (1 + len(program.nodes))


def loss_function(twin: Program):
    """f(arguments) -> the loss, by the numpy references in float64."""
    output = twin.outputs[0]

    def f(arguments):
        with np.errstate(all="ignore"):
            return float(evaluate_all(twin, arguments)[output])

    return f


def check(program: Program, passes: Sequence[PassSpec], targets: Sequence[str], timeout: float,
          build: Build = PLAIN_BUILD, localized: bool = True) -> tuple[Verdict, Outcome | None]:
    """Judge Gradient (and the passes around it) on a loss program whose float32 original has
    already run and matched numpy: the twin unoptimized must run and match the numpy loss,
    then the twin with the passes is judged by ``judge_gradient``. A wrong result is pinned to
    the shortest prefix that still holds Gradient and shows it; with ``localized``, a wrong
    result or crash is named after the op that shows it alone (``localize``)."""
    verdict, seen = _check(program, passes, targets, timeout, build)
    if localized and verdict.finding is not None and verdict.finding.kind in LOCALIZED_KINDS:
        verdict = replace(verdict, finding=localize(program, verdict.finding, targets, timeout, build))
    return verdict, seen


def _check(program: Program, passes: Sequence[PassSpec], targets: Sequence[str], timeout: float,
           build: Build) -> tuple[Verdict, Outcome | None]:
    reason = unjudgeable(program)
    if reason:
        return Verdict(incomparable=f"gradient oracle: {reason}"), None
    twin = promote(program)
    original = run_side(twin, None, targets, timeout)
    if not original.ok:
        return Verdict(incomparable=f"the float64 twin fails unoptimized: {original.status} {original.error}"), None
    want = loss_function(twin)(twin.arguments())
    for outputs in original.outputs.values():
        if not abs(float(outputs[0]) - want) <= noise(program) + 1e-6 * abs(want):
            return Verdict(incomparable="the float64 twin's loss differs from numpy unoptimized"), None
    optimized = run_side(twin, passes, targets, timeout, build)
    verdict = judge_gradient(program, passes, original, optimized, build)
    if verdict.finding is not None and verdict.finding.kind == "wrong-result":
        def on_prefix(end: int) -> tuple[Verdict, Outcome]:
            shorter = run_side(twin, passes[:end], targets, timeout, build)
            return judge_gradient(program, passes[:end], original, shorter, build), shorter

        first = next(i for i, spec in enumerate(passes) if spec.name == PASS_NAME)
        return pin_to_prefix(verdict, optimized, range(first + 1, len(passes)), on_prefix)
    return verdict, optimized


def judge_gradient(program: Program, passes: Sequence[PassSpec], original: Outcome, optimized: Outcome,
                   build: Build = PLAIN_BUILD) -> Verdict:
    """The twin's optimized Outcome against central differences; failures as ``oracle.judge``."""
    if not optimized.ok:
        return judge(program, passes, original, optimized, build)
    if optimized.adapter != ADJOINT:
        return Verdict(incomparable="the passes added no main_adjoint with main's parameters")
    twin = promote(program)
    f, args = loss_function(twin), twin.arguments()
    for target, outputs in optimized.outputs.items():
        problem = gradient_mismatch(f, args, outputs[0], outputs[1:], noise(program))
        if problem:
            detail = UNLOCALIZED[0] if problem.startswith("loss") else UNLOCALIZED[1]
            return Verdict(new_finding("wrong-result", passes, detail, f"{target}: main_adjoint: {problem}",
                                    f"run:{target}", build=build))
    return Verdict()


# -- naming the op at fault ---------------------------------------------------------------------------

# What a wrong gradient or a crash of main_adjoint says by itself is only that some gradient is
# wrong, or where main_adjoint stopped; and every loss program ends in the same sum. Unnamed, every
# such finding of one pass list was one fingerprint: a second fault could never be saved beside the
# first, and counted as known. A hang stays unnamed: under a shrink's short time limit on a loaded
# machine, the node that is merely slow would be named.
LOCALIZED_KINDS = ("wrong-result", "crash")

# Weights of an isolated node's result in its loss: distinct, so that a gradient wrong only under an
# upstream gradient that is not uniform (a permuted or transposed dy) shows too.
WEIGHTS = (0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0)

# What isolated programs showed (the finding's signature, '' for none), by their text: while a
# finding shrinks, the node at fault and the values it reads often stay as they were while the
# rest of the program changes.
_shown: OrderedDict[str, str] = OrderedDict()
SHOWN_KEPT = 256


def _shows(alone: Program, passes: Sequence[PassSpec], targets: Sequence[str], timeout: float, build: Build) -> str:
    """The signature of the finding ``alone`` shows under ``passes`` ('' for none), remembered."""
    key = json.dumps([alone.to_json(), [spec.text for spec in passes], list(targets), build.text, timeout],
                     sort_keys=True)
    if key not in _shown:
        verdict, _ = check(alone, passes, targets, timeout, build, localized=False)
        _shown[key] = verdict.finding.signature if verdict.finding is not None else ""
        while len(_shown) > SHOWN_KEPT:
            _shown.popitem(last=False)
    return _shown[key]


def _weighted_loss(values: list, result: ValueInfo) -> Program:
    """``values`` (the last one a float32 tensor of ``result``'s type) closed by the loss
    ``sum(last * weights)``."""
    weights = np.resize(np.array(WEIGHTS, "float32"), result.shape or (1,)).reshape(result.shape)
    values = [*values, Node("const", (), {"shape": list(result.shape), "dtype": "float32", "value": weights.tolist()})]
    values.append(Node("multiply", (len(values) - 2, len(values) - 1)))
    if result.shape:
        values.append(Node("sum", (len(values) - 1,), {"axis": None, "keepdims": False}))
    return Program(tuple(values), (len(values) - 1,))


def _held(info: ValueInfo, value) -> Param:
    """A float32 parameter of ``info``'s type holding ``value``, its range the analysed one."""
    value = np.asarray(value, "float32")
    return Param(info.shape, "float32", min(info.lo, float(value.min())), max(info.hi, float(value.max())),
                 value.tolist())


def isolated(program: Program, index: int) -> Program | None:
    """The loss program of node ``index`` alone, at the point ``program``'s arguments put it: each
    tensor operand a float32 parameter holding the value it had (in its analysed range), each
    constant operand the same constant, and the loss ``sum(node * weights)``. None when the node
    takes or gives a tuple or a non-float value other than a constant, or reads only constants."""
    infos = analyse(program, check_values=False)
    node = program.values[index]
    result = infos[index]
    if not isinstance(node, Node) or node.op == "const" or not isinstance(result, ValueInfo) \
            or result.dtype != "float32":
        return None
    values = evaluate_all(program)
    fresh: list = []
    where: dict[int, int] = {}
    for arg in node.args:
        if arg in where:
            continue
        source, info = program.values[arg], infos[arg]
        if isinstance(source, Node) and source.op == "const":
            fresh.append(source)
        elif isinstance(info, ValueInfo) and info.dtype == "float32" and not info.shape_value:
            fresh.append(_held(info, values[arg]))
        else:
            return None
        where[arg] = len(fresh) - 1
    if not any(isinstance(v, Param) for v in fresh):
        return None
    return _weighted_loss([*fresh, Node(node.op, tuple(where[a] for a in node.args), node.attrs)], result)


def wrapper(program: Program, index: int) -> Program:
    """The loss ``isolated`` closes node ``index`` with, alone: ``sum(p * weights)`` of a parameter
    holding the node's value. Where it shows the finding too, the fault is in the wrapper's own ops
    (multiply, sum), not the node's, and every node would show it."""
    result = analyse(program, check_values=False)[index]
    return _weighted_loss([_held(result, evaluate_all(program)[index])], result)


def localize(program: Program, finding: Finding, targets: Sequence[str], timeout: float,
             build: Build = PLAIN_BUILD) -> Finding:
    """``finding`` named after the first node of ``program`` (in order) whose isolated loss program
    (``isolated``) shows the same finding (its signature: the same kind, first bad pass and
    detail) under the same passes while the wrapper alone does not: `` at <op>`` ends its detail,
    and its message says which node. Unchanged when no node shows it alone (ops wrong only
    together, nodes that cannot be isolated) or the wrapper shows it."""
    for index, node in enumerate(program.values):
        if not isinstance(node, Node) or node.op == "const":
            continue
        alone = isolated(program, index)
        if alone is None or unjudgeable(alone) or \
                _shows(alone, finding.passes, targets, timeout, build) != finding.signature:
            continue
        if _shows(wrapper(program, index), finding.passes, targets, timeout, build) == finding.signature:
            return finding
        signature = f"{finding.signature} at {node.op}"  # the detail ends the signature of a fresh finding
        return replace(finding, fingerprint=signature_key(signature), signature=signature,
                       message=f"{finding.message}; node {index} ({node.op}) shows it alone")
    return finding

"""Reduction of a finding: its pass list and its Program together, after Hypothesis has shrunk it.

Hypothesis shrinks the choice sequence behind a Program: it deletes nodes, picks simpler ops,
smaller shapes and values near zero, and every candidate is re-generated, so it is valid by
construction. Much of what a maintainer wants gone is out of its reach, because it is not a
smaller choice sequence: a pass of a user-named list that changes nothing, a node whose operand
already has the right type, the graph above a node (turned into a parameter holding the values
it computed), dead nodes inside a function body or branch, an output that only passes a
parameter through, a symbolic typing the bug does not need, a dtype other than float32, and the
computed (non-zero) values of such cuts. This reducer makes those moves greedily.

The pass list and the Program are reduced in turn until neither shrinks: dropping a pass can
make a node unnecessary (it only fed that pass's pattern), and dropping a node can make a pass
unnecessary. Passes the optimized side reports as not having changed the module go first, all
at once, then one by one; every shorter list must stay inside the pass contracts
(``contracts.sequence_violation``).
The last pass stays (it names the bug: the fingerprint keys on it), unless it is repeated.

The Program is reduced by *moves*, each a family of candidates (biggest wins first): drop what
no output needs, drop an output or return an operand of it instead, bypass a node by an operand
of the same type, the like inside regions (function bodies and If branches: drop dead nodes,
bypass, return a parameter, cut a node into a constant), cut a node of main into a parameter,
inline a region, make symbolic parameters static and take inputs out of tuple parameters,
float32 parameters, and finally argument and constant values toward zeros, then ones, inside
each parameter's declared range. After each
success the moves start again from the first; candidates already refused are remembered, so a
restart costs only their analysis.

A candidate is tried only if it is simpler (``complexity``: ops, then values, outputs, symbolic
typing, dtypes, elements, values) and ``graph.analyse`` accepts it, so reduction never produces
a Program that generation could not (an index out of range, a zero divisor); and it is kept only
if ``interesting`` says so (the engine: the *same* fingerprint), so the reducer cannot slip from
one bug to another.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from typing import Callable, Iterator, Sequence

import numpy as np

from passfuzz.ir.catalogue import BY_NAME
from passfuzz.ir.catalogue.base import NO_REFERENCE, ValueInfo, representable, same_type
from passfuzz.ir.catalogue.structure import analyse_region, reference_value
from passfuzz.ir.graph import analyse, evaluate, evaluate_all
from passfuzz.ir.program import Node, Param, Program, ProgramError, numpy_dtype
from passfuzz.passes.contracts import sequence_violation
from passfuzz.passes.names import PassSpec

Passes = tuple[PassSpec, ...]
Interesting = Callable[[Program, Passes], bool]
REGION_KEYS = ("body", "then", "else")
MAX_VALUE_CHUNKS = 64  # elements beyond which argument values are only tried whole


# -- the reducer ----------------------------------------------------------------------------

class Reducer:
    """Greedy reduction of (Program, pass list) under ``interesting``, within ``budget_seconds``."""

    def __init__(self, interesting: Interesting, budget_seconds: float = 60.0):
        self.interesting = interesting
        self.budget_seconds = budget_seconds
        self.attempts = 0  # candidates run (analysed, not seen before)
        self._refused: set[str] = set()
        self._deadline = 0.0
        self.complete = False  # the last reduce() reached its fixpoint: no step it tries keeps the bug

    def reduce(self, program: Program, passes: Sequence[PassSpec] = (),
               unchanged: Sequence[str] = ()) -> tuple[Program, Passes]:
        """The reduced (program, passes). ``unchanged``: the texts of passes that did not change
        the module they were given (tried first when dropping passes)."""
        self._deadline = time.monotonic() + self.budget_seconds
        passes = tuple(passes)
        passes_may_shrink = program_may_shrink = True
        while (passes_may_shrink or program_may_shrink) and not self._out_of_time():
            if passes_may_shrink:
                passes_may_shrink = False
                shorter = self._drop_passes(program, passes, unchanged)
                if shorter != passes:
                    passes, program_may_shrink = shorter, True
            if program_may_shrink and not self._out_of_time():
                program_may_shrink = False
                smaller = self._reduce_program(program, passes)
                if smaller != program:
                    program, passes_may_shrink = smaller, len(passes) > 1
        self.complete = not (passes_may_shrink or program_may_shrink)
        return program, passes

    def _out_of_time(self) -> bool:
        return time.monotonic() >= self._deadline

    def _try(self, program: Program, passes: Passes) -> bool:
        key = json.dumps([program.to_json(), [p.text for p in passes]], sort_keys=True, default=str)
        if key in self._refused:
            return False
        self.attempts += 1
        if self.interesting(program, passes):
            return True
        self._refused.add(key)
        return False

    def _drop_passes(self, program: Program, passes: Passes, unchanged: Sequence[str]) -> Passes:
        def droppable(i: int, current: Passes) -> bool:
            # The fingerprint names the last pass: only a repeat of it may go.
            return i < len(current) - 1 or (len(current) > 1 and current[-2].text == current[-1].text)

        idle = [i for i in range(len(passes)) if passes[i].text in unchanged and droppable(i, passes)]
        if len(idle) > 1:  # all the passes that changed nothing, in one run
            candidate = tuple(p for i, p in enumerate(passes) if i not in idle)
            if not sequence_violation(candidate) and self._try(program, candidate):
                passes = candidate
        alive = list(range(len(passes)))  # positions in ``passes`` still in the list
        for i in sorted(alive, key=lambda i: (passes[i].text not in unchanged, i)):
            if self._out_of_time():
                break
            current, position = tuple(passes[k] for k in alive), alive.index(i)
            candidate = current[:position] + current[position + 1:]
            if droppable(position, current) and not sequence_violation(candidate) \
                    and self._try(program, candidate):
                alive.remove(i)
        return tuple(passes[k] for k in alive)

    def _reduce_program(self, program: Program, passes: Passes) -> Program:
        progress = True
        while progress and not self._out_of_time():
            progress = False
            for move in MOVES:
                for candidate in move(program):
                    if self._out_of_time():
                        return program
                    if complexity(candidate) >= complexity(program):
                        continue
                    try:
                        analyse(candidate)
                    except ProgramError:
                        continue
                    if self._try(candidate, passes):
                        program, progress = candidate, True
                        break
                if progress:
                    break
        return program


# -- how simple a Program is ------------------------------------------------------------------

def complexity(program: Program) -> tuple:
    """Smaller is simpler, compared in this order: ops (inside regions too, constants apart),
    values, outputs, typing (symbolic, inside a tuple parameter), parameters other than float32,
    elements, and how far argument and constant values are from zeros and ones."""
    ops = program.node_ops()
    values = len(program.values) + sum(len(region["values"]) for region in _all_regions(program))
    params = [p for _, p in program.params]
    typing = len(program.shape_params) + len(program.prim_params) + sum(p.symbolic for p in params) + \
        sum(bool(p.pack) for p in params)
    other_dtypes = sum(p.dtype != "float32" for p in params)
    elements = sum(int(np.prod(p.shape, dtype=np.int64)) for p in params)
    return (len(ops) - ops.count("const"), values, len(program.outputs), typing, other_dtypes, elements,
            sum(_value_distance(v) for v in program.values))


def _targets(dtype: str, lo: float, hi: float) -> tuple[float, float]:
    """The preferred argument values inside [lo, hi]: the nearest to 0, then the nearest to 1."""
    return float(np.clip(0, lo, hi)), float(np.clip(1, lo, hi))


def _value_distance(value) -> int:
    """Per element: 0 at the zero target, 1 at the one target, 2 elsewhere."""
    array, lo, hi = _literal(value)
    if array is None:
        return 0
    zero, one = _targets(str(array.dtype), lo, hi)
    flat = array.astype("float64").ravel()
    return int(np.sum(np.where(flat == zero, 0, np.where(flat == one, 1, 2))))


def _literal(value) -> tuple[np.ndarray | None, float, float]:
    """A parameter's argument or a constant's value, with the range it may take."""
    if isinstance(value, Param):
        return (value.array(), value.lo, value.hi) if value.value is not None else (None, 0, 0)
    if value.op == "const":
        return np.array(value.attrs["value"], numpy_dtype(value.attrs["dtype"])), -np.inf, np.inf
    return None, 0, 0


# -- moves on main ----------------------------------------------------------------------------

def _unused(program: Program) -> Iterator[Program]:
    yield program.without_unused()  # parameters nothing reads (Hypothesis cannot drop the first)


def _outputs(program: Program) -> Iterator[Program]:
    """Drop an output (one that passes a parameter through first), or return an operand of an
    output node instead of it (the bug may sit below the output)."""
    outputs = program.outputs
    if len(outputs) > 1:
        for k in sorted(range(len(outputs)), key=lambda k: not isinstance(program.values[outputs[k]], Param)):
            yield replace(program, outputs=outputs[:k] + outputs[k + 1:]).without_unused()
    for k, o in enumerate(outputs):
        value = program.values[o]
        if isinstance(value, Node):
            for arg in sorted(dict.fromkeys(value.args), key=lambda a: isinstance(program.values[a], Param)):
                yield replace(program, outputs=outputs[:k] + (arg,) + outputs[k + 1:]).without_unused()


def _bypasses(program: Program) -> Iterator[Program]:
    infos = analyse(program, check_values=False)
    for index in range(len(program.values) - 1, -1, -1):
        value = program.values[index]
        if isinstance(value, Node) and value.op != "const":
            for arg in dict.fromkeys(value.args):
                if same_type(infos[arg], infos[index]):
                    yield _replace_uses(program, index, arg)


def _cuts(program: Program) -> Iterator[Program]:
    for index in range(len(program.values) - 1, -1, -1):
        value = program.values[index]
        if not isinstance(value, Node) or value.op == "const":
            continue
        # Cutting an output whose operands are all parameters would leave nothing to test.
        if index not in program.outputs or \
                any(isinstance(program.values[a], Node) and program.values[a].op != "const" for a in value.args):
            cut = _as_param(program, index)
            if cut is not None:
                yield cut


def _replace_uses(program: Program, old: int, new: int) -> Program:
    values = tuple(Node(v.op, tuple(new if a == old else a for a in v.args), v.attrs) if isinstance(v, Node) else v
                   for v in program.values)
    return replace(program, values=values,
                   outputs=tuple(new if o == old else o for o in program.outputs)).without_unused()


def _as_param(program: Program, index: int) -> Program | None:
    """``program`` with value ``index`` replaced by an input holding its values."""
    info = analyse(program, check_values=False)[index]
    if not isinstance(info, ValueInfo):  # a tuple value: its parts are cut instead
        return None
    sub = replace(program, values=program.values[:index + 1], outputs=(index,))
    array = _finite(evaluate(sub)[0], info.dtype)
    if array is None:
        return None
    lo, hi = float(array.min()), float(array.max())
    param = Param(tuple(info.shape), info.dtype, min(lo, info.lo), max(hi, info.hi), array.tolist(), "input")
    values = program.values[:index] + (param,) + program.values[index + 1:]
    return replace(program, values=values).without_unused()


def _finite(value, dtype: str) -> np.ndarray | None:
    if value is NO_REFERENCE:  # computed by an opaque kernel: no values to stand in for it
        return None
    array = np.asarray(value).astype(numpy_dtype(dtype))
    return array if array.size and np.all(np.isfinite(array.astype("float64"))) else None


def _inlined(program: Program) -> Iterator[Program]:
    """A ``call`` replaced by its body's nodes, an ``if`` by one of its branches."""
    for index, value in enumerate(program.values):
        if isinstance(value, Node) and value.op in ("call", "if"):
            operands = value.args[1:] if value.op == "if" else value.args
            for key in ("body",) if value.op == "call" else ("then", "else"):
                yield _splice(program, index, value.attrs[key], operands)


def _splice(program: Program, index: int, region: dict, operands: Sequence[int]) -> Program:
    """``program`` with node ``index`` replaced by the nodes of ``region`` run on ``operands``."""
    n = len(operands)

    def outer(k: int) -> int:  # a region index, in main after the splice
        return operands[k] if k < n else index + k - n

    body = tuple(Node(node["op"], tuple(outer(int(a)) for a in node["args"]), node["attrs"])
                 for node in region["values"])
    result, shift = outer(region["outputs"][0]), len(body) - 1

    def moved(a: int) -> int:
        return result if a == index else a + shift if a > index else a

    rest = tuple(Node(v.op, tuple(moved(a) for a in v.args), v.attrs) if isinstance(v, Node) else v
                 for v in program.values[index + 1:])
    return replace(program, values=program.values[:index] + body + rest,
                   outputs=tuple(moved(o) for o in program.outputs)).without_unused()


# -- moves inside regions ---------------------------------------------------------------------

@dataclass(frozen=True)
class _Site:
    """A function body or If branch: where it sits, its parameters' facts and, when the region
    runs with known arguments (a call, the branch taken), their values."""

    path: tuple[tuple[int, str], ...]  # (node position in its container, attribute key) from main down
    region: dict
    params: tuple
    arguments: tuple | None


def _all_regions(program: Program) -> Iterator[dict]:
    def walk(nodes) -> Iterator[dict]:
        for attrs in nodes:
            for key in REGION_KEYS:
                if isinstance(attrs.get(key), dict) and "values" in attrs[key]:
                    yield attrs[key]
                    yield from walk(n["attrs"] for n in attrs[key]["values"])
    return walk(v.attrs for v in program.nodes)


def _sites(program: Program) -> Iterator[_Site]:
    infos = analyse(program, check_values=False)
    try:
        with np.errstate(all="ignore"):
            values = evaluate_all(program)
    except Exception:  # noqa: BLE001 - no concrete values: the cuts, which need them, are skipped
        values = None
    nodes = [(i, i, v.op, v.args, v.attrs) for i, v in enumerate(program.values) if isinstance(v, Node)]
    yield from _sites_in(nodes, infos, values, ())


def _sites_in(nodes, infos, values, path) -> Iterator[_Site]:
    """The regions of ``nodes``: (position in their container, value index, op, args, attrs)."""
    for position, _, op, args, attrs in nodes:
        if op not in ("call", "if"):
            continue
        operands = args[1:] if op == "if" else args
        params = tuple(infos[a] for a in operands)
        for key in ("body",) if op == "call" else ("then", "else"):
            region = attrs[key]
            taken = op == "call" or (values is not None and values[args[0]] is not NO_REFERENCE
                                     and bool(values[args[0]]) == (key == "then"))
            arguments = tuple(values[a] for a in operands) if values is not None and taken else None
            site = _Site(path + ((position, key),), region, params, arguments)
            yield site
            n = len(params)
            inner = [(j, n + j, node["op"], [int(a) for a in node["args"]], node["attrs"])
                     for j, node in enumerate(region["values"])]
            inner_values = _evaluate_region_all(region, arguments) if arguments is not None else None
            yield from _sites_in(inner, analyse_region(region, params), inner_values, site.path)


def _evaluate_region_all(region: dict, arguments: Sequence) -> list | None:
    """Every value of ``region`` (its parameters first), or None if a reference raises."""
    values = list(arguments)
    try:
        with np.errstate(all="ignore"):
            for node in region["values"]:
                values.append(reference_value(BY_NAME[node["op"]], [values[int(a)] for a in node["args"]],
                                              node["attrs"]))
    except Exception:  # noqa: BLE001
        return None
    return values


def _with_region(program: Program, path, region: dict) -> Program:
    """``program`` with the region at ``path`` replaced: its first step indexes main's values,
    the next ones a region's node list."""
    (position, key), rest = path[0], path[1:]
    node = program.values[position]
    attrs = {**node.attrs, key: _set_in(node.attrs[key], rest, region) if rest else region}
    return replace(program, values=program.values[:position] + (Node(node.op, node.args, attrs),)
                   + program.values[position + 1:])


def _set_in(container: dict, path, region: dict) -> dict:
    (position, key), rest = path[0], path[1:]
    node = container["values"][position]
    nodes = list(container["values"])
    nodes[position] = {**node, "attrs": {**node["attrs"], key: _set_in(node["attrs"][key], rest, region)
                                         if rest else region}}
    return {**container, "values": nodes}


def _region_moves(program: Program) -> Iterator[Program]:
    for site in _sites(program):
        n, region = len(site.params), site.region
        infos = analyse_region(region, site.params)
        result = region["outputs"][0]
        yield _with_region(program, site.path, _region_without_unused(region, n))
        for k in range(len(infos) - 1, n - 1, -1):  # bypass a node by an operand of its type
            node = region["values"][k - n]
            if node["op"] == "const":
                continue
            for arg in dict.fromkeys(int(a) for a in node["args"]):
                if same_type(infos[arg], infos[k]):
                    yield _with_region(program, site.path, _region_replace_uses(region, n, k, arg))
        for p in range(n):  # return a parameter: an empty body
            if p != result and same_type(infos[p], infos[result]):
                yield _with_region(program, site.path, _region_without_unused({**region, "outputs": [p]}, n))
        if site.arguments is None:
            continue
        values = _evaluate_region_all(region, site.arguments)
        for k in range(len(infos) - 1, n - 1, -1):  # cut a node into a constant
            node = region["values"][k - n]
            if node["op"] == "const" or not isinstance(infos[k], ValueInfo) or values is None:
                continue
            array = _finite(values[k], infos[k].dtype)
            if array is None:
                continue
            const = {"op": "const", "args": [], "attrs": {"shape": list(array.shape), "dtype": infos[k].dtype,
                                                          "value": array.tolist()}}
            nodes = list(region["values"])
            nodes[k - n] = const
            yield _with_region(program, site.path, _region_without_unused({**region, "values": nodes}, n))


def _region_replace_uses(region: dict, n: int, old: int, new: int) -> dict:
    nodes = [{**node, "args": [new if int(a) == old else int(a) for a in node["args"]]} for node in region["values"]]
    outputs = [new if o == old else o for o in region["outputs"]]
    return _region_without_unused({**region, "values": nodes, "outputs": outputs}, n)


def _region_without_unused(region: dict, n: int) -> dict:
    """The region without the nodes its result does not depend on, renumbered."""
    nodes = region["values"]
    live = set(region["outputs"])
    for k in range(n + len(nodes) - 1, n - 1, -1):
        if k in live:
            live.update(int(a) for a in nodes[k - n]["args"])
    keep = [k for k in range(n, n + len(nodes)) if k in live]
    renumber = {k: k for k in range(n)} | {old: n + new for new, old in enumerate(keep)}
    kept = [{**nodes[k - n], "args": [renumber[int(a)] for a in nodes[k - n]["args"]]} for k in keep]
    return {**region, "values": kept, "outputs": [renumber[o] for o in region["outputs"]]}


# -- typing and values ------------------------------------------------------------------------

def _static(program: Program) -> Iterator[Program]:
    symbolic = [i for i, p in program.params if p.symbolic]
    if not symbolic and not program.shape_params and not program.prim_params:
        return
    everything = [replace(v, dims=(), unknown_rank=False) if isinstance(v, Param) else v for v in program.values]
    yield replace(program, values=tuple(everything), shape_params=(), prim_params=())
    for i in symbolic:
        param = program.values[i]
        values = program.values[:i] + (replace(param, dims=(), unknown_rank=False),) + program.values[i + 1:]
        yield program.with_live_symbols(values)  # drops the shape and prim parameters left unused
    for k in range(len(program.shape_params)):
        yield replace(program, shape_params=program.shape_params[:k] + program.shape_params[k + 1:])
    for k, prim in enumerate(program.prim_params):
        # The variable stays, defined by the tensors that use it; or it becomes static where it is used.
        yield replace(program, prim_params=program.prim_params[:k] + program.prim_params[k + 1:])
        inlined = [replace(v, dims=tuple("" if d == prim.name else d for d in v.dims)) if isinstance(v, Param) else v
                   for v in program.values]
        yield program.with_live_symbols(inlined)


def _float32(program: Program) -> Iterator[Program]:
    """Parameters as float32: all at once (operands of one op must agree), then one by one."""
    others = [i for i, v in enumerate(program.values) if isinstance(v, Param) and v.dtype not in ("float32", "bool")
              and representable("float32", v.lo, v.hi)]
    for chosen in ([others] if len(others) > 1 else []) + [[i] for i in others]:
        values = list(program.values)
        for i in chosen:
            values[i] = replace(values[i], dtype="float32", value=values[i].array().astype("float32").tolist())
        yield replace(program, values=tuple(values))


def _unpacked(program: Program) -> Iterator[Program]:
    """Inputs out of tuple parameters: all at once, then one by one."""
    packed = [i for i, v in enumerate(program.values) if isinstance(v, Param) and v.pack]
    for chosen in ([packed] if len(packed) > 1 else []) + [[i] for i in packed]:
        yield replace(program, values=tuple(replace(v, pack=()) if i in chosen else v
                                            for i, v in enumerate(program.values)))


def _simpler_values(program: Program) -> Iterator[Program]:
    """Each parameter's argument (and each constant) toward zeros, then ones, inside its range:
    the whole array first, then halves, quarters, ... down to single elements."""
    for i, value in enumerate(program.values):
        array, lo, hi = _literal(value)
        if array is None or _value_distance(value) == 0:
            continue
        for target in _targets(str(array.dtype), lo, hi):
            flat = array.ravel()
            sizes = [flat.size]
            while flat.size <= MAX_VALUE_CHUNKS and sizes[-1] > 1:
                sizes.append((sizes[-1] + 1) // 2)
            for size in sizes:
                for start in range(0, flat.size, size):
                    chunk = flat.copy()
                    chunk[start:start + size] = target
                    if not np.array_equal(chunk, flat):
                        yield _with_literal(program, i, chunk.reshape(array.shape))


def _with_literal(program: Program, index: int, array: np.ndarray) -> Program:
    value = program.values[index]
    if isinstance(value, Param):
        new = replace(value, value=array.tolist())
    else:
        new = Node(value.op, value.args, {**value.attrs, "value": array.tolist()})
    return replace(program, values=program.values[:index] + (new,) + program.values[index + 1:])


MOVES: tuple[Callable[[Program], Iterator[Program]], ...] = (
    _unused, _outputs, _bypasses, _region_moves, _cuts, _inlined, _static, _unpacked, _float32, _simpler_values)


def fewest_keys(items: Sequence, shows: Callable[[list], bool]) -> list:
    """The fewest of ``items`` (a drawn PassContext configuration's (key, value) pairs) for which
    ``shows`` still holds: each dropped in turn, the last first, kept out when the finding shows
    without it (each try runs both sides, so one pass, not a search: no item left can be dropped alone)."""
    kept = list(items)
    for index in reversed(range(len(kept))):
        fewer = kept[:index] + kept[index + 1:]
        if shows(fewer):
            kept = fewer
    return kept

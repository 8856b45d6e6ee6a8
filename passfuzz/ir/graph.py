"""Static analysis of Programs through the catalogue, and the sketch programs are built in.

``analyse`` is the one validity check: every consumer of a Program (generation, the reducer,
the corpus loader) relies on it, so a Program that analyses cleanly is well typed and free of
undefined behaviour for every argument inside the declared parameter ranges.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Callable, Sequence

import numpy as np

from passfuzz.ir.catalogue.base import (
    DTYPES,
    NO_REFERENCE,
    RTOL,
    fit,
    is_float,
    leaves,
    representable,
)
from passfuzz.ir.catalogue.structure import reference_value

from .catalogue import BY_NAME, Chooser, OpError, ValueInfo, infer_application
from .catalogue.kernels import inplace_operands
from .program import EFFECTS, Node, Param, Program, ProgramError, dim_names, dim_value, numpy_dtype


def param_info(param: Param) -> ValueInfo:
    return ValueInfo(tuple(param.shape), param.dtype, float(param.lo), float(param.hi), True,
                     shape_value=param.shape_value)


def infer_node(node: Node, infos: Sequence[ValueInfo], where: str = "node") -> ValueInfo:
    try:
        return infer_application(node.op, node.args, infos, node.attrs)
    except OpError as exc:
        raise ProgramError(f"{where} ({node.op}): {exc}") from None


def analyse(program: Program, check_values: bool = True) -> list[ValueInfo]:
    """The ValueInfo of every value; raises ProgramError on the first invalid one."""
    infos: list[ValueInfo] = []
    for i, value in enumerate(program.values):
        where = f"values[{i}]"
        if isinstance(value, Param):
            if value.dtype not in DTYPES or value.role not in ("input", "weight"):
                raise ProgramError(f"{where}: unsupported dtype or role")
            if value.pack and len(value.pack) < 2:
                raise ProgramError(f"{where}.pack: a tuple parameter's item sits at (group, item, ...)")
            if any(not isinstance(d, int) or d < 1 for d in value.shape) or not value.lo <= value.hi \
                    or not representable(value.dtype, value.lo, value.hi):
                raise ProgramError(f"{where}: bad shape or range")
            if value.shape_value and (value.dtype != "int64" or len(value.shape) != 1 or value.lo < 0 or
                                      value.prim or value.pack or value.dims or value.role != "input"):
                raise ProgramError(f"{where}: an R.Shape value is an input of int64 sizes >= 0, of shape (k,)")
            if check_values:
                try:
                    array = value.array()
                except (ValueError, TypeError, OverflowError) as exc:
                    raise ProgramError(f"{where}.value: does not match shape and dtype: {exc}") from None
                if array.size and not (value.lo <= array.astype("float64").min()
                                       and array.astype("float64").max() <= value.hi):
                    raise ProgramError(f"{where}.value: element outside the declared range")
            infos.append(param_info(value))
        else:
            infos.append(infer_node(value, infos, where))
    if not program.outputs or any(not 0 <= o < len(infos) for o in program.outputs):
        raise ProgramError("outputs: empty or refers to a missing value")
    program.signature()  # raises ProgramError for tuple parameters that do not nest
    check_symbols(program)
    check_prims(program)
    check_effects(program)
    check_inplace(program)
    return infos


def check_effects(program: Program) -> None:
    """An effect (``program.EFFECTS``: a print) sits in main, where relax_build keeps it outside
    dataflow blocks of an impure function, and is no output (its value is none; nothing reads it:
    ``infer_application``)."""
    if sum(op in EFFECTS for op in program.node_ops()) != sum(n.op in EFFECTS for n in program.nodes):
        raise ProgramError("an effect (print) inside a function body or branch")
    if any(isinstance(program.values[o], Node) and program.values[o].op in EFFECTS for o in program.outputs):
        raise ProgramError("outputs: a print, whose value is none")


def check_inplace(program: Program) -> None:
    """An in-place kernel (``call_tir`` with ``inplace``, catalogue/kernels.py) sits in main and
    overwrites only tensor inputs of main that nothing else reads and that are no output, so that
    no pass can read an overwritten value, whatever it reorders or merges."""
    if sum(op == "call_tir" and bool(attrs.get("inplace")) for op, attrs in program.every_node()) != \
            sum(n.op == "call_tir" and bool(n.attrs.get("inplace")) for n in program.nodes):
        raise ProgramError("an in-place kernel inside a function body or branch")
    reads = Counter(a for n in program.nodes for a in n.args) + Counter(program.outputs)
    for i, value in enumerate(program.values):
        if not (isinstance(value, Node) and value.op == "call_tir" and value.attrs.get("inplace")):
            continue
        for position in inplace_operands(value.attrs):
            a = value.args[position]
            operand = program.values[a]
            if not (isinstance(operand, Param) and operand.role == "input" and not operand.prim and not operand.pack):
                raise ProgramError(f"values[{i}] (call_tir): operand {position}, which it overwrites, "
                                   "is not a tensor input of main")
            if reads[a] != 1:
                raise ProgramError(f"values[{i}] (call_tir): operand {position}, which it overwrites, "
                                   "is read elsewhere or is an output")


def check_prims(program: Program) -> None:
    """An R.Prim scalar parameter (``Param.prim``) is a plain input of shape () that only ops
    taking a PrimValue read (``OpDef.takes_prims``), an If as its condition, a kernel where it
    took one (``call_tir``'s ``prims``), or an If whose branches read it so; no function body and
    no output takes one in TVM. A kernel's ``prims`` operands are such parameters, and only those.
    A literal R.prim_value (a const marked ``prim``) is held to the same."""
    prims = {i for i, v in enumerate(program.values) if isinstance(v, Param) and v.prim}
    for i in sorted(prims):
        param = program.values[i]
        if param.shape != () or param.role != "input" or param.pack or param.dims or param.unknown_rank:
            raise ProgramError(f"values[{i}]: an R.Prim parameter is an input of shape (), typed statically")
    nodes = [(k, {"op": v.op, "args": list(v.args), "attrs": v.attrs}) for k, v in enumerate(program.values)
             if isinstance(v, Node)]
    _prims_in_scope(nodes, prims, list(program.outputs), "values")


def _prims_in_scope(nodes: list[tuple[int, dict]], prims: set[int], outputs: list[int], where: str) -> None:
    """``check_prims`` on one scope (``main``, a function body, a branch): ``prims`` are the
    indices there that are R.Prim parameters; literal R.prim_values (a const marked ``prim``) are too."""
    prims = prims | {k for k, node in nodes if node["op"] == "const" and node["attrs"].get("prim")}
    if prims & set(outputs):
        raise ProgramError(f"{where}: an R.Prim parameter is no output")
    for k, node in nodes:
        op, args, attrs = node["op"], node["args"], node["attrs"]
        kernel = set(attrs.get("prims", ())) if op == "call_tir" else set()
        for position, a in enumerate(args):
            if position in kernel and a not in prims:
                raise ProgramError(f"{where}[{k}] (call_tir): operand {position} is the kernel's R.Prim scalar")
            if a in prims and position not in kernel and not BY_NAME[op].takes_prims and op != "if":
                raise ProgramError(f"{where}[{a}]: read by {op}, which takes no R.Prim operand")
        for key in ("body", "then", "else"):  # a region's first values are its operands (an If's after the condition)
            region = attrs.get(key)
            if isinstance(region, dict) and "values" in region:
                skip = 1 if op == "if" else 0
                inner = {position - skip for position, a in enumerate(args) if a in prims and position >= skip}
                _prims_in_scope(list(enumerate(region["values"], len(args) - skip)), inner, region["outputs"],
                                f"{where}[{k}].{key}")


def output_leaves(program: Program, infos: Sequence) -> list[tuple[int, ValueInfo]]:
    """(value index, facts) of each tensor of the outputs, in the order the VM result flattens."""
    return [(o, leaf) for o in program.outputs for leaf in leaves(infos[o])]


def rounding_dtypes(program: Program, infos: Sequence) -> list[str]:
    """Per value: the float dtype whose rounding bounds its error, the coarsest (largest RTOL)
    among its own and those of every value it is computed from ("" when none is a float). A
    float32 matmul of bfloat16 products carries bfloat16's error, and its tolerance must too."""
    coarsest: list[str] = []
    for i, value in enumerate(program.values):
        found = [leaf.dtype for leaf in leaves(infos[i]) if is_float(leaf.dtype)]
        if isinstance(value, Node):
            found += [coarsest[a] for a in value.args if coarsest[a]]
        coarsest.append(max(found, key=RTOL.__getitem__) if found else "")
    return coarsest


def flatten(value, info=None) -> list:
    """A reference value (an array, or nested tuples of arrays) as its tensors, depth first;
    NO_REFERENCE stands for each tensor of ``info``, the value's facts (for one without them)."""
    if value is NO_REFERENCE:
        return [NO_REFERENCE] * (len(leaves(info)) if info is not None else 1)
    return [leaf for item in value for leaf in flatten(item)] if isinstance(value, tuple) else [value]


def check_symbols(program: Program) -> None:
    """The symbolic typing is consistent: one dimension name per dim, a name stands for one
    concrete size, an expression dim is its size for those of its variables (each defined by a
    dim, an R.Shape or an R.Prim parameter), every shape parameter defines names the tensor
    parameters use, and every primitive parameter is such a name, defined before any parameter
    uses it."""
    sizes: dict[str, int] = {}
    for i, param in program.params:
        where = f"values[{i}].dims"
        if param.dims and (len(param.dims) != len(param.shape) or param.unknown_rank):
            raise ProgramError(f"{where}: one entry per dimension, and none with an unknown rank")
        if param.unknown_rank and param.pack:
            raise ProgramError(f"values[{i}]: a parameter inside a tuple has a known rank")
        if param.unknown_rank and param.role != "input":
            # TVM 0.27's VMShapeLower segfaults on a function with num_input whose weight has an
            # unknown shape, so such a program would not even compile unoptimized.
            raise ProgramError(f"values[{i}]: only an input may have an unknown rank")
        for name, size in zip(param.dims, param.shape):
            if name and name.isidentifier() and sizes.setdefault(name, size) != size:
                raise ProgramError(f"{where}: {name!r} stands for two sizes")
    # an expression's variables are defined where a variable can be: a dim of its own, an R.Shape
    # or R.Prim parameter
    defined = set(sizes) | {n for names in program.shape_params for n in names} | {p.name for p in program.prim_params}
    solved = program.symbol_values()  # with the variables only expressions name
    for i, param in program.params:
        for dim, size in zip(param.dims, param.shape):
            if dim and not dim.isidentifier():
                if any(n not in defined or n not in solved for n in dim_names(dim)) or dim_value(dim, solved) != size:
                    raise ProgramError(f"values[{i}].dims: {dim!r} is not {size} for sizes of variables defined "
                                       "by a dim, an R.Shape or an R.Prim parameter")
    sizes = solved
    for k, names in enumerate(program.shape_params):
        if not names or any(name not in sizes for name in names):
            raise ProgramError(f"shape_params[{k}]: names no symbolic dimension of a tensor parameter")
    shaped = {name for names in program.shape_params for name in names}
    input_names = {name for _, p in program.params if p.role == "input" for d in p.dims for name in dim_names(d)}
    for k, prim in enumerate(program.prim_params):
        where = f"prim_params[{k}]"
        if prim.role not in ("input", "weight") or prim.name not in sizes or prim.name in shaped or \
                [p.name for p in program.prim_params].count(prim.name) > 1:
            raise ProgramError(f"{where}: an input or weight naming a symbolic dimension of a tensor "
                               "parameter, once, and not an R.Shape parameter's too")
        if prim.role == "weight" and prim.name in input_names:
            # main takes the weights after the inputs, and a variable is defined where first used
            raise ProgramError(f"{where}: a weight cannot define a variable an input uses")


class ProgramSketch:
    """A Program under construction; ops add to it while proposing (catalogue.Sketch)."""

    depth = 0

    def __init__(self, chooser: Chooser, dtypes: Sequence[str] = DTYPES, ops: Sequence | None = None,
                 const_dtypes: Sequence[str] = ()):
        self.chooser = chooser
        self.dtypes = tuple(dtypes)  # what new parameters and constants may be
        # what new constants may be besides (a loss program's integer indices and bool conditions:
        # Gradient differentiates float parameters, and a constant stays put under finite differences)
        self.const_dtypes = tuple(const_dtypes)
        self.ops = ops  # the OpDefs function bodies and branches draw from (None: the whole catalogue)
        self.values: list[Param | Node | None] = []
        self.infos: list = []
        self.dead: set[int] = set()  # values no output is to read (dead code on purpose)

    def attempt(self, propose: Callable[[], None]) -> bool:
        """Run an op's ``propose``; if it needs a parameter or constant of a dtype this sketch
        does not allow (OpError), undo what it added and return False."""
        size = len(self.values)
        try:
            propose()
            return True
        except OpError:
            del self.values[size:], self.infos[size:]
            self.dead = {d for d in self.dead if d < size}
            return False

    def candidates(self, accept: Callable[[ValueInfo], bool], tuples: bool = False) -> list[int]:
        """Values ``accept`` takes; tuples are offered only to ops that take them, R.Shape values
        (``ValueInfo.shape_value``) to none (the shape ops look for them themselves)."""
        return [i for i, info in enumerate(self.infos) if (tuples or isinstance(info, ValueInfo))
                and not getattr(info, "shape_value", False) and accept(info)]

    def region(self, params: Sequence) -> "RegionSketch":
        return RegionSketch(self, params)

    def add(self, op: str, args: Sequence[int], attrs: dict | None = None) -> int:
        node = Node(op, tuple(args), dict(attrs or {}))
        self.infos.append(infer_node(node, self.infos))  # a failure here is a bug in op.propose
        self.values.append(node)
        return len(self.values) - 1

    def _allow(self, dtype: str) -> None:
        if dtype not in self.dtypes:
            raise OpError(f"{dtype} is not among the dtypes drawn ({', '.join(self.dtypes)})")

    def add_const(self, shape: tuple[int, ...], dtype: str, lo: float, hi: float) -> int:
        if dtype not in self.const_dtypes:
            self._allow(dtype)
        lo, hi = fit(dtype, lo, hi)
        array = self.chooser.array(tuple(shape), dtype, lo, hi)
        return self.add("const", [], {"shape": list(shape), "dtype": dtype, "value": array.tolist()})

    def add_param(self, shape: tuple[int, ...], dtype: str, lo: float, hi: float, role: str = "input") -> int:
        # The argument is drawn in finish(), after the whole structure (better shrinking).
        self._allow(dtype)
        lo, hi = fit(dtype, lo, hi)
        self.values.append(Param(tuple(shape), dtype, lo, hi, None, role))
        self.infos.append(param_info(self.values[-1]))
        return len(self.values) - 1

    def mark_dead(self, index: int) -> None:
        """Leave value ``index`` out of the outputs while nothing reads it (a motif's dead code)."""
        self.dead.add(index)

    def sinks(self) -> list[int]:
        """The values no node consumes, except those marked dead (unless nothing else is left)."""
        used = {a for v in self.values if isinstance(v, Node) for a in v.args}
        sinks = [i for i, v in enumerate(self.values) if isinstance(v, Node) and i not in used]
        return [i for i in sinks if i not in self.dead] or sinks

    def finish(self, outputs: Sequence[int]) -> Program:
        values = []
        for v in self.values:
            if isinstance(v, Param):
                v = replace(v, value=self.chooser.array(v.shape, v.dtype, v.lo, v.hi).tolist())
            values.append(v)
        return Program(tuple(values), tuple(outputs))


class RegionSketch(ProgramSketch):
    """A function body or If branch under construction: its first values are its parameters
    (placeholders), and it may add nodes and constants but no parameters of ``main``."""

    def __init__(self, parent: ProgramSketch, params: Sequence):
        super().__init__(parent.chooser, parent.dtypes, parent.ops)
        self.depth = parent.depth + 1
        self.values = [None] * len(params)
        self.infos = list(params)

    def add_param(self, shape, dtype, lo, hi, role="input") -> int:
        raise OpError("a function body takes only its own parameters")

    def finish_region(self, result: int) -> dict:
        nodes = [{"op": v.op, "args": list(v.args), "attrs": v.attrs} for v in self.values if isinstance(v, Node)]
        return {"values": nodes, "outputs": [result]}


def evaluate_all(program: Program, arguments: Sequence | None = None) -> list:
    """Every value of ``program`` (parameters and nodes), computed with the numpy references: an
    array, or for a tuple value a tuple of them. ``arguments`` (one array per Param, in the
    Program's order) replace the Program's own."""
    given = {} if arguments is None else {i: a for (i, _), a in zip(program.params, arguments)}
    results: list = []
    for i, value in enumerate(program.values):
        if isinstance(value, Param):
            # an R.Prim scalar's argument is a Python value: as an array, its dtype is the parameter's
            results.append(value.array() if i not in given else
                           np.asarray(given[i], numpy_dtype(value.dtype)) if value.prim else given[i])
        else:
            results.append(reference_value(BY_NAME[value.op], [results[a] for a in value.args], value.attrs))
    return results


def evaluate(program: Program) -> list:
    """The tensors of the outputs of ``program`` (tuples flattened, as the VM's result is),
    computed with the catalogue's numpy references: NO_REFERENCE for each tensor computed from an
    opaque kernel."""
    results = evaluate_all(program)
    infos = analyse(program, check_values=False) if any(results[o] is NO_REFERENCE for o in program.outputs) \
        else [None] * len(results)
    return [leaf for o in program.outputs for leaf in flatten(results[o], infos[o])]

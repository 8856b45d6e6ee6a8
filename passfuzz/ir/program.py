"""The Program: the one source of truth for a test case.

A Program is plain data: an SSA list of values, each either a function parameter (with its
declared value range and its concrete argument) or an op application that names earlier values
by index. It holds no TVM object; the Relax module, the numpy reference and the reproducer are
all derived from it. ``to_json``/``from_json`` round-trip it exactly (float32, float16,
bfloat16 and float64 values survive a trip through a Python float unchanged).

An input or a weight may sit inside a tuple parameter of ``main``: its ``pack`` is (group, item,
...), and the parameters of one group (all inputs, or all weights: ``packed_params``) form one
(nested) tuple parameter, items ordered by their paths (so dropping an unused one never leaves a
gap). The body reads each through TupleGetItem.

Parameters are of two roles. ``input`` parameters are runtime inputs; ``weight`` parameters
are model weights. The built ``main`` lists inputs first, then weights, and carries the
``num_input`` attribute when there are weights, which is what LiftTransformParams and the
other parameter passes act on.

Symbolic shapes are a matter of how ``main`` is typed, not of the values: the concrete shape of
every parameter is always known (it is the argument's), and the static analysis works on it. A
parameter may name a symbolic variable per dimension (``dims``; the same name is the same
variable, so those dimensions are equal), or be typed with an unknown rank (``unknown_rank``).
``shape_params`` are ``R.Shape([...])`` parameters that define such variables too; ``main`` takes
them after the tensor inputs (they count as inputs), and their arguments are the concrete dims.
``prim_params`` are ``R.Prim("int64")`` parameters (printed back as ``n: T.int64``): in TVM 0.27
such a parameter *is* the symbolic variable, so it defines it for the tensor parameters after it,
and its argument is a Python int. It is an input or a weight; ``main`` takes it just before the
first parameter of its role whose type names it (the variable must be defined before it is used).
An R.Prim parameter of another dtype (``R.Prim("float32")``, ``R.Prim("bool")``), or an int64 one
no parameter's type names (``index: T.int64`` read by a take), is a value, not a variable: a Param
of shape () with ``prim`` set, whose argument is a Python float, bool or int, which only binary
elementwise ops, a take's index, an If's condition and a kernel taking a scalar read
(``graph.check_prims``).

An R.Shape parameter whose values no type names (``s: R.Shape(ndim=2)``, as TVM's tests give
``shape_to_tensor``) is a value too: a Param of shape (k,), dtype int64, ``shape_value`` set (with
``unknown_rank``, typed ``R.Shape(ndim=-1)``), whose argument is a tuple of k ints; such values
(and those the shape ops compute) stay in ``main``, read only by ops taking an R.Shape
(``OpDef.takes_shapes``), and may be its outputs (the VM returns a ShapeTuple).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Union

import ml_dtypes  # numpy's bfloat16 (a dependency of apache-tvm)
import numpy as np


def numpy_dtype(name: str) -> np.dtype:
    """The numpy dtype of a dtype name; the one place arrays get their dtype, since numpy itself
    has no bfloat16 (``ml_dtypes`` provides it)."""
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


class ProgramError(ValueError):
    """A Program that is not well formed: a bad reference, a type error, an invalid range."""


# -- a dimension written as an expression of variables ("n * 3", "4 * c", "m - 1") ------------------

def _floordiv(a, b):
    if isinstance(b, int) and b == 0:
        raise ProgramError("a dim divides by a variable of size 0")
    return a // b


_DIM_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
            ast.FloorDiv: _floordiv}


def _dim_tree(dim: str):
    """The parsed expression of a dim entry; ProgramError unless it is ints and names joined by
    + - * //."""
    try:
        tree = ast.parse(dim, mode="eval").body
    except SyntaxError:
        raise ProgramError(f"dim {dim!r} is not a name nor an expression of names and ints") from None
    for node in ast.walk(tree):
        if not isinstance(node, (ast.BinOp, ast.Name, ast.Constant, ast.Load, *_DIM_OPS)) or \
                (isinstance(node, ast.Constant) and type(node.value) is not int):
            raise ProgramError(f"dim {dim!r}: only ints and names joined by + - * //")
    return tree


def dim_names(dim: str) -> list[str]:
    """The variables a dim entry names: itself for a name, those of an expression, none for ""."""
    if not dim or dim.isidentifier():
        return [dim] if dim else []
    return list(dict.fromkeys(n.id for n in ast.walk(_dim_tree(dim)) if isinstance(n, ast.Name)))


def dim_value(dim: str, sizes: dict):
    """A dim entry's size given its variables' (KeyError for one not among ``sizes``, ProgramError
    for a division by 0); given TIR variables instead, its TIR expression."""
    def value(node):
        if isinstance(node, ast.Name):
            return sizes[node.id]
        if isinstance(node, ast.Constant):
            return node.value
        return _DIM_OPS[type(node.op)](value(node.left), value(node.right))
    return sizes[dim] if dim.isidentifier() else value(_dim_tree(dim))


def _sized(dim: str, sizes: dict[str, int]) -> int | None:
    try:
        return dim_value(dim, sizes)
    except ProgramError:
        return None


# Ops whose call is its effect (``print``): nothing reads their value, yet they stay, in main only,
# outside dataflow blocks of a function built impure (passfuzz.relax.build).
EFFECTS = frozenset({"print"})


@dataclass(frozen=True)
class Param:
    shape: tuple[int, ...]
    dtype: str
    lo: float
    hi: float
    value: Any  # nested lists, exactly as np.ndarray.tolist() gives them
    role: str = "input"  # "input" or "weight"
    pack: tuple[int, ...] = ()  # (group, item, ...) inside a tuple parameter; () = a tensor parameter
    # per dimension: a symbolic variable's name, an expression of them ("n * 3"), or "" (static); () all static
    dims: tuple[str, ...] = ()
    unknown_rank: bool = False  # typed R.Tensor(dtype=..., ndim=-1)
    prim: bool = False  # typed R.Prim(dtype): a scalar (shape ()) the VM takes as a Python value
    shape_value: bool = False  # typed R.Shape(ndim=k): an int64 vector of k sizes the VM takes as a ShapeTuple

    def argument(self):
        """The argument ``main`` takes for it: its array, for an R.Prim scalar the Python value, for
        an R.Shape value the tuple of its ints."""
        if self.shape_value:
            return tuple(int(v) for v in self.array())
        return self.array().item() if self.prim else self.array()

    @property
    def symbolic(self) -> bool:
        return self.unknown_rank or any(self.dims)

    def array(self) -> np.ndarray:
        return np.array(self.value, dtype=numpy_dtype(self.dtype)).reshape(self.shape)


@dataclass(frozen=True)
class Node:
    op: str
    args: tuple[int, ...]
    attrs: dict = field(default_factory=dict)


Value = Union[Param, Node]


def parameter_dependent(values) -> set[int]:
    """The indices of ``values`` (Params, Nodes, or None for a slot not filled) computed from a
    parameter, parameters included."""
    varying: set[int] = set()
    for index, value in enumerate(values):
        if isinstance(value, Param) or (isinstance(value, Node) and varying.intersection(value.args)):
            varying.add(index)
    return varying


@dataclass(frozen=True)
class PrimParam:
    """An ``R.Prim("int64")`` parameter of ``main``: the symbolic variable ``name`` itself."""
    name: str
    role: str = "input"  # "input" or "weight"


@dataclass(frozen=True)
class Program:
    values: tuple[Value, ...]
    outputs: tuple[int, ...]
    shape_params: tuple[tuple[str, ...], ...] = ()  # R.Shape([names]) parameters of main, after the inputs
    prim_params: tuple[PrimParam, ...] = ()  # R.Prim("int64") parameters, each before its variable's first use

    # How Hypothesis' falsifying-example output (and IPython) shows a Program: set by a layer that
    # can print the module it builds as TVMScript (passfuzz.testing), since this floor knows no TVM;
    # None, or a printer that fails, shows the dataclass.
    pretty_text: ClassVar[Callable[["Program"], str] | None] = None

    def _repr_pretty_(self, printer, cycle: bool) -> None:
        text = None
        if not cycle and Program.pretty_text is not None:
            try:
                text = Program.pretty_text(self)
            except Exception:  # noqa: BLE001 - a failing example must still print
                text = None
        printer.text(text if text is not None else repr(self))

    # -- views -------------------------------------------------------------------------
    def signature(self) -> list:
        """``main``'s parameters in order (runtime inputs, then weights): the value index of a
        tensor parameter, or for a tuple parameter a tuple of such entries (nested)."""
        entries: list = []
        groups: dict[int, list[tuple[tuple[int, ...], int]]] = {}
        for role in ("input", "weight"):
            for i, v in enumerate(self.values):
                if isinstance(v, Param) and v.role == role:
                    if not v.pack:
                        entries.append(i)
                    elif v.pack[0] not in groups:  # the tuple sits where its first item is
                        groups[v.pack[0]] = [(v.pack[1:], i)]
                        entries.append(groups[v.pack[0]])
                    elif self.values[groups[v.pack[0]][0][1]].role != role:
                        raise ProgramError(f"values[{i}].pack: a tuple parameter holds inputs and weights")
                    else:
                        groups[v.pack[0]].append((v.pack[1:], i))
        return [_nest(e) if isinstance(e, list) else e for e in entries]

    @property
    def params(self) -> list[tuple[int, Param]]:
        """The parameters, in the order ``main`` takes them (tuple parameters flattened)."""
        return [(i, self.values[i]) for i in _flat(self.signature())]

    @property
    def num_input(self) -> int | None:
        """The ``num_input`` attribute of ``main``; None when the program has no weights."""
        roles = [role for role, _, _ in self.main_parameters()]
        return roles.count("input") if "weight" in roles else None

    def main_parameters(self) -> list[tuple[str, str, Any]]:
        """Every parameter of ``main`` in order, as (role, kind, what): ("tensor", an entry of
        ``signature()``), ("shape", its names) or ("prim", a PrimParam). Inputs come first, the
        R.Shape parameters close them, then the weights; a primitive parameter sits just before
        the first parameter of its role that names its variable (else at the end of its role's
        tensors)."""
        tensors = {"input": [], "weight": []}
        for entry in self.signature():
            tensors[self.entry_role(entry)].append(entry)
        ordered: list[tuple[str, str, Any]] = []
        for role in ("input", "weight"):
            prims = [p for p in self.prim_params if p.role == role]
            for entry in tensors[role]:
                names = {n for i in _flat([entry]) for d in self.values[i].dims for n in dim_names(d)}
                ordered += [(role, "prim", p) for p in prims if p.name in names]
                prims = [p for p in prims if p.name not in names]
                ordered.append((role, "tensor", entry))
            ordered += [(role, "prim", p) for p in prims]
            if role == "input":
                ordered += [("input", "shape", names) for names in self.shape_params]
        return ordered

    def entry_role(self, entry) -> str:
        """"input" or "weight": the role of an entry of ``signature()`` (a tuple's items share one)."""
        return self.values[_flat([entry])[0]].role

    def param_name(self, index: int) -> str:
        param = self.values[index]
        assert isinstance(param, Param)
        return ("w" if param.role == "weight" else "x") + str(index)

    def tuple_param_name(self, entry: tuple) -> str:
        return f"t{_flat([entry])[0]}"

    @property
    def nodes(self) -> list[Node]:
        return [v for v in self.values if isinstance(v, Node)]

    def arguments(self) -> list:
        """The concrete arguments of ``main``, in its parameter order (``main_parameters``): an
        array per tensor parameter (a Python scalar for an R.Prim one, ``Param.prim``), a (nested)
        tuple of arrays per tuple parameter, a tuple of ints per shape parameter and an int per
        primitive parameter."""
        def argument(entry):
            return tuple(argument(e) for e in entry) if isinstance(entry, tuple) else self.values[entry].argument()
        symbols = self.symbol_values()
        return [argument(what) if kind == "tensor" else tuple(symbols[name] for name in what) if kind == "shape"
                else symbols[what.name] for _, kind, what in self.main_parameters()]

    def symbol_values(self) -> dict[str, int]:
        """The concrete value of every symbolic variable in the parameters' types: a dim's size,
        or for a variable only an expression names (``4 * c``), the least size >= 0 that makes one
        such expression, of no other unknown, its dim's size."""
        sizes = {name: size for _, p in self.params for name, size in zip(p.dims, p.shape) if name.isidentifier()}
        pending = [(d, size) for _, p in self.params for d, size in zip(p.dims, p.shape) if d and not d.isidentifier()]
        for dim, size in pending:
            unknown = [n for n in dim_names(dim) if n not in sizes]
            if len(unknown) == 1:
                sizes[unknown[0]] = next((v for v in range(size + 2) if _sized(dim, {**sizes, unknown[0]: v}) == size), 0)
        return sizes

    def weight_values(self) -> dict[str, np.ndarray]:
        """Each weight's argument, by its parameter name in ``main``."""
        return {self.param_name(i): p.array() for i, p in self.params if p.role == "weight"}

    @property
    def symbolic(self) -> bool:
        return bool(self.shape_params or self.prim_params) or any(p.symbolic for _, p in self.params)

    def op_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for op in self.node_ops():
            counts[op] = counts.get(op, 0) + 1
        return counts

    # -- JSON ---------------------------------------------------------------------------
    def to_json(self) -> dict:
        values = []
        for v in self.values:
            if isinstance(v, Param):
                values.append({"kind": "param", "role": v.role, "shape": list(v.shape), "dtype": v.dtype,
                               "range": [v.lo, v.hi], "value": v.value, **({"pack": list(v.pack)} if v.pack else {})})
                if v.dims:  # written only when present: older records and readers stay as they were
                    values[-1]["dims"] = list(v.dims)
                if v.unknown_rank:
                    values[-1]["unknown_rank"] = True
                if v.prim:
                    values[-1]["prim"] = True
                if v.shape_value:
                    values[-1]["shape_value"] = True
            else:
                values.append({"kind": "op", "op": v.op, "args": list(v.args), "attrs": v.attrs})
        doc = {"values": values, "outputs": list(self.outputs)}
        if self.shape_params:
            doc["shape_params"] = [list(names) for names in self.shape_params]
        if self.prim_params:
            doc["prim_params"] = [{"name": p.name, "role": p.role} for p in self.prim_params]
        return doc

    @staticmethod
    def from_json(doc: dict) -> "Program":
        """Rebuild a Program; structural problems raise ProgramError naming the field."""
        try:
            values: list[Value] = []
            for i, v in enumerate(doc["values"]):
                where = f"values[{i}]"
                if v["kind"] == "param":
                    lo, hi = v["range"]
                    values.append(Param(tuple(int(d) for d in v["shape"]), str(v["dtype"]), lo, hi,
                                        v["value"], v.get("role", "input"), tuple(int(k) for k in v.get("pack", ())),
                                        tuple(str(d) for d in v.get("dims", ())), bool(v.get("unknown_rank", False)),
                                        bool(v.get("prim", False)), bool(v.get("shape_value", False))))
                elif v["kind"] == "op":
                    values.append(Node(str(v["op"]), tuple(int(a) for a in v["args"]), dict(v["attrs"])))
                else:
                    raise ProgramError(f"{where}.kind: expected 'param' or 'op', got {v['kind']!r}")
            program = Program(tuple(values), tuple(int(o) for o in doc["outputs"]),
                              tuple(tuple(str(n) for n in names) for names in doc.get("shape_params", ())),
                              tuple(PrimParam(str(p["name"]), str(p.get("role", "input")))
                                    for p in doc.get("prim_params", ())))
        except ProgramError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise ProgramError(f"malformed program: {type(exc).__name__}: {exc}") from None
        return program

    # -- editing (used by the reducer) -----------------------------------------------------
    def without_unused(self) -> "Program":
        """Drop every value that no output nor effect (``EFFECTS``) depends on, renumbering the rest."""
        live = set(self.outputs) | {i for i, v in enumerate(self.values) if isinstance(v, Node) and v.op in EFFECTS}
        for i in range(len(self.values) - 1, -1, -1):
            v = self.values[i]
            if i in live and isinstance(v, Node):
                live.update(v.args)
        keep = [i for i in range(len(self.values)) if i in live]
        renumber = {old: new for new, old in enumerate(keep)}
        values = []
        for i in keep:
            v = self.values[i]
            if isinstance(v, Node):
                v = Node(v.op, tuple(renumber[a] for a in v.args), v.attrs)
            values.append(v)
        return self.with_live_symbols(tuple(values), tuple(renumber[o] for o in self.outputs))

    def with_live_symbols(self, values, outputs=None) -> "Program":
        """A Program of ``values`` keeping the shape and primitive parameters whose variables
        the tensor parameters among them still use."""
        used = {name for v in values if isinstance(v, Param) for d in v.dims for name in dim_names(d)}
        return Program(tuple(values), self.outputs if outputs is None else outputs,
                       tuple(names for names in self.shape_params if set(names) <= used),
                       tuple(p for p in self.prim_params if p.name in used))

    def node_ops(self) -> list[str]:
        """The op of every node, including those inside function bodies and branches."""
        return [op for op, _ in self.every_node()]

    def every_node(self) -> list[tuple[str, dict]]:
        """(op, attributes) of every node, including those inside function bodies and branches."""
        def walk(nodes) -> list[tuple[str, dict]]:
            found = []
            for op, attrs in nodes:
                found.append((op, attrs))
                for key in ("body", "then", "else"):
                    if isinstance(attrs.get(key), dict) and "values" in attrs[key]:
                        found += walk((n["op"], n["attrs"]) for n in attrs[key]["values"])
            return found
        return walk((n.op, n.attrs) for n in self.nodes)

    def summary(self) -> str:
        counts = self.op_counts()
        ops = ", ".join(f"{k}×{n}" if n > 1 else k for k, n in sorted(counts.items()))
        return f"{len(self.params)} param(s), {len(self.nodes)} node(s): {ops or 'no ops'}"


def _nest(paths: list[tuple[tuple[int, ...], int]]):
    """The nested tuple of value indices that (path, index) pairs describe, items by path."""
    items: dict[int, list] = {}
    for path, index in sorted(paths):
        if not path:
            raise ProgramError(f"values[{index}].pack: needs an item position inside its group")
        items.setdefault(path[0], []).append((path[1:], index))
    nested = []
    for group in items.values():
        if len(group) == 1 and not group[0][0]:
            nested.append(group[0][1])
        elif any(not path for path, _ in group):
            raise ProgramError(f"values[{group[0][1]}].pack: one position holds a tensor and a tuple")
        else:
            nested.append(_nest(group))
    return tuple(nested)


def _flat(entries) -> list[int]:
    return [i for e in entries for i in (_flat(e) if isinstance(e, tuple) else [e])]

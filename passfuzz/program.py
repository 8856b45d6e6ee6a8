"""The Program: the one source of truth for a test case.

A Program is plain data: an SSA list of values, each either a function parameter (with its
declared value range and its concrete argument) or an op application that names earlier values
by index. It holds no TVM object; the Relax module, the numpy reference and the reproducer are
all derived from it. ``to_json``/``from_json`` round-trip it exactly (float16 and float32
values survive a trip through a Python float unchanged).

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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np



class ProgramError(ValueError):
    """A Program that is not well formed: a bad reference, a type error, an invalid range."""


@dataclass(frozen=True)
class Param:
    shape: tuple[int, ...]
    dtype: str
    lo: float
    hi: float
    value: Any  # nested lists, exactly as np.ndarray.tolist() gives them
    role: str = "input"  # "input" or "weight"
    dims: tuple[str, ...] = ()  # per dimension: a symbolic variable's name, or "" (static); () all static
    unknown_rank: bool = False  # typed R.Tensor(dtype=..., ndim=-1)

    @property
    def symbolic(self) -> bool:
        return self.unknown_rank or any(self.dims)

    def array(self) -> np.ndarray:
        return np.array(self.value, dtype=self.dtype).reshape(self.shape)


@dataclass(frozen=True)
class Node:
    op: str
    args: tuple[int, ...]
    attrs: dict = field(default_factory=dict)


Value = Union[Param, Node]


@dataclass(frozen=True)
class Program:
    values: tuple[Value, ...]
    outputs: tuple[int, ...]
    shape_params: tuple[tuple[str, ...], ...] = ()  # R.Shape([names]) parameters of main, after the inputs

    # -- views -------------------------------------------------------------------------
    @property
    def params(self) -> list[tuple[int, Param]]:
        """Parameters in the order ``main`` takes them: runtime inputs, then weights."""
        indexed = [(i, v) for i, v in enumerate(self.values) if isinstance(v, Param)]
        return [p for p in indexed if p[1].role == "input"] + [p for p in indexed if p[1].role == "weight"]

    @property
    def num_input(self) -> int | None:
        """The ``num_input`` attribute of ``main``; None when the program has no weights."""
        roles = [p.role for _, p in self.params]
        return roles.count("input") + len(self.shape_params) if "weight" in roles else None

    def param_name(self, index: int) -> str:
        param = self.values[index]
        assert isinstance(param, Param)
        return ("w" if param.role == "weight" else "x") + str(index)

    @property
    def nodes(self) -> list[Node]:
        return [v for v in self.values if isinstance(v, Node)]

    def arguments(self) -> list:
        """The concrete arguments of ``main``, in its parameter order: an array per tensor
        parameter, a tuple of ints per shape parameter (after the inputs)."""
        inputs = [p.array() for _, p in self.params if p.role == "input"]
        weights = [p.array() for _, p in self.params if p.role == "weight"]
        symbols = self.symbol_values()
        return inputs + [tuple(symbols[name] for name in names) for names in self.shape_params] + weights

    def symbol_values(self) -> dict[str, int]:
        """The concrete value of every symbolic variable in the parameters' types."""
        return {name: size for _, p in self.params for name, size in zip(p.dims, p.shape) if name}

    def weight_values(self) -> dict[str, np.ndarray]:
        """Each weight's argument, by its parameter name in ``main``."""
        return {self.param_name(i): p.array() for i, p in self.params if p.role == "weight"}

    @property
    def symbolic(self) -> bool:
        return bool(self.shape_params) or any(p.symbolic for _, p in self.params)

    def op_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for node in self.nodes:
            counts[node.op] = counts.get(node.op, 0) + 1
        return counts

    # -- JSON ---------------------------------------------------------------------------
    def to_json(self) -> dict:
        values = []
        for v in self.values:
            if isinstance(v, Param):
                values.append({"kind": "param", "role": v.role, "shape": list(v.shape), "dtype": v.dtype,
                               "range": [v.lo, v.hi], "value": v.value})
                if v.dims:  # written only when present: older records and readers stay as they were
                    values[-1]["dims"] = list(v.dims)
                if v.unknown_rank:
                    values[-1]["unknown_rank"] = True
            else:
                values.append({"kind": "op", "op": v.op, "args": list(v.args), "attrs": v.attrs})
        doc = {"values": values, "outputs": list(self.outputs)}
        if self.shape_params:
            doc["shape_params"] = [list(names) for names in self.shape_params]
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
                                        v["value"], v.get("role", "input"), tuple(str(d) for d in v.get("dims", ())),
                                        bool(v.get("unknown_rank", False))))
                elif v["kind"] == "op":
                    values.append(Node(str(v["op"]), tuple(int(a) for a in v["args"]), dict(v["attrs"])))
                else:
                    raise ProgramError(f"{where}.kind: expected 'param' or 'op', got {v['kind']!r}")
            program = Program(tuple(values), tuple(int(o) for o in doc["outputs"]),
                              tuple(tuple(str(n) for n in names) for names in doc.get("shape_params", ())))
        except ProgramError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise ProgramError(f"malformed program: {type(exc).__name__}: {exc}") from None
        return program

    # -- editing (used by the reducer) -----------------------------------------------------
    def without_unused(self) -> "Program":
        """Drop every value that no output depends on, renumbering the rest."""
        live = set(self.outputs)
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
        return Program(tuple(values), tuple(renumber[o] for o in self.outputs), self._live_shape_params(values))

    def _live_shape_params(self, values) -> tuple[tuple[str, ...], ...]:
        """The shape parameters whose variables the remaining parameters still use."""
        used = {name for v in values if isinstance(v, Param) for name in v.dims if name}
        return tuple(names for names in self.shape_params if set(names) <= used)

    def summary(self) -> str:
        counts = self.op_counts()
        ops = ", ".join(f"{k}×{n}" if n > 1 else k for k, n in sorted(counts.items()))
        return f"{len(self.params)} param(s), {len(self.nodes)} node(s): {ops or 'no ops'}"

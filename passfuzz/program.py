"""The Program: the one source of truth for a test case.

A Program is plain data: an SSA list of values, each either a function parameter (with its
declared value range and its concrete argument) or an op application that names earlier values
by index. It holds no TVM object; the Relax module, the numpy reference and the reproducer are
all derived from it. ``to_json``/``from_json`` round-trip it exactly (float32, float16 and
bfloat16 values survive a trip through a Python float unchanged).

Parameters are of two roles. ``input`` parameters are runtime inputs; ``weight`` parameters
are model weights. The built ``main`` lists inputs first, then weights, and carries the
``num_input`` attribute when there are weights, which is what LiftTransformParams and the
other parameter passes act on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np

from .catalogue.base import numpy_dtype


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

    def array(self) -> np.ndarray:
        return np.array(self.value, dtype=numpy_dtype(self.dtype)).reshape(self.shape)


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
        return roles.count("input") if "weight" in roles else None

    def param_name(self, index: int) -> str:
        param = self.values[index]
        assert isinstance(param, Param)
        return ("w" if param.role == "weight" else "x") + str(index)

    @property
    def nodes(self) -> list[Node]:
        return [v for v in self.values if isinstance(v, Node)]

    def arguments(self) -> list[np.ndarray]:
        """The concrete arguments of ``main``, in its parameter order."""
        return [p.array() for _, p in self.params]

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
            else:
                values.append({"kind": "op", "op": v.op, "args": list(v.args), "attrs": v.attrs})
        return {"values": values, "outputs": list(self.outputs)}

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
                                        v["value"], v.get("role", "input")))
                elif v["kind"] == "op":
                    values.append(Node(str(v["op"]), tuple(int(a) for a in v["args"]), dict(v["attrs"])))
                else:
                    raise ProgramError(f"{where}.kind: expected 'param' or 'op', got {v['kind']!r}")
            program = Program(tuple(values), tuple(int(o) for o in doc["outputs"]))
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
        return Program(tuple(values), tuple(renumber[o] for o in self.outputs))

    def summary(self) -> str:
        counts = self.op_counts()
        ops = ", ".join(f"{k}×{n}" if n > 1 else k for k, n in sorted(counts.items()))
        return f"{len(self.params)} param(s), {len(self.nodes)} node(s): {ops or 'no ops'}"

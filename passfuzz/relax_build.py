"""Program -> Relax IRModule, through BlockBuilder (so TVM's own type checks run on emit).

This module and passfuzz.execute are the only places that construct Relax IR or call the
compiler; TVM's Python API changes between releases, so keep new calls here.
"""

from __future__ import annotations

import numpy as np
import tvm
from tvm import relax
# Reproducer scripts parse TVMScript, and the parser imports parts of TVM that some passes use
# without importing them (LazyTransformParams needs tvm.relax.op.vm). Importing it here too makes
# passfuzz see what its reproducers will see.
from tvm.script import relax as _tvmscript_relax  # noqa: F401

from .catalogue import BY_NAME
from .program import Node, Param, Program


def build_module(program: Program) -> tvm.IRModule:
    """A fresh IRModule with one function ``main`` whose body is one dataflow block."""
    bb = relax.BlockBuilder()
    symbols = {name: tvm.tirx.Var(name, "int64") for name in program.symbol_values()}
    params = {i: relax.Var(program.param_name(i), param_type(p, symbols)) for i, p in program.params}
    shape_params = [relax.Var(f"s{k}", relax.ShapeType([symbols[n] for n in names]))
                    for k, names in enumerate(program.shape_params)]
    order = [params[i] for i, p in program.params if p.role == "input"] + shape_params + \
        [params[i] for i, p in program.params if p.role == "weight"]
    exprs: dict[int, relax.Expr] = {}
    static = _StaticOperands(bb, program) if program.symbolic or "reshape_runtime" in program.op_counts() else None
    with bb.function("main", order):
        with bb.dataflow():
            for i, value in enumerate(program.values):
                if isinstance(value, Param):
                    exprs[i] = params[i]
                    continue
                assert isinstance(value, Node)
                if static is not None:
                    exprs[i] = static.emit(i, value, exprs)
                    continue
                expr = BY_NAME[value.op].emit(relax, [exprs[a] for a in value.args], value.attrs)
                # Constants stay inline (as TVMScript shows them); everything else gets a binding.
                exprs[i] = expr if value.op == "const" else bb.emit(expr)
            outs = [exprs[o] for o in program.outputs]
            result = bb.emit_output(outs[0] if len(outs) == 1 else relax.Tuple(outs))
        bb.emit_func_output(result)
    mod = bb.get()
    if program.num_input is not None:
        mod["main"] = mod["main"].with_attr("num_input", program.num_input)
    return mod


def param_type(param: Param, symbols: dict) -> relax.TensorType:
    """How ``main`` types a tensor parameter: static, with symbolic dims, or of unknown rank."""
    if param.unknown_rank:
        return relax.TensorType(dtype=param.dtype, ndim=-1)
    if param.dims:
        return relax.TensorType([symbols[n] if n else d for n, d in zip(param.dims, param.shape)], param.dtype)
    return relax.TensorType(param.shape, param.dtype)


def _is_static(ty) -> bool:
    shape = getattr(ty, "shape", None)
    return isinstance(ty, relax.TensorType) and isinstance(shape, relax.ShapeExpr) and \
        all(isinstance(d, tvm.tirx.IntImm) for d in shape.values)


class _StaticOperands:
    """Emitting a Program whose values may be typed with symbolic dims or an unknown rank.

    An op whose OpDef is ``symbolic`` takes its operands as they are typed, unless one has an
    unknown rank or the result would lose its shape (a broadcast Relax cannot prove, such as
    (n, 4) with (3, 4)): then, as for every other op, each operand not statically typed is first
    ``match_cast`` to the static shape the analysis knows it has (once per value)."""

    def __init__(self, bb: relax.BlockBuilder, program: Program):
        from .graph import analyse  # the static shapes of every value

        self.bb, self.infos, self.cast = bb, analyse(program, check_values=False), {}

    def _static(self, index: int, expr):
        if _is_static(expr.ty):
            return expr
        if index not in self.cast:
            info = self.infos[index]
            self.cast[index] = self.bb.match_cast(expr, relax.TensorType(info.shape, info.dtype))
        return self.cast[index]

    def emit(self, index: int, node: Node, exprs: dict):
        op = BY_NAME[node.op]
        args = [exprs[a] for a in node.args]
        if op.symbolic and all(getattr(a.ty, "ndim", -1) != -1 for a in args):
            expr = self._make(op, args, node, index)
            if op.emit_in is not None or _is_static(expr.ty) or \
                    isinstance(getattr(expr.ty, "shape", None), relax.ShapeExpr):
                return expr if node.op == "const" else self.bb.emit(expr)
        args = [self._static(a, e) for a, e in zip(node.args, args)]
        expr = self._make(op, args, node, index)
        return expr if node.op == "const" else self.bb.emit(expr)

    def _make(self, op, args: list, node: Node, index: int):
        if op.emit_in is not None:
            return op.emit_in(self.bb, relax, args, node.attrs, f"v{index}")
        return self.bb.normalize(op.emit(relax, args, node.attrs))


def to_runtime(argument):
    """One of ``Program.arguments()`` as the VM takes it: a tensor, or a shape for a tuple."""
    if isinstance(argument, tuple):
        return tvm.runtime.ShapeTuple(argument)
    return tvm.runtime.tensor(argument)


def to_numpy(value) -> list[np.ndarray]:
    """Flatten a VM result (a tensor or nested tuples of tensors) into numpy arrays."""
    if hasattr(value, "numpy"):
        return [value.numpy()]
    return [array for item in value for array in to_numpy(item)]

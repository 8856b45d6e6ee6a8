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
    params = {i: relax.Var(program.param_name(i), relax.TensorType(p.shape, p.dtype)) for i, p in program.params}
    exprs: dict[int, relax.Expr] = {}
    with bb.function("main", [params[i] for i, _ in program.params]):
        with bb.dataflow():
            for i, value in enumerate(program.values):
                if isinstance(value, Param):
                    exprs[i] = params[i]
                    continue
                assert isinstance(value, Node)
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


def to_numpy(value) -> list[np.ndarray]:
    """Flatten a VM result (a tensor or nested tuples of tensors) into numpy arrays."""
    if hasattr(value, "numpy"):
        return [value.numpy()]
    return [array for item in value for array in to_numpy(item)]

"""Check each planted pass of benchmarks/planted_reach and benchmarks/planted_reach_heldout by
hand, with TVM only (no fuzzing): on a module holding its pattern the pass changes the module,
and the compiled result differs from the original's on random arguments; on a module without
the pattern it leaves the module structurally equal. Where a pass also rewrites a related
pattern rightly (its correct rules), that module is checked to keep its result.

    python -m benchmarks.planted_reach.check      (from the repository root)

One line per pass: name, fires-on-pattern, differs, leaves-others-alone (and right-where-meant).
"""

from __future__ import annotations

import importlib

import numpy as np
import tvm
import tvm_ffi
from tvm import relax

SETS = ("benchmarks.planted_reach.passes", "benchmarks.planted_reach_heldout.passes")
RNG = np.random.default_rng(0)  # the arguments
_constants = np.random.default_rng(1)  # the constants, drawn anew (the same) for each build of a module


def module(params: dict, body) -> tvm.IRModule:
    """main(params) in one dataflow block; ``body(bb, vars)`` emits the bindings, returns the output."""
    global _constants
    _constants = np.random.default_rng(1)
    bb = relax.BlockBuilder()
    xs = [relax.Var(name, relax.TensorType(shape, dtype)) for name, (shape, dtype) in params.items()]
    with bb.function("main", xs):
        with bb.dataflow():
            out = bb.emit_output(body(bb, *xs))
        bb.emit_func_output(out)
    return bb.get()


def const(shape, dtype="float32", lo=0.5, hi=1.5):
    return relax.const(_constants.uniform(lo, hi, shape).astype(dtype), dtype)


F = ((3, 4), "float32")
op = relax.op


def _double(bb, x):
    e = bb.emit(op.exp(x))
    return op.add(e, e)


def _even_of_negation(bb, x):
    n = bb.emit(op.negative(x))
    return op.add(bb.emit(op.abs(n)), bb.emit(op.square(n)))


def _square_of_one_value(bb, x):
    e = bb.emit(op.exp(x))
    return op.multiply(e, e)


# name -> (a module holding its pattern, a module without it, None or a module it rewrites rightly)
CASES = {
    "exp_by_negation": (
        lambda: module({"x": F, "y": F}, lambda bb, x, y: op.add(bb.emit(op.exp(x)), y)),
        lambda: module({"x": F, "y": F}, lambda bb, x, y: op.add(bb.emit(op.sigmoid(x)), bb.emit(op.log(y)))),
        None),
    "maximum_as_relu": (
        lambda: module({"x": F}, lambda bb, x: op.maximum(x, const((3, 4)))),
        lambda: module({"x": F, "y": F}, lambda bb, x, y: op.minimum(bb.emit(op.maximum(x, y)), const((3, 4)))),
        None),
    "scale_as_shift": (
        lambda: module({"x": F}, lambda bb, x: op.multiply(const((3, 4)), x)),
        lambda: module({"x": F, "y": F}, lambda bb, x, y: op.subtract(bb.emit(op.multiply(x, y)), const((3, 4)))),
        lambda: module({"x": F}, lambda bb, x: op.add(x, relax.const(np.zeros((3, 4), "float32"))))),
    "double_as_square": (
        lambda: module({"x": F}, _double),
        lambda: module({"x": F, "y": F}, lambda bb, x, y: op.add(bb.emit(op.multiply(x, x)), y)),
        None),
    "even_of_negation": (
        lambda: module({"x": F}, lambda bb, x: op.tanh(bb.emit(op.negative(x)))),
        lambda: module({"x": F}, lambda bb, x: op.add(bb.emit(op.negative(bb.emit(op.tanh(x)))),
                                                      bb.emit(op.sigmoid(bb.emit(op.negative(x)))))),
        lambda: module({"x": F}, _even_of_negation)),
    "int64_keepdims_negated": (
        lambda: module({"x": F}, lambda bb, x: op.argmax(x, axis=1)),
        lambda: module({"x": F}, lambda bb, x: relax.Tuple([bb.emit(op.sum(x, axis=[1])),
                                                            bb.emit(op.astype(x, "int64"))])),
        None),
    "folded_subtrahend": (
        lambda: module({"x": F}, lambda bb, x: op.subtract(x, bb.emit(op.add(const((3, 4)), const((3, 4)))))),
        lambda: module({"x": F, "y": F}, lambda bb, x, y: op.add(bb.emit(op.subtract(x, const((3, 4)))), y)),
        None),
    "cse_square": (
        lambda: module({"x": F}, lambda bb, x: op.multiply(bb.emit(op.exp(x)), bb.emit(op.exp(x)))),
        lambda: module({"x": F}, _square_of_one_value),
        lambda: module({"x": F}, lambda bb, x: op.add(bb.emit(op.exp(x)), bb.emit(op.exp(x))))),
    "softmax_over_unit_axis": (
        lambda: module({"x": ((3, 1), "float32")}, lambda bb, x: op.nn.softmax(x, axis=0)),
        lambda: module({"x": F}, lambda bb, x: op.nn.softmax(x, axis=0)),
        lambda: module({"x": ((3, 1), "float32")}, lambda bb, x: op.nn.softmax(x, axis=-1))),
}


def make_pass(module_name: str, name: str) -> tvm.transform.Pass:
    target = getattr(importlib.import_module(module_name), name)
    return target if isinstance(target, tvm.transform.Pass) else target()


def arguments(mod: tvm.IRModule) -> list[np.ndarray]:
    out = []
    for param in mod["main"].params:
        shape, dtype = [int(d) for d in param.ty.shape], str(param.ty.dtype)
        out.append(RNG.uniform(-2, 2, shape).astype(dtype) if "float" in dtype else
                   RNG.integers(-5, 6, shape).astype(dtype))
    return out


def run(mod: tvm.IRModule, args: list[np.ndarray]) -> list[np.ndarray]:
    ex = tvm.compile(mod, target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    result = vm["main"](*[tvm.runtime.tensor(a) for a in args])
    results = list(result) if isinstance(result, (tvm.ir.Array, list, tuple)) or \
        type(result).__name__ in ("Array", "Tuple") else [result]
    return [r.numpy() for r in results]


def differs(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return len(a) != len(b) or any(x.shape != y.shape or x.dtype != y.dtype or
                                   not np.allclose(x, y, rtol=1e-5, atol=1e-6) for x, y in zip(a, b))


def check(module_name: str, name: str) -> str:
    pattern, other, right = CASES[name]
    after = make_pass(module_name, name)(pattern())
    relax.analysis.well_formed(after)
    fires = not tvm_ffi.structural_equal(after, pattern())
    args = arguments(pattern())
    wrong = differs(run(pattern(), args), run(after, args))
    alone = tvm_ffi.structural_equal(make_pass(module_name, name)(other()), other())
    line = f"{name:<24} fires-on-pattern={'yes' if fires else 'NO':<4} differs={'yes' if wrong else 'NO':<4} " \
           f"leaves-others-alone={'yes' if alone else 'NO'}"
    if right is not None:
        rewritten = make_pass(module_name, name)(right())
        args = arguments(right())
        kept = not differs(run(right(), args), run(rewritten, args))
        changed = not tvm_ffi.structural_equal(rewritten, right())
        line += f"  right-where-meant={'yes' if kept else 'NO'} (rewritten: {'yes' if changed else 'no'})"
    return line


def main() -> None:
    for module_name in SETS:
        set_name = module_name.rsplit(".", 2)[-2]
        for name in importlib.import_module(module_name).PLANTED:
            try:
                print(f"{set_name:<22} {check(module_name, name)}", flush=True)
            except Exception as exc:  # noqa: BLE001 - one failing check should not hide the others
                print(f"{set_name:<22} {name:<24} ERROR {type(exc).__name__}: {str(exc).strip().splitlines()[-1]}",
                      flush=True)


if __name__ == "__main__":
    main()

"""passfuzz runtime-error-effa9058c34d: runtime-error after LiftTransformParams, ToNonDataflow, RemovePurityChecking, LazyTransformParams on llvm.

error at run:llvm: InternalError: Check failed: static_cast<size_t>(gfunc.num_args) == args.size() (2 vs. 1) : Invoking function main expects 2 arguments (x0, lv1), but 1 arguments were provided.
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def numpy_outputs(value):
    """The VM's result (a tensor or nested tuples of tensors) as a flat list of numpy arrays."""
    if hasattr(value, "numpy"):
        return [value.numpy()]
    return [array for item in value for array in numpy_outputs(item)]


def copy_value(value):
    """A copy of a tensor, or of a (nested) tuple of them as LazySetOutput may hand over."""
    if hasattr(value, "numpy"):
        return tvm.runtime.tensor(value.numpy())
    return [copy_value(item) for item in value]


class Collected(dict):
    """Values a callback hands over by index (set_item, fset_output), copied: the VM reuses them."""

    def put(self, index, value):
        self[int(index)] = copy_value(value)

    def in_order(self):
        return [self[index] for index in sorted(self)]


def lazy_weights(weights):
    """LazyTransformParams: transform_params() reads get_item(i), writes set_item(i, value)."""
    results = Collected()
    tvm.register_global_func("get_item", lambda index: weights[int(index)], override=True)
    tvm.register_global_func("set_item", results.put, override=True)
    return results


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((4,), dtype="float32"), w1: R.Tensor(("n0",), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        n0 = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((n0,), dtype="float32") = R.negative(w1)
            lv1: R.Tensor((4,), dtype="float32") = R.match_cast(lv, R.Tensor((4,), dtype="float32"))
            lv2: R.Tensor((4,), dtype="float32") = R.add(x0, lv1)
            gv: R.Tensor((4,), dtype="float32") = lv2
            R.output(gv)
        return gv


arguments = [
    np.array([0.0, 0.0, 0.0, 0.0], dtype='float32'),
    np.array([0.0, 0.0, 0.0, 0.0], dtype='float32'),
]
mod = relax.transform.LiftTransformParams()(Module.clone())  # passes may update their input in place
mod = relax.transform.ToNonDataflow()(mod)
mod = relax.transform.RemovePurityChecking()(mod)
mod = relax.transform.LazyTransformParams()(mod)
executable = tvm.compile(mod, 'llvm')
try:
    args = [tvm.runtime.tensor(a) for a in arguments]
    transformed = lazy_weights(args[1:])
    vm = relax.VirtualMachine(executable, tvm.cpu())
    vm['main_transform_params']()
    weights = transformed.in_order()
    actual = numpy_outputs(vm["main"](*args[:1], *weights))
except Exception as error:
    print(f"BUG REPRODUCES (runtime-error): {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
args = [tvm.runtime.tensor(a) for a in arguments]
vm = relax.VirtualMachine(tvm.compile(Module, 'llvm'), tvm.cpu())
expected = numpy_outputs(vm["main"](*args))
try:
    assert len(actual) == 1, f"1 output(s) expected, {len(actual)} returned"
    assert (actual[0].dtype, actual[0].shape) == (expected[0].dtype, expected[0].shape), f"{expected[0].dtype}{expected[0].shape} became {actual[0].dtype}{actual[0].shape}"
    np.testing.assert_allclose(actual[0].astype("float64"), expected[0].astype("float64"), rtol=0.0001, atol=0.0008000012000004001, equal_nan=True, err_msg='output 0')
except AssertionError as error:
    print("changed (wrong-result, not runtime-error):", " ".join(str(error).split()))
    sys.exit(125)
print("fixed: the optimized module compiles, runs and matches the original")

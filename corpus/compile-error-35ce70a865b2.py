"""passfuzz compile-error-35ce70a865b2: compile-error after LazyGetInput on llvm.

error at compile:llvm in KillAfterLastUse: ValueError: Check failed: (value.as<PrimExpr>().has_value()) is false: Explicit binding for symbolic variable n must be a primitive expression, but received n_untyped
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


def param_getter(weights):
    """LazyGetInput: main reads weight i through fget_param(i, name)."""
    return lambda index, name: weights[int(index)]


def to_tvm(argument, device=None):
    """One of ``Program.arguments()`` as the VM takes it, on ``device`` (the CPU if None): a tensor, a
    ShapeTuple for an R.Shape parameter, the int for an R.Prim one, a tuple of those for a tuple."""
    if isinstance(argument, int):
        return argument
    if isinstance(argument, tuple) and all(isinstance(item, int) for item in argument):
        return tvm.runtime.ShapeTuple(argument)
    if isinstance(argument, tuple):
        return tuple(to_tvm(item, device) for item in argument)
    return tvm.runtime.tensor(argument, device)


@I.ir_module
class Module:
    @R.function
    def main(n: T.int64, w0: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        R.func_attr({"num_input": 0})
        with R.dataflow():
            gv: R.Tensor((n,), dtype="float32") = w0
            R.output(gv)
        return gv


arguments = [3, np.array([0.0, 0.0, 0.0], dtype='float32')]
mod = relax.transform.LazyGetInput()(Module.clone())  # passes may update their input in place
try:
    executable = tvm.compile(mod, 'llvm')
except Exception as error:
    print(f"BUG REPRODUCES (compile-error): {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
args = [to_tvm(a) for a in arguments]
vm = relax.VirtualMachine(executable, tvm.cpu())
actual = numpy_outputs(vm["main"](*args[:0], param_getter(args[0:])))
args = [to_tvm(a) for a in arguments]
vm = relax.VirtualMachine(tvm.compile(Module, 'llvm'), tvm.cpu())
expected = numpy_outputs(vm["main"](*args))
try:
    assert len(actual) == 1, f"1 output(s) expected, {len(actual)} returned"
    assert (actual[0].dtype, actual[0].shape) == (expected[0].dtype, expected[0].shape), f"{expected[0].dtype}{expected[0].shape} became {actual[0].dtype}{actual[0].shape}"
    np.testing.assert_allclose(actual[0].astype("float64"), expected[0].astype("float64"), rtol=0.0001, atol=0.0004, equal_nan=True, err_msg='output 0')
except AssertionError as error:
    print("changed (wrong-result, not compile-error):", " ".join(str(error).split()))
    sys.exit(125)
print("fixed: the optimized module compiles, runs and matches the original")

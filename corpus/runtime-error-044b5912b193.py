"""passfuzz runtime-error-044b5912b193: runtime-error in the unoptimized module on c.

error at run:c: RuntimeError: Compilation error: error: expected primary-expression before ‘stack_2’ (llvm builds and runs the same module)
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def numpy_outputs(value):
    """The VM's result (a tensor or nested tuples of tensors) as a flat list of numpy arrays."""
    if hasattr(value, "numpy"):
        return [value.numpy()]
    return [array for item in value for array in numpy_outputs(item)]


@I.ir_module
class Module:
    @R.function
    def main() -> R.Tensor((4, 1, 4), dtype="int32"):
        with R.dataflow():
            lv: R.Tensor((4, 1, 4), dtype="int32") = R.argsort(R.const(np.array([[[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]]], dtype='float32'), 'float32'), axis=2, descending=False, dtype="int32")
            gv: R.Tensor((4, 1, 4), dtype="int32") = lv
            R.output(gv)
        return gv


arguments = []
mod = Module.clone()  # passes may update their input in place
executable = tvm.compile(mod, 'c')
try:
    args = [tvm.runtime.tensor(a) for a in arguments]
    vm = relax.VirtualMachine(executable, tvm.cpu())
    actual = numpy_outputs(vm["main"](*args))
except Exception as error:
    print(f"BUG REPRODUCES (runtime-error): {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
args = [tvm.runtime.tensor(a) for a in arguments]
vm = relax.VirtualMachine(tvm.compile(Module, 'c'), tvm.cpu())
expected = numpy_outputs(vm["main"](*args))
try:
    assert len(actual) == 1, f"1 output(s) expected, {len(actual)} returned"
    assert (actual[0].dtype, actual[0].shape) == (expected[0].dtype, expected[0].shape), f"{expected[0].dtype}{expected[0].shape} became {actual[0].dtype}{actual[0].shape}"
    np.testing.assert_array_equal(actual[0], expected[0], err_msg='output 0')
except AssertionError as error:
    print("changed (wrong-result, not runtime-error):", " ".join(str(error).split()))
    sys.exit(125)
print("fixed: the optimized module compiles, runs and matches the original")

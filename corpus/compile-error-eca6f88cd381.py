"""passfuzz compile-error-eca6f88cd381: compile-error after ToMixedPrecision on llvm.

error at compile:llvm: InternalError: unknown intrinsic ir.Op(span=None, ty=ir.Type(span=None), name="tirx.acos", description="", arguments=(), attrs_type_key="", num_inputs=1, support_level=10)
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
    def main() -> R.Tensor((), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((), dtype="float32") = R.acos(R.const(0.0, "float32"))
            gv: R.Tensor((), dtype="float32") = lv
            R.output(gv)
        return gv


arguments = []
mod = relax.transform.ToMixedPrecision()(Module.clone())  # passes may update their input in place
try:
    executable = tvm.compile(mod, 'llvm')
except Exception as error:
    print(f"BUG REPRODUCES (compile-error): {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
args = [tvm.runtime.tensor(a) for a in arguments]
vm = relax.VirtualMachine(executable, tvm.cpu())
actual = numpy_outputs(vm["main"](*args))
args = [tvm.runtime.tensor(a) for a in arguments]
vm = relax.VirtualMachine(tvm.compile(Module, 'llvm'), tvm.cpu())
expected = numpy_outputs(vm["main"](*args))
try:
    assert len(actual) == 1, f"1 output(s) expected, {len(actual)} returned"
    assert (actual[0].dtype, actual[0].shape) == (expected[0].dtype, expected[0].shape), f"{expected[0].dtype}{expected[0].shape} became {actual[0].dtype}{actual[0].shape}"
    np.testing.assert_allclose(actual[0].astype("float64"), expected[0].astype("float64"), rtol=0.02, atol=0.03141606078378038, equal_nan=True, err_msg='output 0')
except AssertionError as error:
    print("changed (wrong-result, not compile-error):", " ".join(str(error).split()))
    sys.exit(125)
print("fixed: the optimized module compiles, runs and matches the original")

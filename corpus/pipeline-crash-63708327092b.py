"""passfuzz pipeline-crash-63708327092b: pipeline-crash in the unoptimized module on llvm.

tvm.compile's pipeline failed to run:llvm: crash SIGSEGV; without StaticPlanBlockMemory the module runs and matches numpy
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import signal
import subprocess
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def run_child(argv, timeout):
    """Run ``argv`` (a script re-running itself with an argument) in a fresh process, which arms
    ``signal.alarm(timeout)`` once it has imported TVM: '' when it exits 0, else how it ended:
    "died of SIGSEGV", "no result after 60 s", or "exited with status 1: " and the last line
    it wrote to stderr. Importing TVM takes seconds, so the parent waits that much longer before
    it gives up on a child that never armed its alarm."""
    try:
        child = subprocess.run(argv, capture_output=True, text=True, timeout=timeout + 60)
    except subprocess.TimeoutExpired:
        return f"no result after {timeout + 60:g} s"
    if child.returncode == -signal.SIGALRM:
        return f"no result after {timeout:g} s"
    if child.returncode < 0:
        return f"died of {signal.Signals(-child.returncode).name}"
    if child.returncode > 0:
        last = (child.stderr.strip().splitlines() or [""])[-1]
        return f"exited with status {child.returncode}: {last}"
    return ""


def numpy_outputs(value):
    """The VM's result (a tensor or nested tuples of tensors) as a flat list of numpy arrays."""
    if hasattr(value, "numpy"):
        return [value.numpy()]
    return [array for item in value for array in numpy_outputs(item)]


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((2, 3), dtype="float32"), x1: R.Tensor((), dtype="bool")) -> R.Tensor((2, 3), dtype="float32"):
        if x1:
            gv2: R.Tensor((2, 3), dtype="float32") = x0
        else:
            gv: R.Tensor((2, 3), dtype="float32") = R.negative(x0)
            gv1: R.Tensor((2, 3), dtype="float32") = R.exp(gv)
            gv2: R.Tensor((2, 3), dtype="float32") = gv1
        with R.dataflow():
            lv: R.Tensor((2, 3), dtype="float32") = R.add(gv2, x0)
            lv1: R.Tensor((2, 3), dtype="float32") = R.multiply(lv, lv)
            gv3: R.Tensor((2, 3), dtype="float32") = lv1
            R.output(gv3)
        return gv3


arguments = [
    np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], dtype='float32'),
    np.array(False, dtype='bool'),
]
if sys.argv[1:] == ["child"]:  # tvm.compile as is: the failing build and call
    signal.alarm(60)  # the child's time limit, as passfuzz's for one side
    args = [tvm.runtime.tensor(a) for a in arguments]
    vm = relax.VirtualMachine(tvm.compile(Module, 'llvm'), tvm.cpu())
    actual = numpy_outputs(vm["main"](*args))
    sys.exit(0)
fate = run_child([sys.executable, __file__, "child"], 60)
if not fate.startswith('died of'):
    print(f"fixed: tvm.compile's module no longer fails at run:llvm ({fate or 'it exits 0'})")
    sys.exit(0)
with tvm.transform.PassContext(disabled_pass=['StaticPlanBlockMemory']):  # the pipeline without StaticPlanBlockMemory
    args = [tvm.runtime.tensor(a) for a in arguments]
    vm = relax.VirtualMachine(tvm.compile(Module, 'llvm'), tvm.cpu())
    actual = numpy_outputs(vm["main"](*args))
expected = [np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], dtype='float32')]  # numpy's outputs
assert len(actual) == 1, f"1 output(s) expected, {len(actual)} returned"
assert (actual[0].dtype, actual[0].shape) == (expected[0].dtype, expected[0].shape), f"{expected[0].dtype}{expected[0].shape} became {actual[0].dtype}{actual[0].shape}"
np.testing.assert_allclose(actual[0].astype("float64"), expected[0].astype("float64"), rtol=0.001, atol=0.013825701662282362, equal_nan=True, err_msg='output 0')
print(f"BUG REPRODUCES (pipeline-crash): tvm.compile's module fails at run:llvm: {fate}; without StaticPlanBlockMemory it runs and matches numpy")
sys.exit(1)

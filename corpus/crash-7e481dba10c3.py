"""passfuzz crash-7e481dba10c3: crash after Gradient('main') on llvm.

crash at run:llvm: SIGSEGV
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import os
import signal
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
    def main(x0: R.Tensor((1,), dtype="float64")) -> R.Tensor((), dtype="float64"):
        with R.dataflow():
            lv: R.Tensor((3,), dtype="float64") = R.take(x0, R.const(np.array([0, 0, -3], dtype='int64'), 'int64'), axis=0, mode="wrap")
            lv1: R.Tensor((), dtype="float64") = R.sum(lv, axis=None, keepdims=False)
            gv: R.Tensor((), dtype="float64") = lv1
            R.output(gv)
        return gv


arguments = [np.array([-1.3404302597045898], dtype='float64')]
mod = relax.transform.Gradient('main')(Module)
executable = tvm.compile(mod, 'llvm')
if os.fork() == 0:  # a child makes the call; this process reads how it ends
    signal.alarm(60)  # the time passfuzz gave the side
    args = [tvm.runtime.tensor(a) for a in arguments]
    vm = relax.VirtualMachine(executable, tvm.cpu())
    actual = numpy_outputs(vm["main_adjoint"](*args))
    os._exit(0)
_, status = os.wait()
ended = signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
if ended not in (0, 125, "SIGALRM"):
    print(f"BUG REPRODUCES (crash): run:llvm: died of {ended}")
    sys.exit(1)
if ended != 0:  # the child's own traceback says what failed instead
    print(f"changed (not a crash): the call at run:llvm ended with {ended}")
    sys.exit(125)
print("fixed: no crash at run:llvm")

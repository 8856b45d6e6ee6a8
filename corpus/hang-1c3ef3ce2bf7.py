"""passfuzz hang-1c3ef3ce2bf7: hang after Gradient('main') on llvm.

hang at run:llvm: no result after 60 s
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
    def main(x0: R.Tensor((2, 4), dtype="float64"), x1: R.Tensor((4,), dtype="float64")) -> R.Tensor((), dtype="float64"):
        with R.dataflow():
            lv: R.Tensor((4,), dtype="float64") = R.add(x1, R.const(np.array([0.2016294151544571, 9.999999747378752e-06, 0.1738777905702591, 0.14480939507484436], dtype='float64'), 'float64'))
            lv1: R.Tensor((4,), dtype="float64") = R.add(x1, R.const(np.array([0.2016294151544571, 9.999999747378752e-06, 0.1738777905702591, 0.14480939507484436], dtype='float64'), 'float64'))
            lv2: R.Tensor((4,), dtype="float64") = R.add(lv1, lv1)
            lv3: R.Tensor((2,), dtype="float64") = R.take(lv1, R.const(np.array([-5, -9], dtype='int64'), 'int64'), axis=0, mode="clip")
            lv4: R.Tensor((), dtype="float64") = R.sum(lv, axis=None, keepdims=False)
            lv5: R.Tensor((), dtype="float64") = R.sum(lv2, axis=None, keepdims=False)
            lv6: R.Tensor((), dtype="float64") = R.add(lv4, lv5)
            lv7: R.Tensor((), dtype="float64") = R.sum(lv3, axis=None, keepdims=False)
            lv8: R.Tensor((), dtype="float64") = R.add(lv6, lv7)
            gv: R.Tensor((), dtype="float64") = lv8
            R.output(gv)
        return gv


arguments = [
    np.array([[-4.0, -3.592876434326172, -2.543245553970337, -3.661768913269043], [-3.8416833877563477, -1.5382553339004517, -4.0, -3.489198684692383]], dtype='float64'),
    np.array([0.1738777905702591, 0.1738777905702591, 0.1738777905702591, 0.1738777905702591], dtype='float64'),
]
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
if ended == "SIGALRM":
    print(f"BUG REPRODUCES (hang): run:llvm: no result after 60 s")
    sys.exit(1)
if ended != 0:  # the child's own traceback says what failed instead
    print(f"changed (not a hang): the call at run:llvm ended with {ended}")
    sys.exit(125)
print("fixed: no hang at run:llvm")

"""passfuzz crash-0ec6ca69e72c: crash after LiftTransformParams on llvm.

crash at compile:llvm in VMShapeLower: SIGSEGV
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import os
import signal
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((2,), dtype="float32"), n: T.int64, w1: R.Tensor(("n",), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((2,), dtype="float32") = R.exp(x0)
            gv: R.Tensor((2,), dtype="float32") = lv
            R.output(gv)
        return gv


mod = relax.transform.LiftTransformParams()(Module)
if os.fork() == 0:  # a child makes the call; this process reads how it ends
    signal.alarm(60)  # the time passfuzz gave the side
    executable = tvm.compile(mod, 'llvm')
    os._exit(0)
_, status = os.wait()
ended = signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
if ended not in (0, 125, "SIGALRM"):
    print(f"BUG REPRODUCES (crash): compile:llvm: died of {ended}")
    sys.exit(1)
if ended != 0:  # the child's own traceback says what failed instead
    print(f"changed (not a crash): the call at compile:llvm ended with {ended}")
    sys.exit(125)
print("fixed: no crash at compile:llvm")

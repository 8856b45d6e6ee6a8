"""passfuzz crash-c45611be3037: crash after AdjustMatmulOrder on llvm.

crash at pass:AdjustMatmulOrder: SIGSEGV
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import os
import signal
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((1, 3), dtype="float32"), x1: R.Tensor((3, 3), dtype="float32"), x2: R.Tensor((3,), dtype="float32")) -> R.Tensor((1,), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((1, 3), dtype="float32") = R.matmul(x0, x1, out_dtype=None)
            lv1: R.Tensor((1,), dtype="float32") = R.matmul(lv, x2, out_dtype=None)
            gv: R.Tensor((1,), dtype="float32") = lv1
            R.output(gv)
        return gv


if os.fork() == 0:  # a child makes the call; this process reads how it ends
    signal.alarm(60)  # the time passfuzz gave the side
    mod = relax.transform.AdjustMatmulOrder()(Module)
    os._exit(0)
_, status = os.wait()
ended = signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
if ended not in (0, 125, "SIGALRM"):
    print(f"BUG REPRODUCES (crash): pass:AdjustMatmulOrder: died of {ended}")
    sys.exit(1)
if ended != 0:  # the child's own traceback says what failed instead
    print(f"changed (not a crash): the call at pass:AdjustMatmulOrder ended with {ended}")
    sys.exit(125)
print("fixed: no crash at pass:AdjustMatmulOrder")

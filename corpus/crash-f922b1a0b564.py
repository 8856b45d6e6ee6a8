"""passfuzz crash-f922b1a0b564: crash after ConvertLayout({'relax.nn.conv2d': ['NCHW4c', 'OIHW4o']}, None) on llvm.

crash at pass:ConvertLayout({'relax.nn.conv2d': ['NCHW4c', 'OIHW4o']}, None): SIGSEGV
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import os
import signal
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # again: import tvm wrapped it


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((2, 16, 28, 28), dtype="float32"), x1: R.Tensor((4, 16, 3, 3), dtype="float32")) -> R.Tensor((2, 4, 26, 26), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 4, 26, 26), dtype="float32") = R.nn.conv2d(x0, x1, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="float32")
            gv: R.Tensor((2, 4, 26, 26), dtype="float32") = lv
            R.output(gv)
        return gv


if os.fork() == 0:  # a child makes the call; this process reads how it ends
    signal.alarm(60)  # the time passfuzz gave the side
    mod = relax.transform.ConvertLayout({'relax.nn.conv2d': ['NCHW4c', 'OIHW4o']}, None)(Module)
    os._exit(0)
_, status = os.wait()
ended = signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
if ended not in (0, 125, "SIGALRM"):
    print(f"BUG REPRODUCES (crash): pass:ConvertLayout({{'relax.nn.conv2d': ['NCHW4c', 'OIHW4o']}}, None): died of {ended}")
    sys.exit(1)
if ended != 0:  # the child's own traceback says what failed instead
    print(f"changed (not a crash): the call at pass:ConvertLayout({{'relax.nn.conv2d': ['NCHW4c', 'OIHW4o']}}, None) ended with {ended}")
    sys.exit(125)
print("fixed: no crash at pass:ConvertLayout({'relax.nn.conv2d': ['NCHW4c', 'OIHW4o']}, None)")

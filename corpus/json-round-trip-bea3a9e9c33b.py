"""passfuzz json-round-trip-bea3a9e9c33b: json-round-trip in the unoptimized module.

tvm.ir.save_json and load_json of the unoptimized module: crash: SIGSEGV
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import os
import signal
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import tvm
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((), dtype="float32")) -> R.Tensor((), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((), dtype="float32") = x0
            R.output(gv)
        return gv


mod = Module
if os.fork() == 0:  # a child makes the round trip; this process reads how it ends
    signal.alarm(60)
    tvm.ir.assert_structural_equal(mod, tvm.ir.load_json(tvm.ir.save_json(mod)))
    os._exit(0)
_, status = os.wait()
ended = signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
if ended != 0:  # a signal, or the child's traceback (exit 1) says what differs
    print(f"BUG REPRODUCES (json-round-trip): save_json, load_json: {ended}")
    sys.exit(1)
print("fixed: the module saves and loads back as itself")

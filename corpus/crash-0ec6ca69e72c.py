"""passfuzz crash-0ec6ca69e72c: crash after LiftTransformParams on llvm.

crash at compile:llvm in VMShapeLower: SIGSEGV
Exits 1 while the bug reproduces, 0 once it is fixed.
"""
import signal
import subprocess
import sys

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


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


def to_tvm(argument, device=None):
    """One of ``Program.arguments()`` as the VM takes it, on ``device`` (the CPU if None): a
    tensor for an array, a shape for a tuple of ints (an R.Shape parameter), the int itself for
    an R.Prim parameter, and a tuple of those for a tuple parameter."""
    if isinstance(argument, int):
        return argument
    if isinstance(argument, tuple) and all(isinstance(item, int) for item in argument):
        return tvm.runtime.ShapeTuple(argument)
    if isinstance(argument, tuple):
        return tuple(to_tvm(item, device) for item in argument)
    return tvm.runtime.tensor(argument, device)


if sys.argv[1:] != ["child"]:  # run this script again in a child process and read how it ends
    fate = run_child([sys.executable, __file__, "child"], 60)
    print(f"BUG REPRODUCES (crash): compile:llvm: {fate}" if fate.startswith('died of') else f"fixed: no crash at compile:llvm ({fate or 'it exits 0'})")
    sys.exit(1 if fate.startswith('died of') else 0)


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


signal.alarm(60)  # the child's time limit, as passfuzz's for one side
mod = relax.transform.LiftTransformParams()(Module)
executable = tvm.compile(mod, 'llvm')

"""passfuzz crash-c45611be3037: crash after AdjustMatmulOrder on llvm.

crash at pass:AdjustMatmulOrder: SIGSEGV
Exits 1 while the bug reproduces, 0 once it is fixed.
"""
import signal
import subprocess
import sys

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


if sys.argv[1:] != ["child"]:  # run this script again in a child process and read how it ends
    fate = run_child([sys.executable, __file__, "child"], 60)
    print(f"BUG REPRODUCES (crash): pass:AdjustMatmulOrder: {fate}" if fate.startswith('died of') else f"fixed: no crash at pass:AdjustMatmulOrder ({fate or 'it exits 0'})")
    sys.exit(1 if fate.startswith('died of') else 0)


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


signal.alarm(60)  # the child's time limit, as passfuzz's for one side
mod = relax.transform.AdjustMatmulOrder()(Module)

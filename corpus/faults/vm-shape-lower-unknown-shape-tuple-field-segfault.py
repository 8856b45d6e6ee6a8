"""[Bug][Relax][VMShapeLower] a tuple parameter holding a tensor of unknown shape segfaults the static-shape shortcut

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm. The pass runs in a child process, since the
fault is a segmentation fault.
"""
import signal
import subprocess
import sys

if sys.argv[1:] != ["child"]:
    child = subprocess.run([sys.executable, __file__, "child"], capture_output=True, text=True, timeout=300)
    if child.returncode == -signal.SIGSEGV:
        print("REPRODUCES: VMShapeLower dies of SIGSEGV on BundleModelParams' tuple parameter")
        sys.exit(1)
    if child.returncode == 0:
        print("fixed:", child.stdout.strip())
        sys.exit(0)
    print("cannot run:", (child.stdout + child.stderr).strip().splitlines()[-1:])
    sys.exit(125)

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R
    from tvm.script import tirx as T

    @I.ir_module
    class Before:
        @R.function
        def main(n: T.int64, w: R.Tensor((4, "n"), "float32")) -> R.Tensor((4, "n"), "float32"):
            R.func_attr({"num_input": 0})
            return w

    # main(model_params: R.Tuple(T.int64, R.Tensor(dtype="float32", ndim=2))): the tensor's shape is unknown
    bundled = relax.transform.BundleModelParams()(Before)
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)
try:
    relax.transform.VMShapeLower()(bundled)
    print("VMShapeLower handles the tuple parameter")
except Exception as error:  # a clean diagnostic is not the crash under test
    print(f"VMShapeLower rejects it cleanly: {type(error).__name__}")

"""[Bug][Relax][StaticPlanBlockMemory] storage first allocated inside an If branch is reused after the If

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the build). Needs: tvm, numpy. The build and call run in a child
process, since the fault is a segmentation fault.
"""
import signal
import subprocess
import sys

if sys.argv[1:] != ["child"]:
    child = subprocess.run([sys.executable, __file__, "child"], capture_output=True, text=True, timeout=300)
    if child.returncode == -signal.SIGSEGV:
        print("REPRODUCES: the compiled module dies of SIGSEGV (StorageObj::AllocTensor)")
        sys.exit(1)
    if child.returncode == 2:
        print("REPRODUCES: the compiled module returns wrong values:", child.stdout.strip())
        sys.exit(1)
    if child.returncode == 0:
        print("fixed:", child.stdout.strip())
        sys.exit(0)
    print("cannot run:", (child.stdout + child.stderr).strip().splitlines()[-1:])
    sys.exit(125)

try:
    import numpy as np
    import tvm
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((2, 3), "float32"):
            if c:
                y: R.Tensor((2, 3), "float32") = x
            else:
                t = R.negative(x)
                y: R.Tensor((2, 3), "float32") = R.exp(t)
            z = R.add(y, x)
            w = R.multiply(z, z)
            return w

    vm = relax.VirtualMachine(tvm.compile(Module, "llvm"), tvm.cpu())
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)
out = vm["main"](tvm.runtime.tensor(np.zeros((2, 3), "float32")), tvm.runtime.tensor(np.array(False)))
ok = np.allclose(out.numpy(), 1.0)
print("the module runs" + ("" if ok else f" but returns {out.numpy().tolist()}"))
sys.exit(0 if ok else 2)

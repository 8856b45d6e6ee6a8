"""[Bug][Codegen][C] a packed call with a tensor argument emits invalid C: tvm_stack_alloca declared inside stack_shape's initializer

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure, or a failure of another kind). Needs: tvm, numpy, a C compiler.
"""
import sys

try:
    import numpy as np
    import tvm
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "int32"):
            with R.dataflow():
                gv = R.argsort(x, axis=0, dtype="int32")  # legalizes to a call of tvm.contrib.sort.argsort
                R.output(gv)
            return gv

    x = np.array([3.0, 1.0, 2.0, 0.0], dtype="float32")
    relax.VirtualMachine(tvm.compile(Module, "llvm"), tvm.cpu())["main"](tvm.runtime.tensor(x))  # llvm runs it
    executable = tvm.compile(Module, "c")
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    vm = relax.VirtualMachine(executable, tvm.cpu())  # compiles the generated C
except Exception as error:
    text = str(error)
    line = next((line.split("|", 1)[-1].strip() for line in text.splitlines()
                 if "TVMFFIAny stack_" in line and "=" in line), "")  # gcc quotes the line as "23 |   <source>"
    if "Compilation error" in text and line:
        print(f"REPRODUCES: R.argsort on target c: the generated C does not compile: `{line}`")
        sys.exit(1)
    print(f"cannot run: another failure: {text.splitlines()[0] if text else error!r}")
    sys.exit(125)
got = vm["main"](tvm.runtime.tensor(x)).numpy()
if not np.array_equal(got, np.argsort(x)):
    print(f"cannot run: it compiles now but computes {got}, not {np.argsort(x)}")
    sys.exit(125)
print("fixed: R.argsort compiles and runs on target c")

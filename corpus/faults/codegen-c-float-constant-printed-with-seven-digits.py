"""[Bug][Codegen][C] float64 and float32 constants are printed with 7 significant digits: T.float64(-2.9103976010669506) becomes -2.910398

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import, API or C compiler failure before the run). Needs: tvm, numpy, a C compiler.
"""
import sys

try:
    import numpy as np
    import tvm
    from tvm.script import ir as I
    from tvm.script import tirx as T

    @I.ir_module
    class Module:
        @T.prim_func
        def main(a: T.Buffer((1,), "float64"), b: T.Buffer((1,), "float64")):
            b[0] = a[0] + T.float64(-2.9103976010669506)

    lib = tvm.compile(Module, "c")
    source = lib.mod.inspect_source() if hasattr(lib, "mod") else lib.inspect_source()
    a = tvm.runtime.tensor(np.zeros(1, dtype="float64"))
    b = tvm.runtime.tensor(np.zeros(1, dtype="float64"))
    lib(a, b)
    got = float(b.numpy()[0])
except Exception as error:  # not the fault: this TVM (or this machine) cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

literal = next((line.strip() for line in source.splitlines() if "b[0]" in line and "=" in line), "?")
if got != -2.9103976010669506:
    print(f"REPRODUCES: on target c, 0 + T.float64(-2.9103976010669506) gives {got!r}; the C source reads `{literal}`")
    sys.exit(1)
print("fixed: on target c the float64 constant keeps its value")

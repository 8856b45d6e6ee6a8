"""[Bug][Relax][SpecializePrimFuncBasedOnCallSite] a PrimFunc called at two shapes is specialized to the last call site only: the other call fails at run time

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import, API or build failure before the run). Needs: tvm, numpy.
"""
import sys

try:
    import numpy as np
    import tvm
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R
    from tvm.script import tirx as T

    @I.ir_module
    class Before:
        @T.prim_func(private=True, s_tir=True)
        def addone(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (n,), "float32")
            for i in range(n):
                with T.sblock("addone"):
                    vi = T.axis.remap("S", [i])
                    B[vi] = A[vi] + T.float32(1.0)

        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((2,), "float32")):
            cls = Before
            with R.dataflow():
                a = R.call_tir(cls.addone, (x,), out_ty=R.Tensor((4,), "float32"))
                b = R.call_tir(cls.addone, (y,), out_ty=R.Tensor((2,), "float32"))
                gv = (a, b)
                R.output(gv)
            return gv

    mod = relax.transform.LegalizeOps()(Before)  # nothing to legalize: the phase the pass expects
    mod = relax.transform.SpecializePrimFuncBasedOnCallSite()(mod)
    shape = [int(d) for d in mod["addone"].params[0].ty.shape]
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    x, y = np.arange(4, dtype="float32"), np.arange(2, dtype="float32")
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    a, b = vm["main"](tvm.runtime.tensor(x), tvm.runtime.tensor(y))
except Exception as error:
    print(f"REPRODUCES: addone was specialized to shape {shape} (the second call's); the call with a (4,) tensor fails:",
          " ".join(str(error).split())[-120:])
    sys.exit(1)
if not (np.array_equal(a.numpy(), x + 1) and np.array_equal(b.numpy(), y + 1)):
    print("REPRODUCES: wrong result:", a.numpy(), b.numpy())
    sys.exit(1)
print("fixed: each call site runs a PrimFunc of its own shapes")

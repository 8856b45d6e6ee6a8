import numpy as np
import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def test_prim_func_called_with_two_shapes():
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

    After = relax.transform.SpecializePrimFuncBasedOnCallSite()(Before)
    x, y = np.arange(4, dtype="float32"), np.arange(2, dtype="float32")
    vm = relax.VirtualMachine(tvm.compile(After, "llvm"), tvm.cpu())
    a, b = vm["main"](tvm.runtime.tensor(x), tvm.runtime.tensor(y))
    tvm.testing.assert_allclose(a.numpy(), x + 1)
    tvm.testing.assert_allclose(b.numpy(), y + 1)


if __name__ == "__main__":
    tvm.testing.main()

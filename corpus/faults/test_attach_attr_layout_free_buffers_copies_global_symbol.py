import numpy as np
import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def test_public_prim_func_keeps_unique_global_symbols():
    @I.ir_module
    class Before:
        @T.prim_func(s_tir=True)
        def addone(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
            for i, j in T.grid(16, 16):
                with T.sblock("addone"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = A[vi, vj] + T.float32(1.0)

        @R.function
        def main(x: R.Tensor((16, 16), "float32")) -> R.Tensor((16, 16), "float32"):
            cls = Before
            with R.dataflow():
                gv = R.call_tir(cls.addone, (x,), out_ty=R.Tensor((16, 16), "float32"))
                R.output(gv)
            return gv

    After = relax.transform.AttachAttrLayoutFreeBuffers()(Before)
    symbols = [
        str(func.attrs["global_symbol"])
        for func in After.functions.values()
        if func.attrs is not None and "global_symbol" in func.attrs
    ]
    # Each exported symbol names one function, and that function's GlobalVar.
    assert len(symbols) == len(set(symbols)), symbols
    for gv, func in After.functions.items():
        if func.attrs is not None and "global_symbol" in func.attrs:
            assert func.attrs["global_symbol"] == gv.name_hint

    x = np.random.uniform(size=(16, 16)).astype("float32")
    vm = relax.VirtualMachine(tvm.compile(After, "llvm"), tvm.cpu())
    tvm.testing.assert_allclose(vm["main"](tvm.runtime.tensor(x)).numpy(), x + 1)


if __name__ == "__main__":
    tvm.testing.main()

import numpy as np
import tvm
import tvm.testing
from tvm.script import ir as I
from tvm.script import tirx as T


def test_fabs_on_c_target():
    @I.ir_module
    class Module:
        @T.prim_func
        def main(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
            for i in range(4):
                b[i] = T.fabs(a[i])

    dev = tvm.cpu()
    lib = tvm.compile(Module, "c")
    a = np.array([-1.5, 2.0, -3.0, 0.0], dtype="float32")
    b = tvm.runtime.tensor(np.zeros(4, dtype="float32"), dev)
    lib(tvm.runtime.tensor(a, dev), b)
    tvm.testing.assert_allclose(b.numpy(), np.abs(a))


if __name__ == "__main__":
    tvm.testing.main()

import pytest

import tvm
import tvm.testing
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@pytest.mark.parametrize("dtype", ["int32", "int8", "uint8"])
def test_roundtrip_prim_value_keeps_integer_dtype(dtype):
    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            y = R.call_pure_packed("my_func", x, R.prim_value(T.IntImm(dtype, 3)), ty_args=R.Tensor((2,), "float32"))
            return y

    after = tvm.script.from_source(Module.script())
    tvm.ir.assert_structural_equal(Module, after)


def test_roundtrip_call_tir_with_int32_scalar_argument():
    @I.ir_module
    class Module:
        @T.prim_func(private=True, s_tir=True)
        def add_n(a: T.Buffer((2,), "float32"), n: T.int32, b: T.Buffer((2,), "float32")):
            for i in range(2):
                with T.sblock("b"):
                    vi = T.axis.spatial(2, i)
                    b[vi] = a[vi] + T.Cast("float32", n)

        @R.function
        def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            cls = Module
            return R.call_tir(cls.add_n, (x, R.prim_value(T.int32(3))), out_ty=R.Tensor((2,), "float32"))

    after = tvm.script.from_source(Module.script())
    tvm.ir.assert_structural_equal(Module, after)


if __name__ == "__main__":
    tvm.testing.main()

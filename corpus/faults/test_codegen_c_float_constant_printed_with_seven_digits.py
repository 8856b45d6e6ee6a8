import numpy as np
import pytest

import tvm
import tvm.testing
from tvm.script import ir as I
from tvm.script import tirx as T


@pytest.mark.parametrize(
    "dtype, value",
    [
        ("float64", -2.9103976010669506),
        ("float64", 0.7978845608028654),  # sqrt(2 / pi), as gelu_tanh's legalization holds it
        ("float64", 1.2345678901234567e-20),
        ("float32", float(np.float32(1.0000001))),
        ("float32", float(np.float32(16777215.0))),
    ],
)
def test_c_codegen_float_constant_keeps_its_value(dtype, value):
    @I.ir_module
    class Module:
        @T.prim_func
        def main(a: T.Buffer((1,), dtype), b: T.Buffer((1,), dtype)):
            b[0] = a[0] + T.FloatImm(dtype, value)

    lib = tvm.compile(Module, "c")
    a = tvm.runtime.tensor(np.zeros(1, dtype=dtype))
    b = tvm.runtime.tensor(np.zeros(1, dtype=dtype))
    lib(a, b)
    np.testing.assert_array_equal(b.numpy(), np.array([value], dtype=dtype))


if __name__ == "__main__":
    tvm.testing.main()

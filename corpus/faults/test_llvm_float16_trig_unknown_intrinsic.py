import numpy as np
import pytest

import tvm
import tvm.testing
from tvm import relax


@pytest.mark.parametrize("name", ["asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atan2"])
def test_llvm_float16_trig(name):
    x = relax.Var("x", relax.TensorType((4,), "float16"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            op = getattr(relax.op, name)
            gv = bb.emit_output(op(x, x) if name == "atan2" else op(x))
        bb.emit_func_output(gv)

    ex = tvm.compile(bb.get(), target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    x_np = np.array([0.1, 0.5, 0.9, 0.25], "float16") + (1.5 if name == "acosh" else 0)
    x_np = x_np.astype("float16")
    out = vm["main"](tvm.runtime.tensor(x_np)).numpy()
    ref = getattr(np, {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
                       "acosh": "arccosh", "atan2": "arctan2"}.get(name, name))
    x32 = x_np.astype("float32")
    expected = ref(x32, x32) if name == "atan2" else ref(x32)
    tvm.testing.assert_allclose(out.astype("float32"), expected, rtol=2e-3, atol=2e-3)


if __name__ == "__main__":
    tvm.testing.main()

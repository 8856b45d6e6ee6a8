import numpy as np
import pytest

import tvm
import tvm.testing
import tvm.topi.testing
from tvm import relax


@pytest.mark.parametrize(
    "shape, pool_size, top, padding",
    [
        # window (0, 3), past the output's width, is read as window (1, 1), which holds the top
        ((1, 1, 4, 4), (3, 3), (2, 3), (0, 0, 0, 0)),
        ((1, 1, 3, 4), (2, 3), (1, 3), (0, 0, 0, 0)),
        ((1, 1, 4, 5), (2, 3), (2, 4), (1, 0, 0, 0)),
    ],
)
def test_max_pool2d_backward_kernel_larger_than_stride(shape, pool_size, top, padding):
    strides = (1, 1)
    out_h = (shape[2] - pool_size[0] + padding[0] + padding[2]) // strides[0] + 1
    out_w = (shape[3] - pool_size[1] + padding[1] + padding[3]) // strides[1] + 1
    out_shape = (shape[0], shape[1], out_h, out_w)

    bb = relax.BlockBuilder()
    dy = relax.Var("dy", relax.TensorType(out_shape, "float32"))
    x = relax.Var("x", relax.TensorType(shape, "float32"))
    with bb.function("main", [dy, x]):
        with bb.dataflow():
            gv = bb.emit_output(
                relax.op.grad.max_pool2d_backward(
                    dy, x, pool_size=pool_size, strides=strides, padding=padding
                )
            )
        bb.emit_func_output(gv)

    x_np = -np.arange(np.prod(shape), dtype="float32").reshape(shape)  # no ties
    x_np[0, 0, top[0], top[1]] = 100.0
    dy_np = np.arange(1, np.prod(out_shape) + 1, dtype="float32").reshape(out_shape)
    expected = tvm.topi.testing.pool_grad_nchw(
        x_np, dy_np, pool_size, strides, padding, "max", ceil_mode=False
    )
    vm = relax.VirtualMachine(tvm.compile(bb.get(), "llvm"), tvm.cpu())
    out = vm["main"](tvm.runtime.tensor(dy_np), tvm.runtime.tensor(x_np)).numpy()
    tvm.testing.assert_allclose(out, expected, rtol=1e-6)


if __name__ == "__main__":
    tvm.testing.main()

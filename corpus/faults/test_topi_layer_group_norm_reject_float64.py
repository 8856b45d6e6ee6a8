import numpy as np
import pytest

import tvm
import tvm.testing
from tvm import relax


def _normalize(x, axes, eps):
    mean = x.mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


@pytest.mark.parametrize("op", ["layer_norm", "group_norm", "instance_norm"])
def test_norm_float64(op):
    x = relax.Var("x", relax.TensorType((2, 4, 3), "float64"))
    gamma = relax.Var("gamma", relax.TensorType((4,) if op != "layer_norm" else (3,), "float64"))
    beta = relax.Var("beta", relax.TensorType((4,) if op != "layer_norm" else (3,), "float64"))
    if op == "layer_norm":
        call = relax.op.nn.layer_norm(x, gamma, beta, axes=[-1], epsilon=1e-5)
    elif op == "group_norm":
        call = relax.op.nn.group_norm(x, gamma, beta, num_groups=2, channel_axis=1, axes=[2], epsilon=1e-5)
    else:
        call = relax.op.nn.instance_norm(x, gamma, beta, channel_axis=1, axes=[2], epsilon=1e-5)
    bb = relax.BlockBuilder()
    with bb.function("main", [x, gamma, beta]):
        with bb.dataflow():
            gv = bb.emit_output(call)
        bb.emit_func_output(gv)

    ex = tvm.compile(bb.get(), target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    rng = np.random.default_rng(0)
    x_np = rng.uniform(-1, 1, (2, 4, 3))
    g_np = rng.uniform(0.5, 2, gamma.ty.shape[0].value)
    b_np = rng.uniform(-1, 1, beta.ty.shape[0].value)
    out = vm["main"](*[tvm.runtime.tensor(a) for a in (x_np, g_np, b_np)]).numpy()
    if op == "layer_norm":
        expected = _normalize(x_np, (2,), 1e-5) * g_np + b_np
    else:
        groups = 2 if op == "group_norm" else 4
        grouped = x_np.reshape(2, groups, 4 // groups, 3)
        normalized = _normalize(grouped, (2, 3), 1e-5).reshape(2, 4, 3)
        expected = normalized * g_np[:, None] + b_np[:, None]
    tvm.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-10)


if __name__ == "__main__":
    tvm.testing.main()

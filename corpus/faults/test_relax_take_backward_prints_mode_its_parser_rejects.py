import tvm
import tvm.testing
from tvm import relax


def _take_backward_module():
    bb = relax.BlockBuilder()
    grad = relax.Var("grad", relax.TensorType((1,), "float32"))
    x = relax.Var("x", relax.TensorType((2,), "float32"))
    indices = relax.Var("indices", relax.TensorType((1,), "int64"))
    with bb.function("main", [grad, x, indices]):
        out = bb.emit(relax.op.grad.take_backward(grad, x, indices, axis=0))
        bb.emit_func_output(out)
    return bb.get()


def test_roundtrip_take_backward():
    mod = _take_backward_module()
    tvm.ir.assert_structural_equal(mod, tvm.script.from_source(mod.script()))


def test_roundtrip_gradient_of_take():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((3,), "float32"))
    indices = relax.Var("indices", relax.TensorType((2,), "int64"))
    with bb.function("main", [x, indices]):
        with bb.dataflow():
            y = bb.emit(relax.op.take(x, indices, axis=0))
            loss = bb.emit_output(relax.op.sum(y))
        bb.emit_func_output(loss)
    mod = relax.transform.Gradient("main")(bb.get())
    tvm.ir.assert_structural_equal(mod, tvm.script.from_source(mod.script()))


if __name__ == "__main__":
    tvm.testing.main()

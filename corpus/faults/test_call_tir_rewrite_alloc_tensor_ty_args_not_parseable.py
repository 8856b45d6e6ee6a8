import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def test_call_tir_rewrite_output_roundtrips():
    """The alloc_tensor CallTIRRewrite emits must be one R.builtin.alloc_tensor can express."""

    @I.ir_module
    class Module:
        @T.prim_func
        def exp(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
            for i in range(4):
                B[i] = T.exp(A[i])

        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            R.func_attr({"relax.force_pure": True})
            y = R.call_tir(Module.exp, (x,), R.Tensor((4,), "float32"))
            return y

    After = relax.transform.CallTIRRewrite()(Module)
    alloc = After["main"].body.blocks[0].bindings[0].value
    assert alloc.op.name == "relax.builtin.alloc_tensor"
    # relax.op.builtin.alloc_tensor builds the call without ty_args; its type comes from its arguments
    assert len(alloc.ty_args) == 0
    tvm.ir.assert_structural_equal(After, tvm.script.from_source(After.script()))


if __name__ == "__main__":
    tvm.testing.main()

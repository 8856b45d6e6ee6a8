import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def _assert_roundtrip(mod):
    after = tvm.script.from_source(mod.script())
    tvm.ir.assert_structural_equal(mod, after)


def test_roundtrip_call_of_extern_func_with_derive_func():
    """The callee's type (purity, derive_func) must survive printing, as LowerRuntimeBuiltin emits it for R.memory.view."""

    @I.ir_module
    class Module:
        @R.function
        def main(A: R.Tensor([4096], "float32")):
            B = R.ExternFunc(
                "runtime.TVMTensorCreateView",
                R.Callable(derive_func="tvm.relax.type.infer_view_ty", purity=True),
            )(A, R.shape([64, 64]), R.dtype("float32"), R.prim_value(0))
            return B

    _assert_roundtrip(Module)


def test_roundtrip_after_lower_runtime_builtin_of_view():
    @I.ir_module
    class Before:
        @R.function
        def main(A: R.Tensor([4096], "float32")):
            B = R.memory.view(A, shape=R.shape([64, 64]))
            return B

    _assert_roundtrip(relax.transform.LowerRuntimeBuiltin()(Before))


if __name__ == "__main__":
    tvm.testing.main()

import tvm
import tvm.testing
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def test_roundtrip_prim_func_type_var_named_like_relax_symbolic_var():
    """A PrimFunc buffer-shape variable printed as a module-level TypeVar must not clash
    with a Relax function that declares a symbolic variable of the same name."""

    @I.ir_module
    class Module:
        @T.prim_func(private=True)
        def fill(a: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,))
            for i in range(n):
                A[i] = T.float32(0)

        @R.function
        def main(s: R.Shape(ndim=1)):
            n = T.int64()
            cls = Module
            _ = R.match_cast(s, R.Shape([n]))
            return R.call_tir(cls.fill, (), out_ty=R.Tensor((n,), "float32"))

    after = tvm.script.from_source(Module.script())
    tvm.ir.assert_structural_equal(Module, after)


if __name__ == "__main__":
    tvm.testing.main()

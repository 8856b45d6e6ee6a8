import tvm
import tvm.testing
from tvm.script import ir as I
from tvm.script import relax as R


def _assert_roundtrip(mod):
    after = tvm.script.from_source(mod.script())
    tvm.ir.assert_structural_equal(mod, after)


def test_roundtrip_callable_with_prim_param():
    """The printer writes R.Prim("int64") inside R.Callable as T.int64; the parser must read it back."""

    @I.ir_module
    class Module:
        @R.function
        def main(f: R.Callable((R.Prim("int64"), R.Object), R.Tuple)):
            return f

    _assert_roundtrip(Module)


def test_roundtrip_tuple_with_prim_field():
    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Prim("int64")) -> R.Tuple(R.Prim("int64"), R.Prim("int64")):
            t = (x, x)
            return t

    _assert_roundtrip(Module)


if __name__ == "__main__":
    tvm.testing.main()

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_take_int_index_is_int64_prim_value():
    """A bare integer index means what the printer writes for R.prim_value(0): an int64 PrimValue."""
    x = relax.Var("x", R.Tensor((2, 3, 4), "float32"))
    tvm.ir.assert_structural_equal(relax.op.take(x, 0, axis=1), relax.op.take(x, relax.prim_value(0), axis=1))


def test_roundtrip_take_prim_value_index():
    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((2, 3, 4), "float32")) -> R.Tensor((2, 4), "float32"):
            gv: R.Tensor((2, 4), "float32") = R.take(x, R.prim_value(0), axis=1)
            return gv

    tvm.ir.assert_structural_equal(Module, tvm.script.from_source(Module.script()))


if __name__ == "__main__":
    tvm.testing.main()

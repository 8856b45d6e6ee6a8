import tvm
import tvm.testing
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def test_roundtrip_int64_prim_value_argument_of_var_call():
    """The printer writes an int64 R.prim_value argument as a bare `0`; a call of a
    Relax variable must read it back as int64, as every other Relax integer literal is."""

    @I.ir_module
    class Module:
        @R.function(pure=False)
        def main(f: R.Callable):
            y = f(R.prim_value(T.int64(0)))
            return y

    after = tvm.script.from_source(Module.script())
    tvm.ir.assert_structural_equal(Module, after)


def test_var_call_integer_literal_is_int64():
    @R.function(pure=False)
    def main(f: R.Callable):
        y = f(0)
        return y

    assert main.body.blocks[0].bindings[0].value.args[0].ty.dtype == "int64"


if __name__ == "__main__":
    tvm.testing.main()

from typing import TypeVar

import tvm
import tvm.testing
from tvm.script import tirx as T

M = TypeVar("M")


def test_prim_func_with_type_var_buffer_shape_in_python_file():
    """The portable (pre-3.12) form the printer emits must also run as Python, as it does for
    Relax (tests/python/relax/test_tvmscript_type_vars.py defines such an R.function in a file)."""

    @T.prim_func(private=True)
    def func(A: T.Buffer((M,), "float32")):
        A[0] = T.float32(1)

    expected = tvm.script.from_source(
        """
M = TypeVar("M")

@T.prim_func(private=True)
def func(A: T.Buffer((M,), "float32")):
    A[0] = T.float32(1)
"""
    )
    tvm.ir.assert_structural_equal(func, expected)


if __name__ == "__main__":
    tvm.testing.main()

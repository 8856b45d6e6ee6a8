"""Shapes and scalars used as values, imported as TVM's own test modules write them: each module
below is in the style of apache/tvm's tests/python/relax/, and its import must build back into a
module that gives what the written one gives, and what numpy gives (``agrees``)."""

import numpy as np
import pytest
from tvm.script import ir as I
from tvm.script import relax as R

from passfuzz.ir.catalogue.base import OpError
from passfuzz.relax.build import build_module

from .catalogue_support import F, infer, ref
from .test_importer import agrees

# -- size ---------------------------------------------------------------------------------------------


@I.ir_module
class Size:
    @R.function
    def main(x: R.Tensor(("m", "n"), "float32"), y: R.Tensor((2, 3, 4), "int32")):
        a = R.size(x)
        b = R.size(y)
        return (a, b)


def test_size_of_a_symbolic_and_a_static_tensor_imports_and_agrees():
    program = agrees(Size, [np.zeros((3, 5), "float32"), np.zeros((2, 3, 4), "int32")])
    assert [n.op for n in program.nodes] == ["size", "size"]
    assert "R.size(x0)" in build_module(program).script()  # on x0 as typed, (m, n): no match_cast
    assert ref("size", np.zeros((3, 5))) == 15 and ref("size", np.zeros((3, 5))).dtype == "int64"
    assert infer("size", F((7, 3))).shape == () and infer("size", F((7, 3))).lo == 21
    with pytest.raises(OpError):
        infer("size", F((2,)), axis=0)

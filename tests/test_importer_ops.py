"""Ops and attribute forms TVM's own test modules write, imported as they are written there: each
module below is in the style of apache/tvm's tests/python/relax/, and its import must build back
into a module that gives what the written one gives, and what numpy gives (``agrees``)."""

import numpy as np
import pytest
from tvm.script import ir as I
from tvm.script import relax as R

from passfuzz.ir.catalogue.base import OpError

from .catalogue_support import F, infer, ref
from .test_importer import agrees

# -- expand_dims with several axes ----------------------------------------------------------------

@I.ir_module
class ExpandDims:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")):
        gv = R.expand_dims(x, axis=[-1, 1, -6, 3, 5])
        return gv


def test_expand_dims_with_several_axes_imports_and_agrees():
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    program = agrees(ExpandDims, [x])
    assert program.nodes[-1].attrs["axis"] == [-1, 1, -6, 3, 5]
    assert ref("expand_dims", x, axis=[-1, 1, -6, 3, 5]).shape == (2, 1, 1, 1, 3, 1, 4, 1)


def test_expand_dims_axes_count_in_the_result_rank_and_must_not_repeat():
    assert infer("expand_dims", F((64,)), axis=[0, 2, 3]).shape == (1, 64, 1, 1)
    assert infer("expand_dims", F((2, 3)), axis=[-4, 2]).shape == (1, 2, 1, 3)
    with pytest.raises(OpError):
        infer("expand_dims", F((2, 3)), axis=[1, -3])  # -3 is 1 in rank 4
    with pytest.raises(OpError):
        infer("expand_dims", F((2, 3)), axis=[4, 0])  # rank 4 has no axis 4

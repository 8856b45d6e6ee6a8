import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def test_float64_constructor_beyond_float32_range():
    for value in (float(np.finfo("float64").min), 1e300):
        imm = T.float64(value)
        assert imm.ty.dtype == "float64" and imm.value == value


def test_roundtrip_legalized_float64_max():
    """TOPI's max reduction starts from -DBL_MAX, which the printer writes as T.float64(-1797...0.0)."""

    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((2, 3), "float64")) -> R.Tensor((2,), "float64"):
            with R.dataflow():
                gv = R.max(x, axis=1)
                R.output(gv)
            return gv

    mod = relax.transform.LegalizeOps()(Module)
    tvm.ir.assert_structural_equal(mod, tvm.script.from_source(mod.script()))


if __name__ == "__main__":
    tvm.testing.main()

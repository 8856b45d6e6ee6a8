import pytest

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


@pytest.mark.parametrize("shared_transform", [False, True])
def test_return_value_computed_from_weights_only(shared_transform):
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32"), w: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            R.func_attr({"num_input": 1})
            with R.dataflow():
                gv = R.exp(w)
                R.output(gv)
            return gv

    After = relax.transform.LiftTransformParams(shared_transform=shared_transform)(Before)
    # `gv` is computed in the transform_params function: `main` must receive it as a parameter.
    relax.analysis.well_formed(After)  # raises on the first violation in 0.27


def test_return_value_with_symbolic_weight_shape():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32"), w: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            R.func_attr({"num_input": 1})
            with R.dataflow():
                gv = R.exp(w)
                R.output(gv)
            return gv

    After = relax.transform.LiftTransformParams()(Before)
    relax.analysis.well_formed(After)  # raises on the first violation in 0.27


if __name__ == "__main__":
    tvm.testing.main()

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_transform_params_returning_its_parameter_tuple():
    @I.ir_module
    class Before:
        @R.function
        def transform_params(params: R.Tuple(R.Tensor((1,), "float32"))) -> R.Tuple(R.Tensor((1,), "float32")):
            R.func_attr({"num_input": 0})
            return params

    After = relax.transform.LazyTransformParams()(Before)
    relax.analysis.well_formed(After)  # raises on the first violation in 0.27
    script = After.script()
    assert 'R.call_packed("get_item"' in script and 'R.call_packed("set_item"' in script


if __name__ == "__main__":
    tvm.testing.main()

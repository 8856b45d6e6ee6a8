import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_output_bound_by_match_cast_is_set():
    @I.ir_module
    class Before:
        @R.function
        def transform_params(params: R.Tuple(R.Tensor(("n",), "float32"))) -> R.Tuple(R.Tensor((4,), "float32")):
            R.func_attr({"num_input": 0})
            w = params[0]
            lv = R.negative(w)
            lv1 = R.match_cast(lv, R.Tensor((4,), "float32"))
            out = (lv1,)
            return out

    After = relax.transform.LazyTransformParams()(Before)
    # lv1 is output 0: it must be handed to set_item like an output bound by a VarBinding.
    assert 'R.call_packed("set_item", 0,' in After.script()


if __name__ == "__main__":
    tvm.testing.main()

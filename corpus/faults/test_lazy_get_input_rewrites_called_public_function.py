import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Before:
    @R.function
    def helper(a: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return R.exp(a)

    @R.function
    def main(x: R.Tensor((2,), "float32"), w: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        R.func_attr({"num_input": 1})
        y = Before.helper(w)
        return R.add(x, y)


def _calls_match_signatures(mod):
    for _, func in mod.functions_items():
        if not isinstance(func, relax.Function):
            continue
        for call in _calls(func):
            callee = mod[call.op]
            if len(call.args) != len(callee.params):
                return False
            for arg, param in zip(call.args, callee.params):
                if type(arg.ty) is not type(param.ty):  # e.g. a tensor passed for a callback
                    return False
    return True


def _calls(func):
    found = []
    relax.analysis.post_order_visit(
        func, lambda e: found.append(e) if isinstance(e, relax.Call) and isinstance(e.op, tvm.ir.GlobalVar) else None
    )
    return found


def test_lazy_get_input_keeps_calls_to_public_helper_consistent():
    After = relax.transform.LazyGetInput()(Before)
    assert _calls_match_signatures(After)


def test_lazy_set_output_keeps_calls_to_public_helper_consistent():
    After = relax.transform.LazySetOutput()(Before)
    assert _calls_match_signatures(After)


if __name__ == "__main__":
    tvm.testing.main()

"""[Bug][Relax][LazyTransformParams] an output bound by match_cast gets no set_item call

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

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

    after = relax.transform.LazyTransformParams()(Before)
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

if 'R.call_packed("set_item"' not in after.script():
    print("REPRODUCES: no set_item call for the match_cast output: the transformed weight is never written")
    sys.exit(1)
print("fixed: the match_cast output is written with set_item")

"""[Bug][Relax][LazyTransformParams] a transform_params that returns its parameter tuple unchanged becomes ill-formed

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Before:  # what LiftTransformParams emits for a weight `main` uses unchanged
        @R.function
        def transform_params(params: R.Tuple(R.Tensor((1,), "float32"))) -> R.Tuple(R.Tensor((1,), "float32")):
            R.func_attr({"num_input": 0})
            return params
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

after = relax.transform.LazyTransformParams()(Before)
try:
    relax.analysis.well_formed(after)  # returns None in 0.27, raises the first violation
    problem = ""
except Exception as error:
    problem = str(error).strip().splitlines()[-1]
if problem:
    print(f"REPRODUCES: ill-formed after LazyTransformParams: {problem}")
    sys.exit(1)
print("fixed: each weight is fetched with get_item and written with set_item")

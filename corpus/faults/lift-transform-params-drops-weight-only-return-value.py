"""[Bug][Relax][LiftTransformParams] a return value computed from weights only is lifted out but still returned

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
        def main(x: R.Tensor((2,), "float32"), w: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            R.func_attr({"num_input": 1})
            with R.dataflow():
                gv = R.exp(w)
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

after = relax.transform.LiftTransformParams()(Before)
try:
    relax.analysis.well_formed(after)  # returns None in 0.27, raises the first violation
    problem = ""
except Exception as error:  # TVM 0.27 raises the first violation
    problem = str(error).strip().splitlines()[-1]
if problem:  # `main` returns gv, whose binding went to main_transform_params
    print(f"REPRODUCES: ill-formed after LiftTransformParams: {problem}")
    sys.exit(1)
print("fixed: the weight-only return value is passed back to main as a parameter")

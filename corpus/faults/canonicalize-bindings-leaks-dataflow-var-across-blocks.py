"""[Bug][Relax][CanonicalizeBindings] gv[0] of a tuple output by an earlier dataflow block is folded to that block's DataflowVar

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
        def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            with R.dataflow():
                lv = R.exp(x)
                gv = (lv, lv)
                R.output(gv)
            y = R.add(x, x)
            with R.dataflow():
                lv1 = gv[0]  # becomes `lv`, a DataflowVar of the first block
                gv1 = R.add(lv1, y)
                R.output(gv1)
            return gv1
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

after = relax.transform.CanonicalizeBindings()(Before)
try:
    relax.analysis.well_formed(after)  # returns None in 0.27, raises the first violation
    problem = ""
except Exception as error:
    problem = str(error).strip().splitlines()[-1]
if problem:
    print(f"REPRODUCES: ill-formed after CanonicalizeBindings: {problem}")
    sys.exit(1)
print("fixed: the second block no longer uses the first block's DataflowVar")

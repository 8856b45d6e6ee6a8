"""[Bug][Relax][DPL] the pattern rewriter matches through match_cast bindings, so rewrites drop the cast

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Before:  # y is x cast to (2, 2); ExpandMatmulOfSum rewrites through RewriteCall
        @R.function
        def main(x: R.Tensor(("n", "n"), "float32"), a: R.Tensor((2, 2), "float32"),
                 b: R.Tensor((2, 2), "float32")) -> R.Tensor((2, 2), "float32"):
            with R.dataflow():
                y = R.match_cast(x, R.Tensor((2, 2), "float32"))
                gv = R.matmul(y, R.add(a, b))
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    after = relax.transform.ExpandMatmulOfSum()(Before)
    problem = "" if relax.analysis.well_formed(after) else "not well formed"
except Exception as error:  # TVM 0.27 raises the first violation
    if "cannot be assigned" not in str(error):
        print(f"cannot run: unexpected {error!r}")
        sys.exit(125)
    problem = str(error).strip().splitlines()[-1]
if problem:  # the rewrite reads x (n, n), not the cast y (2, 2)
    print(f"REPRODUCES: ill-formed after ExpandMatmulOfSum: {problem}")
    sys.exit(1)
print("fixed: the rewrite keeps the match_cast value")

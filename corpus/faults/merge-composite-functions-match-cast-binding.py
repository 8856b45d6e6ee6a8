"""[Bug][Relax][MergeCompositeFunctions] a match_cast binding raises TypeError: Invalid type: relax.expr.MatchCast

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor((3,), "float32"):
            with R.dataflow():
                gv = R.match_cast(x, R.Tensor((3,), "float32"))
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.MergeCompositeFunctions()(Module)
except Exception as error:
    message = str(error).strip().splitlines()[-1]
    if "Invalid type: relax.expr.MatchCast" not in message:
        print(f"cannot tell: another failure: {type(error).__name__}: {message}")
        sys.exit(125)
    print(f"REPRODUCES: MergeCompositeFunctions rejects a match_cast binding: {message}")
    sys.exit(1)
print("fixed: MergeCompositeFunctions accepts a match_cast binding")

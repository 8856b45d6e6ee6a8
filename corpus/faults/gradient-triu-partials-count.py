"""[Bug][Relax][Gradient] triu's registered gradient returns one partial for two arguments: partials number != inputs number

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
        def main(x: R.Tensor((2, 2), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                lv = R.triu(x, 0)
                gv = R.sum(lv)
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.Gradient("main")(Module)
except Exception as error:
    if 'partials number != inputs number' not in str(error):
        print(f"cannot run: another failure: {error!r}")
        sys.exit(125)
    print(f"REPRODUCES: Gradient raised: {str(error).strip().splitlines()[-1][:160]}")
    sys.exit(1)
print('fixed: Gradient differentiates triu')

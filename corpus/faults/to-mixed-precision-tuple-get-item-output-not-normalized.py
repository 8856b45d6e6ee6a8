"""[Bug][Relax][ToMixedPrecision] a TupleGetItem bound to a dataflow output fails: The type is not populated

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
        def main(x: R.Tensor((1, 2), "float32")) -> R.Tensor((1, 1), "float32"):
            with R.dataflow():
                t = R.split(x, indices_or_sections=2, axis=1)
                gv = t[0]
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.ToMixedPrecision()(Module)
except Exception as error:
    if 'The type is not populated' not in str(error):
        print(f"cannot run: another failure: {error!r}")
        sys.exit(125)
    print(f"REPRODUCES: ToMixedPrecision raised: {str(error).strip().splitlines()[-1][:160]}")
    sys.exit(1)
print('fixed: ToMixedPrecision accepts a TupleGetItem output')

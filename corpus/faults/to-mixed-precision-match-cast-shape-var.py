"""[Bug][Relax][ToMixedPrecision] match_cast of a shape computed in the block fails: Expected TensorType, but got R.Shape

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R
    from tvm.script import tirx as T

    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Shape(ndim=1):
            n = T.int64()
            with R.dataflow():
                s = R.shape_of(x)
                gv = R.match_cast(s, R.Shape([n]))
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.ToMixedPrecision()(Module)
except Exception as error:
    if 'Expected TensorType, but got R.Shape' not in str(error):
        print(f"cannot run: another failure: {error!r}")
        sys.exit(125)
    print(f"REPRODUCES: ToMixedPrecision raised: {str(error).strip().splitlines()[-1][:160]}")
    sys.exit(1)
print('fixed: ToMixedPrecision accepts a match_cast of a shape variable')

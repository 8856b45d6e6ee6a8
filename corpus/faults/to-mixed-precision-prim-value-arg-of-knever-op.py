"""[Bug][Relax][ToMixedPrecision] clip with R.prim_value bounds after a float16 op fails: Expected TensorType, but got T.float32

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
        def main(x: R.Tensor((1, 4), "float32"), w: R.Tensor((4, 4), "float32")) -> R.Tensor((1, 4), "float32"):
            with R.dataflow():
                lv = R.matmul(x, w)
                gv = R.clip(lv, R.prim_value(T.float32(0)), R.prim_value(T.float32(1)))
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.ToMixedPrecision()(Module)
except Exception as error:
    if 'Expected TensorType, but got T.' not in str(error):
        print(f"cannot run: another failure: {error!r}")
        sys.exit(125)
    print(f"REPRODUCES: ToMixedPrecision raised: {str(error).strip().splitlines()[-1][:160]}")
    sys.exit(1)
print("fixed: ToMixedPrecision accepts clip's prim_value bounds")

"""[Bug][Relax][CombineParallelMatmul] parallel matmuls with a 1-D operand abort the pass

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class VectorLhs:  # 1-D shared left operand: the 1-D combined result is split on axis 1
        @R.function
        def main(x: R.Tensor((2,), "float32"), w1: R.Tensor((2, 3), "float32"), w2: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                gv = (R.matmul(x, w1), R.matmul(x, w2))
                R.output(gv)
            return gv

    @I.ir_module
    class VectorRhs:  # 1-D right operands: the batch-dim loop bound rhs_dim - 2 underflows
        @R.function
        def main(x: R.Tensor((3, 2), "float32"), w1: R.Tensor((2,), "float32"), w2: R.Tensor((2,), "float32")):
            with R.dataflow():
                gv = (R.matmul(x, w1), R.matmul(x, w2))
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

failures = []
for name, mod, expected in [("1-D lhs", VectorLhs, "out of range"), ("1-D rhs", VectorRhs, "out of bounds")]:
    try:
        relax.transform.CombineParallelMatmul()(mod)
    except Exception as error:
        if expected not in str(error):
            sys.exit(print(f"cannot run: unexpected {error!r}") or 125)
        failures.append(f"{name}: {type(error).__name__}: {str(error).strip().splitlines()[-1][-90:]}")
if failures:
    print("REPRODUCES: CombineParallelMatmul raised on " + "; ".join(failures))
    sys.exit(1)
print("fixed: 1-D operands are left alone or combined correctly")

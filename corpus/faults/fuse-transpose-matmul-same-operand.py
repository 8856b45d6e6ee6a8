"""[Bug][Relax][FuseTransposeMatmul] matmul(x, permute_dims(x)) aborts the pass (IndexError)

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Before:  # x @ x.T: one value on both sides, so the composite function has one parameter
        @R.function
        def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 2), "float32"):
            with R.dataflow():
                gv = R.matmul(x, R.permute_dims(x))
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.FuseTransposeMatmul()(Before)
except IndexError as error:  # _TransposeMatmulFuser reads call.args[1]
    if "Index out of range" not in str(error):
        print(f"cannot run: unexpected {error!r}")
        sys.exit(125)
    print(f"REPRODUCES: FuseTransposeMatmul raised IndexError: {str(error).strip().splitlines()[-1]}")
    sys.exit(1)
except Exception as error:
    print(f"cannot run: unexpected {error!r}")
    sys.exit(125)
print("fixed: x @ x.T is fused (or left alone)")

"""[Bug][Relax][Gradient] the gradient of a matmul whose out_dtype differs from its operands' dtype fails: Binary operators must have the same datatype

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
        def main(a: R.Tensor((2, 3), "float16"), b: R.Tensor((3, 4), "float16")) -> R.Tensor((), "float32"):
            with R.dataflow():
                lv = R.matmul(a, b, out_dtype="float32")  # float16 operands, float32 accumulation
                gv = R.sum(lv)
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.Gradient("main")(Before)
except Exception as error:
    if "Binary operators must have the same datatype" in str(error):
        print(f"REPRODUCES: Gradient raised {type(error).__name__}: {str(error).strip().splitlines()[-1][:160]}")
        sys.exit(1)
    print(f"cannot run: unexpected {error!r}")
    sys.exit(125)
print("fixed: Gradient differentiates a matmul with out_dtype")

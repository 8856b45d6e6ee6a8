"""[Bug][Relax][DataflowUseInplaceCalls] a binary op whose first operand is a scalar constant aborts the pass: In-place index out of range

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
        def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            with R.dataflow():
                lv = R.add(x, x)
                gv = R.multiply(R.const(2.0, "float32"), lv)  # lv (argument 1) is dead after: in place
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.DataflowUseInplaceCalls()(Before)
except Exception as error:
    if "is out of range" in str(error):  # call_tir_inplace's normalization (src/relax/op/op.cc)
        print(f"REPRODUCES: DataflowUseInplaceCalls raised {type(error).__name__}: {str(error).strip().splitlines()[-1]}")
        sys.exit(1)
    print(f"cannot run: unexpected {error!r}")
    sys.exit(125)
print("fixed: the multiply by a scalar constant is made in place")

"""[Bug][Relax][FuseTransposeMatmul] a 1-D permute_dims, or default axes over 3+ dims, aborts the pattern check

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Before:  # y @ x.T of two vectors: permute_dims of a 1-D tensor is the identity
        @R.function
        def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                gv = R.matmul(y, R.permute_dims(x))
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.FuseTransposeMatmul()(Before)
except IndexError as error:  # _check swaps axes[-1] and axes[-2] of a one-element list
    if "list index out of range" not in str(error):
        print(f"cannot run: unexpected {error!r}")
        sys.exit(125)
    print(f"REPRODUCES: FuseTransposeMatmul raised IndexError: {str(error).strip().splitlines()[-1]}")
    sys.exit(1)
except Exception as error:
    print(f"cannot run: unexpected {error!r}")
    sys.exit(125)
print("fixed: a 1-D permute_dims before matmul is left alone (or fused)")

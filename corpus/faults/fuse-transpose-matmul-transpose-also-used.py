"""[Bug][Relax][FuseTransposeMatmul] a transpose that is also used outside the matmul aborts the pass

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Before:  # w.T is returned too, so the fused composite function returns a tuple
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), w: R.Tensor((4, 3), "float32")):
            with R.dataflow():
                wt = R.permute_dims(w)
                gv = (R.matmul(x, wt), wt)
                R.output(gv)
            return gv
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.FuseTransposeMatmul()(Before)
except AttributeError as error:  # _TransposeMatmulFuser reads function.ret_ty.dtype
    if "has no attribute 'dtype'" not in str(error):
        print(f"cannot run: unexpected {error!r}")
        sys.exit(125)
    print(f"REPRODUCES: FuseTransposeMatmul raised AttributeError: {error}")
    sys.exit(1)
except Exception as error:
    print(f"cannot run: unexpected {error!r}")
    sys.exit(125)
print("fixed: the matmul is fused (or left alone) and w.T still returned")

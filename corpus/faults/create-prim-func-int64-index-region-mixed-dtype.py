"""[Bug][TIR][IndexDataTypeNormalizer] create_prim_func(..., "int64") leaves a read region of int32 min and int64 extent: no print round trip

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the check). Needs: tvm.
"""
import sys

try:
    import tvm
    from tvm import te

    x = te.placeholder((3,), "float32", name="x")
    i = te.placeholder((), "int32", name="i")
    y = te.compute((), lambda: x[i[()]], name="y")  # a gather: the index is loaded int32 data
    func = te.create_prim_func([x, i, y], "int64")  # what LegalizeOps (relax.utils) asks for
    region = func.body.block.body.block.reads[0].region[0]  # x[i[()]]: Range(i[()], 1)
    back = tvm.script.from_source(func.script())
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    tvm.ir.assert_structural_equal(func, back)
except ValueError as error:
    if "extent.ty.dtype" not in str(error):
        print(f"cannot run: another difference: {str(error).splitlines()[0]}")
        sys.exit(125)
    print(f"REPRODUCES: read region x[i[()]] has min {region.min.ty} and extent {region.extent.ty}; "
          f"printed as a point, it parses back with an {back.body.block.body.block.reads[0].region[0].extent.ty} extent")
    sys.exit(1)
print("fixed: the PrimFunc prints and parses back to itself")

import tvm
import tvm.testing
from tvm import te


def test_create_prim_func_int64_override_keeps_region_dtypes_consistent():
    """With index_dtype_override="int64", a read region indexed by loaded int32 data must keep
    min and extent of one dtype, so that the PrimFunc prints and parses back to itself."""
    x = te.placeholder((3,), "float32", name="x")
    i = te.placeholder((), "int32", name="i")
    y = te.compute((), lambda: x[i[()]], name="y")
    func = te.create_prim_func([x, i, y], "int64")

    region = func.body.block.body.block.reads[0].region[0]
    assert region.min.ty == region.extent.ty
    tvm.ir.assert_structural_equal(func, tvm.script.from_source(func.script()))


if __name__ == "__main__":
    tvm.testing.main()

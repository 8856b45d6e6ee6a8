import tvm
import tvm.s_tir
import tvm.testing
from tvm.script import tirx as T


def _placeholder(func, block):
    sch = tvm.s_tir.Schedule(func)
    return sch.get(sch.get_sblock(block)).annotations["layout_free_placeholders"][0]


def test_renew_defs_remaps_parameter_buffer_in_block_annotation():
    @T.prim_func(private=True, s_tir=True)
    def add(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("C"):
                vi = T.axis.spatial(4, i)
                T.sblock_attr({"layout_free_placeholders": [B]})
                C[vi] = A[vi] + B[vi]

    renewed = tvm.s_tir.renew_defs(add)
    assert _placeholder(renewed, "C").same_as(renewed.params[1])
    tvm.ir.assert_structural_equal(renewed, tvm.script.from_source(renewed.script()))


def test_renew_defs_remaps_allocated_buffer_in_block_annotation():
    @T.prim_func(private=True, s_tir=True)
    def add_twice(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
        B = T.sblock_alloc_buffer((4,))
        for i in range(4):
            with T.sblock("B"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi] * T.float32(2)
        for i in range(4):
            with T.sblock("C"):
                vi = T.axis.spatial(4, i)
                T.reads(A[vi], B[vi])
                T.writes(C[vi])
                T.sblock_attr({"layout_free_placeholders": [B]})
                C[vi] = A[vi] + B[vi]

    renewed = tvm.s_tir.renew_defs(add_twice)
    placeholder = _placeholder(renewed, "C")
    sch = tvm.s_tir.Schedule(renewed)
    assert placeholder.same_as(sch.get(sch.get_sblock("C")).reads[1].source)
    tvm.ir.assert_structural_equal(renewed, tvm.script.from_source(renewed.script()))


if __name__ == "__main__":
    tvm.testing.main()

import tvm
import tvm.testing
from tvm import s_tir
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def broadcast_bf16(A: T.Buffer((4,), "bfloat16"), B: T.Buffer((4,), "bfloat16")):
    for i in range(4):
        with T.sblock("B"):
            vi = T.axis.spatial(4, i)
            B[vi] = A[0]


def test_bf16_vectorized_broadcast_store_compiles():
    sch = s_tir.Schedule(broadcast_bf16, debug_mask="all")
    (i,) = sch.get_loops(sch.get_sblock("B"))
    sch.vectorize(i)
    # BF16StorageLegalize must retype the Broadcast of the uint16 load, not leave it bfloat16x4.
    lib = tvm.compile(sch.mod, "llvm")
    assert lib is not None


if __name__ == "__main__":
    tvm.testing.main()

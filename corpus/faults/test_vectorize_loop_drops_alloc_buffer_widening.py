import numpy as np

import tvm
import tvm.testing
from tvm import s_tir
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def elementwise(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.sblock("B"):
            vi = T.axis.spatial(4, i)
            B[vi] = A[vi] * T.float32(2)


def test_vectorize_cache_write_under_vectorized_loop():
    sch = s_tir.Schedule(elementwise, debug_mask="all")
    block = sch.get_sblock("B")
    cache = sch.cache_write(block, 0, "global")
    (i,) = sch.get_loops(block)
    sch.reverse_compute_at(cache, i)
    sch.vectorize(i)
    # CompactBufferAllocation shrinks the cache to one element inside the vectorized loop;
    # VectorizeLoop must give each lane its own element.
    lib = tvm.compile(sch.mod, "llvm")
    a_np = np.arange(4, dtype="float32")
    a = tvm.runtime.tensor(a_np)
    b = tvm.runtime.tensor(np.zeros(4, dtype="float32"))
    lib(a, b)
    tvm.testing.assert_allclose(b.numpy(), a_np * 2)


if __name__ == "__main__":
    tvm.testing.main()

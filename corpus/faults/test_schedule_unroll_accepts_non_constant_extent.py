import pytest

import tvm
import tvm.testing
from tvm import s_tir
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def elementwise_symbolic(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        with T.sblock("B"):
            vi = T.axis.spatial(n, i)
            B[vi] = A[vi] * T.float32(2)


def test_unroll_non_constant_extent_rejected():
    sch = s_tir.Schedule(elementwise_symbolic, debug_mask="all")
    (i,) = sch.get_loops(sch.get_sblock("B"))
    # UnrollLoop cannot unroll a loop of extent n (an explicit unroll asserts a constant extent):
    # the primitive must reject it, not the build.
    with pytest.raises(s_tir.ScheduleError):
        sch.unroll(i)


if __name__ == "__main__":
    tvm.testing.main()

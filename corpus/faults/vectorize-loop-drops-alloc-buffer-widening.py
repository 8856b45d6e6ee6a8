"""[Bug][TIR][VectorizeLoop] a buffer allocated inside a vectorized loop is not widened: every lane gets the last lane's value

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the build). Needs: tvm, numpy.
"""
import sys

try:
    import numpy as np
    import tvm
    from tvm import s_tir
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def func(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("B"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi] * T.float32(2)

    sch = s_tir.Schedule(func)
    block = sch.get_sblock("B")
    cache = sch.cache_write(block, 0, "global")
    (i,) = sch.get_loops(block)
    sch.reverse_compute_at(cache, i)
    sch.vectorize(i)
    lib = tvm.compile(sch.mod, "llvm")
    a = tvm.runtime.tensor(np.arange(4, dtype="float32"))
    b = tvm.runtime.tensor(np.zeros(4, dtype="float32"))
    lib(a, b)
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

if not np.array_equal(b.numpy(), np.arange(4, dtype="float32") * 2):
    print(f"REPRODUCES: A * 2 of [0, 1, 2, 3] gave {b.numpy().tolist()} (expected [0, 2, 4, 6])")
    sys.exit(1)
print("fixed: each lane keeps its own element of the write cache")

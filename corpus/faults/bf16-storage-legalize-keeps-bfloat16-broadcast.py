"""[Bug][TIR][BF16StorageLegalize] a vectorized loop-invariant bfloat16 store keeps a bfloat16 Broadcast over uint16 storage

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the build). Needs: tvm.
"""
import sys

try:
    import tvm
    from tvm import s_tir
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def func(A: T.Buffer((4,), "bfloat16"), B: T.Buffer((4,), "bfloat16")):
        for i in range(4):
            with T.sblock("B"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[0]

    sch = s_tir.Schedule(func)
    (i,) = sch.get_loops(sch.get_sblock("B"))
    sch.vectorize(i)
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    tvm.compile(sch.mod, "llvm")
except Exception as error:
    if "dtype mismatch on BufferStore" in str(error) and "bfloat16x4" in str(error):
        print("REPRODUCES:", str(error).strip().splitlines()[-1])
        sys.exit(1)
    print(f"cannot run: {error!r}")
    sys.exit(125)
print("fixed: the vectorized bfloat16 broadcast store compiles")

"""[Bug][TIR][Schedule] unroll accepts a loop of non-constant extent, and the build aborts in UnrollLoop

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the schedule). Needs: tvm.
"""
import sys

try:
    import tvm
    from tvm import s_tir
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def func(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            with T.sblock("B"):
                vi = T.axis.spatial(n, i)
                B[vi] = A[vi] * T.float32(2)

    sch = s_tir.Schedule(func)
    (i,) = sch.get_loops(sch.get_sblock("B"))
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    sch.unroll(i)
except s_tir.ScheduleError:
    print("fixed: the schedule rejects unrolling a loop of extent n")
    sys.exit(0)
try:
    tvm.compile(sch.mod, "llvm")
except Exception as error:
    if "Cannot unroll non-constant loop" in str(error):
        print("REPRODUCES: sch.unroll accepted extent n; the build aborts:", str(error).splitlines()[-1][:120])
        sys.exit(1)
    print(f"cannot run: {error!r}")
    sys.exit(125)
print("fixed: the unrolled loop of extent n compiles")

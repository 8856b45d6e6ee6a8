"""[Bug][TVMScript][TIR] a block iter var whose domain has a non-zero min and a symbolic extent does not parse back to itself

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the round trip). Needs: tvm.
"""
import sys

try:
    import tvm
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def func(a: T.handle, n: T.int32):
        A = T.match_buffer(a, (n + 2,), "float32")
        for i in range(n):
            with T.sblock("b"):
                vi = T.axis.spatial((2, n + 2), i + 2)  # dom: min 2, extent (n + 2) - 2
                A[vi] = T.float32(0)

    text = func.script()  # `T.axis.spatial((2, 2 + (n + 2 - 2)), i + 2)`
    back = tvm.script.from_source(text)
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    tvm.ir.assert_structural_equal(func, back)
except ValueError as error:
    extent = back.body.block.body.body.block.iter_vars[0].dom.extent
    print(f"REPRODUCES: the iter var's extent (n + 2) - 2 parses back as {extent}:", str(error).splitlines()[0])
    sys.exit(1)
print("fixed: the block prints and parses back to itself")

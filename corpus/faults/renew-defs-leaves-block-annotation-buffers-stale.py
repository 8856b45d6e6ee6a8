"""[Bug][TIR][RenewDefs] buffers in block annotations are not renewed: layout_free_placeholders names a buffer the function no longer defines

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the call under test). Needs: tvm.
"""
import sys

try:
    import tvm
    import tvm.s_tir
    from tvm.script import tirx as T

    @T.prim_func(private=True, s_tir=True)
    def add(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("C"):
                vi = T.axis.spatial(4, i)
                T.sblock_attr({"layout_free_placeholders": [B]})  # as TOPI's dense and batch_matmul tag B
                C[vi] = A[vi] + B[vi]

    renewed = tvm.s_tir.renew_defs(add)  # FuseTIR and AttachAttrLayoutFreeBuffers call it
    sch = tvm.s_tir.Schedule(renewed)
    placeholder = sch.get(sch.get_sblock("C")).annotations["layout_free_placeholders"][0]
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

if placeholder.same_as(renewed.params[1]):
    print("fixed: the annotation names the renewed parameter B")
    sys.exit(0)
if not placeholder.same_as(add.params[1]):
    print("cannot run: the annotation names neither B")
    sys.exit(125)
print("REPRODUCES: after renew_defs the block's layout_free_placeholders still names the old B, not the parameter")
sys.exit(1)

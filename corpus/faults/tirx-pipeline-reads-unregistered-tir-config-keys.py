"""[Bug][TIR] the "tirx" TIR pipeline reads tir.disable_vectorize / tir.disable_cse_tir, keys renamed to tirx.*: the options are ignored

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the build). Needs: tvm.
"""
import sys

try:
    import tvm
    from tvm.script import ir as I
    from tvm.script import tirx as T

    @I.ir_module
    class Module:
        @T.prim_func
        def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
            for i in T.vectorized(64):
                B[i] = A[i] + T.float32(1)

    @tvm.instrument.pass_instrument
    class AfterVectorizeLoop:
        """Whether the module still holds vector lanes right after the pipeline's VectorizeLoop."""

        def __init__(self):
            self.vectorized = None

        def run_after_pass(self, mod, info):
            if info.name.endswith("VectorizeLoop"):
                self.vectorized = "Ramp" in mod.script()

    def vectorized(pipeline: str) -> bool:
        seen = AfterVectorizeLoop()
        with tvm.transform.PassContext(opt_level=3, config={"tirx.disable_vectorize": True}, instruments=[seen]):
            tvm.tirx.build(Module, target="llvm", pipeline=pipeline)
        return seen.vectorized

    control = vectorized("s_tir")  # the default pipeline reads the registered key
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)
if control is not False:
    print(f"cannot run: the s_tir pipeline did not honour tirx.disable_vectorize either ({control})")
    sys.exit(125)
if vectorized("tirx"):
    print("REPRODUCES: with tirx.disable_vectorize=True the s_tir pipeline keeps the loop scalar, "
          "the tirx pipeline still vectorizes it (it reads the unregistered key tir.disable_vectorize)")
    sys.exit(1)
print("fixed: the tirx pipeline honours tirx.disable_vectorize")

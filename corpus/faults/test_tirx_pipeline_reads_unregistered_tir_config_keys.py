import tvm
import tvm.testing
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in T.vectorized(64):
            B[i] = A[i] + T.float32(1)


@tvm.instrument.pass_instrument
class PassesRun:
    def __init__(self):
        self.vectorized = None
        self.names = []

    def run_after_pass(self, mod, info):
        self.names.append(info.name)
        if info.name.endswith("VectorizeLoop"):
            self.vectorized = "Ramp" in mod.script()


def passes_run(pipeline, config):
    seen = PassesRun()
    with tvm.transform.PassContext(opt_level=3, config=config, instruments=[seen]):
        tvm.tirx.build(Module, target="llvm", pipeline=pipeline)
    return seen


def test_tirx_pipeline_honours_disable_vectorize():
    assert passes_run("s_tir", {"tirx.disable_vectorize": True}).vectorized is False  # the default pipeline does
    assert passes_run("tirx", {"tirx.disable_vectorize": True}).vectorized is False


def test_tirx_pipeline_honours_disable_cse_tir():
    assert not any(name.endswith("CommonSubexprElim") for name in passes_run("s_tir", {"tirx.disable_cse_tir": True}).names)
    assert not any(name.endswith("CommonSubexprElim") for name in passes_run("tirx", {"tirx.disable_cse_tir": True}).names)


if __name__ == "__main__":
    tvm.testing.main()

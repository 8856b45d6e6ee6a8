import sys, types, time
t=time.time()
import tvm
sys.modules["tvm.s_tir.tensor_intrin"] = types.ModuleType("tvm.s_tir.tensor_intrin")
from tvm import relax
from tvm.script import relax as R
import tvm.s_tir.meta_schedule as ms
print("import", time.time()-t, flush=True)
@tvm.script.ir_module
class Mod:
    @R.function
    def main(a: R.Tensor((64, 64), "float32"), b: R.Tensor((64, 64), "float32")):
        with R.dataflow():
            c = R.matmul(a, b)
            R.output(c)
        return c
mod = relax.transform.LegalizeOps()(Mod)
func = [f for gv, f in mod.functions.items() if isinstance(f, tvm.tirx.PrimFunc)][0]
target = tvm.target.Target({"kind": "llvm", "num-cores": 2})
ctx = ms.TuneContext(tvm.IRModule({"main": func}), target=target, space_generator="post-order-apply",
                     search_strategy="replay-trace", num_threads=2, rand_state=int(sys.argv[1]))
print("ctx", time.time()-t, flush=True)
spaces = ctx.generate_design_space()
print(len(spaces), time.time()-t, flush=True)
for s in spaces:
    print(s.trace)
    print(s.mod.script()[:3000])

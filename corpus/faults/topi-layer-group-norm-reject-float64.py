"""[Bug][TOPI] layer_norm, group_norm and instance_norm fail to legalize float64: 'only support float32 and float16 for now'

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the build). Needs: tvm.
"""
import sys

try:
    import tvm
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((1, 4), "float64"), gamma: R.Tensor((4,), "float64"),
                 beta: R.Tensor((4,), "float64")) -> R.Tensor((1, 4), "float64"):
            return R.nn.layer_norm(x, gamma, beta, axes=[-1])
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    tvm.compile(Module, target="llvm")
except Exception as error:
    if "only support float32 and float16" not in str(error):
        print(f"cannot run: another failure: {error!r}")
        sys.exit(125)
    line = [s for s in str(error).splitlines() if "only support float32 and float16" in s][0]
    print(f"REPRODUCES: float64 layer_norm does not compile: {line.strip()[:160]}")
    sys.exit(1)
print("fixed: float64 layer_norm compiles")

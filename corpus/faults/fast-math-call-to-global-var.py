"""[Bug][Relax][FastMathTransform] a call to another Relax function fails: 'GlobalVar' object has no attribute 'name'

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Module:
        @R.function
        def f1(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            return x

        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            cls = Module
            return cls.f1(x)
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.FastMathTransform()(Module)
except Exception as error:
    if "object has no attribute 'name'" not in str(error):
        print(f"cannot run: another failure: {error!r}")
        sys.exit(125)
    print(f"REPRODUCES: FastMathTransform raised: {str(error).strip().splitlines()[-1][:160]}")
    sys.exit(1)
print('fixed: FastMathTransform accepts calls to Relax functions')

"""[Bug][Relax][MergeCompositeFunctions] an If or a local function in main fails: Do not have a default for relax.expr.If

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class WithIf:
        @R.function
        def main(c: R.Tensor((), "bool"), x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            if c:
                y = x
            else:
                y = x
            return y

    @I.ir_module
    class WithLocalFunction:
        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            @R.function
            def f(p: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"): return p

            y = f(x)
            return y
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

for mod in (WithIf, WithLocalFunction):
    try:
        relax.transform.MergeCompositeFunctions()(mod)
    except Exception as error:
        message = str(error).strip().splitlines()[-1]
        if "Do not have a default for relax.expr." not in message:
            print(f"cannot tell: another failure: {type(error).__name__}: {message}")
            sys.exit(125)
        print(f"REPRODUCES: MergeCompositeFunctions has no visitor for this expression: {message}")
        sys.exit(1)
print("fixed: MergeCompositeFunctions accepts an If and a local function in main")

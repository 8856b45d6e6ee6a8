"""[Bug][Relax][MergeCompositeFunctions] a second Relax function with a dataflow block fails: Variable could not be found in any group

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
        @R.function(private=True)
        def helper(p: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            with R.dataflow():
                gv = R.add(p, p)
                R.output(gv)
            return gv

        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            y = cls.helper(x)
            return y
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.MergeCompositeFunctions()(Module)
except Exception as error:
    message = str(error).strip().splitlines()[-1]
    if "could not be found in any group" not in message:
        print(f"cannot tell: another failure: {type(error).__name__}: {message}")
        sys.exit(125)
    print(f"REPRODUCES: MergeCompositeFunctions groups only main: {message}")
    sys.exit(1)
print("fixed: MergeCompositeFunctions handles every Relax function of the module")

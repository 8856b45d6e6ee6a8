"""[Bug][Relax][Gradient] the gradient of a dilated conv2d fails: conv2d_grad's output_padding ignores the dilation

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((1, 1, 5, 5), "float32"), w: R.Tensor((1, 1, 2, 2), "float32")) -> R.Tensor((), "float32"):
            with R.dataflow():
                y = R.nn.conv2d(x, w, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[2, 2])
                s = R.sum(y)
                R.output(s)
            return s
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.Gradient("main")(Before)
except Exception as error:
    if "output padding less than the strides" in str(error):  # conv2d_grad's output_padding
        print(f"REPRODUCES: Gradient raised {type(error).__name__}: {str(error).strip().splitlines()[-1]}")
        sys.exit(1)
    print(f"cannot run: unexpected {error!r}")
    sys.exit(125)
print("fixed: the gradient of a dilated conv2d is built")

"""[Bug][Relax][ConvertLayout] repeat without an axis flattens the tensor in its converted layout: NHWC order instead of NCHW

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the comparison). Needs: tvm, numpy.
"""
import sys

try:
    import numpy as np
    import tvm
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Module:  # TVM's own test_transform_convert_layout.py::test_conv2d_repeat_flatten, smaller
        @R.function
        def main(x: R.Tensor((1, 2, 3, 3), "float32"), w: R.Tensor((2, 2, 1, 1), "float32")):
            with R.dataflow():
                y = R.nn.conv2d(x, w, out_dtype="float32")  # NCHW (1, 2, 3, 3)
                z = R.repeat(y, repeats=1)  # axis=None: flattened in NCHW order, 18 elements
                R.output(z)
            return z

    after = relax.transform.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(Module)

    def run(mod):
        vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
        x = np.arange(18, dtype="float32").reshape(1, 2, 3, 3)
        w = np.eye(2, dtype="float32").reshape(2, 2, 1, 1)  # the identity conv: y == x
        return vm["main"](tvm.runtime.tensor(x), tvm.runtime.tensor(w)).numpy()

    expected, actual = run(Module), run(after)
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

if not np.array_equal(expected, np.arange(18, dtype="float32")):
    print(f"cannot run: the unconverted module gives {expected}")
    sys.exit(125)
if not np.array_equal(actual, expected):
    print(f"REPRODUCES: after ConvertLayout the flattened result is {actual.tolist()}, not {expected.tolist()}")
    sys.exit(1)
print("fixed: ConvertLayout keeps the result of repeat without an axis")

import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_conv2d_repeat_without_axis_keeps_values():
    """A repeat without an axis flattens its input: it must read it in the original layout."""

    @I.ir_module
    class Input:
        @R.function
        def main(x: R.Tensor((1, 2, 3, 3), "float32"), w: R.Tensor((2, 2, 1, 1), "float32")):
            with R.dataflow():
                y = R.nn.conv2d(x, w, out_dtype="float32")
                z = R.repeat(y, repeats=1)
                R.output(z)
            return z

    After = relax.transform.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(Input)
    x = np.arange(18, dtype="float32").reshape(1, 2, 3, 3)
    w = np.eye(2, dtype="float32").reshape(2, 2, 1, 1)
    outputs = []
    for mod in (Input, After):
        vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
        outputs.append(vm["main"](tvm.runtime.tensor(x), tvm.runtime.tensor(w)).numpy())
    tvm.testing.assert_allclose(outputs[1], outputs[0])


if __name__ == "__main__":
    tvm.testing.main()

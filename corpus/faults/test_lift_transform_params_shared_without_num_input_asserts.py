import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_shared_transform_without_num_input_is_noop():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            return R.exp(x)

    # No function carries "num_input": as with shared_transform=False, nothing is lifted.
    After = relax.transform.LiftTransformParams(shared_transform=True)(Before)
    tvm.ir.assert_structural_equal(After, Before)


if __name__ == "__main__":
    tvm.testing.main()

import numpy as np

import tvm
import tvm.testing
from tvm.script import ir as I
from tvm.script import tirx as T


@tvm.register_global_func("testing.codegen_c_copy_tensor", override=True)
def _copy_tensor(src, dst):
    dst.copyfrom(src.numpy())


def test_c_host_call_packed_with_tensor_argument():
    # LowerTVMBuiltin declares the shape stack as DeclBuffer(stack_shape, tvm_stack_alloca(...)).
    @I.ir_module
    class Module:
        @T.prim_func
        def main(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
            T.call_packed("testing.codegen_c_copy_tensor", a, b)

    lib = tvm.compile(Module, "c")
    a = tvm.runtime.tensor(np.arange(4, dtype="float32"))
    b = tvm.runtime.tensor(np.zeros(4, dtype="float32"))
    lib(a, b)
    np.testing.assert_array_equal(b.numpy(), a.numpy())


if __name__ == "__main__":
    tvm.testing.main()

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def test_roundtrip_block_iter_var_with_min_and_symbolic_extent():
    @T.prim_func(s_tir=True)
    def func(a: T.handle, n: T.int32):
        A = T.match_buffer(a, (n + 2,), "float32")
        for i in range(n):
            with T.sblock("b"):
                vi = T.axis.spatial((2, n + 2), i + 2)
                A[vi] = T.float32(0)

    tvm.ir.assert_structural_equal(func, tvm.script.from_source(func.script()))


def test_roundtrip_legalized_adaptive_avg_pool2d_with_uneven_windows():
    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((1, 2, 1, 4), "float32")) -> R.Tensor((1, 2, 1, 3), "float32"):
            gv = R.nn.adaptive_avg_pool2d(x, output_size=[1, 3])
            return gv

    mod = relax.transform.LegalizeOps()(Module)
    tvm.ir.assert_structural_equal(mod, tvm.script.from_source(mod.script()))


if __name__ == "__main__":
    tvm.testing.main()

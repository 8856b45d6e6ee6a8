"""A hand-written module in the style of TVM's own pass tests, for ``passfuzz reduce``: 30 ops,
of which a ``matmul(x, permute_dims(w))`` on a square ``w`` (2 ops) is what the planted
``tests.planted_passes:matmul_drop_transpose`` rewrites wrongly."""

from tvm.script import ir as I
from tvm.script import relax as R


class TestThirtyOps:
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4, 4), "float32"), y: R.Tensor((4, 4), "float32"),
                 w: R.Tensor((4, 4), "float32")) -> R.Tuple(R.Tensor((4, 4), "float32"), R.Tensor((4,), "float32")):
            with R.dataflow():
                a0 = R.add(x, y)
                a1 = R.multiply(a0, x)
                a2 = R.negative(a1)
                a3 = R.abs(a2)
                a4 = R.nn.relu(a3)
                a5 = R.subtract(a4, y)
                a6 = R.tanh(a5)
                a7 = R.sigmoid(a6)
                a8 = R.maximum(a7, x)
                a9 = R.minimum(a8, y)
                b0 = R.add(a9, a0)
                b1 = R.multiply(b0, b0)
                b2 = R.permute_dims(b1, axes=[1, 0])
                b3 = R.add(b2, a1)
                b4 = R.tanh(b3)
                wt = R.permute_dims(w, axes=[1, 0])
                m = R.matmul(b4, wt)
                c0 = R.add(m, b4)
                c1 = R.negative(c0)
                c2 = R.abs(c1)
                c3 = R.multiply(c2, a7)
                c4 = R.subtract(c3, a6)
                c5 = R.maximum(c4, a5)
                c6 = R.sigmoid(c5)
                c7 = R.add(c6, a8)
                c8 = R.multiply(c7, a9)
                c9 = R.tanh(c8)
                d0 = R.sum(c9, axis=[1])
                d1 = R.add(c9, b2)
                d2 = R.nn.relu(d1)
                R.output(d2, d0)
            return (d2, d0)

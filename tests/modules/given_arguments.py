"""Modules in TVM's test style that give ``main``'s arguments, for ``passfuzz reduce``: a name
``arguments`` next to the module (passfuzz.campaign.seeds.ARGUMENTS_NAME). ``round`` of an exact half is
what ``tests.planted_passes:round_half_up`` gets wrong, and arguments drawn in a range are
practically never exact halves."""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R


class TestHalves:
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            with R.dataflow():
                a = R.round(x)
                b = R.multiply(a, y)
                c = R.add(b, y)
                d = R.nn.relu(c)
                R.output(d)
            return d

    @staticmethod
    def arguments():
        return [np.array([[0.5, 2.5, -1.5], [1.0, 3.5, -2.5]], "float32"), np.ones((2, 3), "float32")]


class TestWithoutArguments:
    Before = TestHalves.Before  # the same module, its arguments drawn by the importer


class TestWrongShape:
    Before = TestHalves.Before
    arguments = [np.zeros((3, 2), "float32"), np.ones((2, 3), "float32")]

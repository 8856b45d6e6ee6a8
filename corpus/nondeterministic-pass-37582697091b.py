"""passfuzz nondeterministic-pass-37582697091b: nondeterministic-pass after LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR, AttachAttrLayoutFreeBuffers.

AttachAttrLayoutFreeBuffers applied to two fresh copies of the module gives modules that differ: ValueError: StructuralEqual check failed, caused by lhs at <root>.functions[I.GlobalVar("attention1")].body.block.body.seq[4].body.body.body.body.block.annotations["layout_free_placeholders"][0]
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # again: import tvm wrapped it


def fresh_module():
    @I.ir_module
    class Module:
        @R.function
        def main(x0: R.Tensor((1, 2, 1, 1), dtype="float32"), x5: R.Tensor((1, 1, 4, 1), dtype="float32"), w2: R.Tensor((1, 1, 1, 1), dtype="float32")) -> R.Tuple(R.Tensor((1, 2, 1, 1), dtype="float32"), R.Tensor((1, 1, 1, 1), dtype="float32")):
            R.func_attr({"num_input": 2})
            with R.dataflow():
                lv: R.Tensor((1, 2, 1, 1), dtype="float32") = R.nn.attention(x0, R.const(np.array([[[[0.0]]]], dtype='float32'), 'float32'), w2, scale=T.float32(0.5), causal_mask=None, window_size=None)
                lv1: R.Tensor((1, 1, 1, 1), dtype="float32") = R.grad.take_backward(x5, w2, R.const(np.array([0, 0, 0, 0], dtype='int64'), 'int64'), axis=2, mode="")
                gv: R.Tuple(R.Tensor((1, 2, 1, 1), dtype="float32"), R.Tensor((1, 1, 1, 1), dtype="float32")) = lv, lv1
                R.output(gv)
            return gv
    return Module


first = fresh_module()
first = relax.transform.LegalizeOps()(first)
first = relax.transform.AnnotateTIROpPattern()(first)
first = relax.transform.FuseOps()(first)
first = relax.transform.FuseTIR()(first)
first = relax.transform.AttachAttrLayoutFreeBuffers()(first)
second = fresh_module()
second = relax.transform.LegalizeOps()(second)
second = relax.transform.AnnotateTIROpPattern()(second)
second = relax.transform.FuseOps()(second)
second = relax.transform.FuseTIR()(second)
second = relax.transform.AttachAttrLayoutFreeBuffers()(second)
try:
    tvm.ir.assert_structural_equal(first, second)
except ValueError as error:
    print("BUG REPRODUCES (nondeterministic-pass): AttachAttrLayoutFreeBuffers gives two fresh copies of the module different results:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: the passes give two fresh copies of the module the same result")

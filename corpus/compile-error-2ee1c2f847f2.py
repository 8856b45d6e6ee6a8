"""passfuzz compile-error-2ee1c2f847f2: compile-error compiled with schedule=random on llvm.

error at compile:llvm: TypeError: dtype mismatch on BufferStore: buffer's dtype is `T.uint16`, the lanes of indexing are: `3`, the scalability is: `0`, but RHS's dtype is `T.bfloat16x3`
Needs tvm and numpy, and ml_dtypes.
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import ml_dtypes
import numpy as np
import tvm
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def broadcast_to(x0: T.Buffer((), "bfloat16"), T_broadcast_to: T.Buffer((T.int64(3),), "bfloat16")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for ax0 in range(T.int64(3)):
        with T.sblock("T_broadcast_to"):
            v_ax0 = T.axis.spatial(T.int64(3), ax0)
            T.reads(x0[()])
            T.writes(T_broadcast_to[v_ax0])
            T_broadcast_to[v_ax0] = x0[()]


sch = tvm.s_tir.Schedule(broadcast_to)
b0 = sch.get_sblock(name="root", func_name="main")
b1, = sch.get_child_blocks(b0)
l2, = sch.get_loops(block=b1)
sch.vectorize(loop=l2)
arguments = [np.array(-1.0, dtype=ml_dtypes.bfloat16), np.zeros((3,), ml_dtypes.bfloat16)]
try:
    scheduled = tvm.compile(sch.mod, 'llvm')
except Exception as error:
    print(f"BUG REPRODUCES (compile-error): {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
actual = [tvm.runtime.tensor(a) for a in arguments]
scheduled(*actual)
expected = [tvm.runtime.tensor(a) for a in arguments]
tvm.compile(broadcast_to, 'llvm')(*expected)
try:
    np.testing.assert_allclose(actual[1].numpy().astype("float64"), expected[1].numpy().astype("float64"), rtol=0.0625, atol=0.252, equal_nan=True, err_msg='buffer 1')
except AssertionError as error:
    print("changed (wrong-result, not compile-error): the scheduled broadcast_to differs from the unscheduled one:", " ".join(str(error).split()))
    sys.exit(125)
print("fixed: the scheduled broadcast_to compiles, runs and matches the unscheduled one")

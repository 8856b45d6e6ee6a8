"""passfuzz compile-error-2b557923e8d0: compile-error after FoldConstant compiled with schedule=random on llvm.

error at compile:llvm: TypeError: dtype mismatch on BufferStore: buffer's dtype is `T.uint16`, the lanes of indexing are: `4`, the scalability is: `0`, but RHS's dtype is `T.bfloat16x4`
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
def maximum(x0: T.Buffer((T.int64(4), T.int64(3)), "bfloat16"), B: T.Buffer((T.int64(4), T.int64(3)), "bfloat16"), T_maximum: T.Buffer((T.int64(4), T.int64(3)), "bfloat16")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for ax0, ax1 in T.grid(T.int64(4), T.int64(3)):
        with T.sblock("T_maximum"):
            v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(x0[v_ax0, v_ax1], B[v_ax0, v_ax1])
            T.writes(T_maximum[v_ax0, v_ax1])
            T_maximum[v_ax0, v_ax1] = T.max(x0[v_ax0, v_ax1], B[v_ax0, v_ax1])


sch = tvm.s_tir.Schedule(maximum)
b0 = sch.get_sblock(name="root", func_name="main")
b1, = sch.get_child_blocks(b0)
l2, l3 = sch.get_loops(block=b1)
sch.vectorize(loop=l2)
b4 = sch.get_sblock(name="root", func_name="main")
b5, = sch.get_child_blocks(b4)
b6 = sch.cache_write(block=b5, write_buffer_index=0, storage_scope="global")
b7 = sch.get_sblock(name="root", func_name="main")
b8, b9 = sch.get_child_blocks(b7)
b10, = sch.get_producers(block=b9)
l11, l12 = sch.get_loops(block=b10)
sch.reverse_compute_at(block=b9, loop=l12, preserve_unit_loops=False, index=-1)
arguments = [
    np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], dtype=ml_dtypes.bfloat16),
    np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], dtype=ml_dtypes.bfloat16),
    np.zeros((4, 3), ml_dtypes.bfloat16),
]
try:
    scheduled = tvm.compile(sch.mod, 'llvm')
except Exception as error:
    print(f"BUG REPRODUCES (compile-error): {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
actual = [tvm.runtime.tensor(a) for a in arguments]
scheduled(*actual)
expected = [tvm.runtime.tensor(a) for a in arguments]
tvm.compile(maximum, 'llvm')(*expected)
try:
    np.testing.assert_allclose(actual[2].numpy().astype("float64"), expected[2].numpy().astype("float64"), rtol=0.0625, atol=0.252, equal_nan=True, err_msg='buffer 2')
except AssertionError as error:
    print("changed (wrong-result, not compile-error): the scheduled maximum differs from the unscheduled one:", " ".join(str(error).split()))
    sys.exit(125)
print("fixed: the scheduled maximum compiles, runs and matches the unscheduled one")

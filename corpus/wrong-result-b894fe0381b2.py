"""passfuzz wrong-result-b894fe0381b2: wrong-result compiled with schedule=random on llvm.

llvm: output 0 (float32, shape (4, 1)): 3 of 4 elements differ, first at [0, 0]: original 0.0, optimized 2.0
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import numpy as np
import tvm
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def add(w0: T.Buffer((T.int64(4), T.int64(1)), "float32"), w0_1: T.Buffer((T.int64(4), T.int64(1)), "float32"), T_add: T.Buffer((T.int64(4), T.int64(1)), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for ax0, ax1 in T.grid(T.int64(4), T.int64(1)):
        with T.sblock("T_add"):
            v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(w0[v_ax0, v_ax1], w0_1[v_ax0, v_ax1])
            T.writes(T_add[v_ax0, v_ax1])
            T_add[v_ax0, v_ax1] = w0[v_ax0, v_ax1] + w0_1[v_ax0, v_ax1]


sch = tvm.s_tir.Schedule(add)
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
    np.array([[0.0], [0.0], [0.0], [1.0]], dtype='float32'),
    np.array([[0.0], [0.0], [0.0], [1.0]], dtype='float32'),
    np.zeros((4, 1), 'float32'),
]
scheduled = tvm.compile(sch.mod, 'llvm')
actual = [tvm.runtime.tensor(a) for a in arguments]
scheduled(*actual)
expected = [tvm.runtime.tensor(a) for a in arguments]
tvm.compile(add, 'llvm')(*expected)
try:
    np.testing.assert_allclose(actual[2].numpy().astype("float64"), expected[2].numpy().astype("float64"), rtol=0.0001, atol=0.0016000016, equal_nan=True, err_msg='buffer 2')
except AssertionError as error:
    print("BUG REPRODUCES (wrong-result): the scheduled add differs from the unscheduled one:", " ".join(str(error).split()))
    sys.exit(1)
print("fixed: the scheduled add compiles, runs and matches the unscheduled one")

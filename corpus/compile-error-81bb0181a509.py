"""passfuzz compile-error-81bb0181a509: compile-error compiled with schedule=random on llvm.

error at compile:llvm: InternalError: Check failed: value >= 0 (-1 vs. 0) : Cannot unroll non-constant loop
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
from __future__ import annotations

import sys
from typing import TypeVar

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import numpy as np
import tvm
from tvm.script import tirx as T


n0 = TypeVar("n0")
@T.prim_func(s_tir=True)
def less_equal(w0: T.Buffer((T.int64(4), T.int64(4), n0), "float32"), w0_1: T.Buffer((T.int64(4), T.int64(4), n0), "float32"), T_less_equal: T.Buffer((T.int64(4), T.int64(4), n0), "bool")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for ax0, ax1, ax2 in T.grid(T.int64(4), T.int64(4), n0):
        with T.sblock("T_less_equal"):
            v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
            T.reads(w0[v_ax0, v_ax1, v_ax2], w0_1[v_ax0, v_ax1, v_ax2])
            T.writes(T_less_equal[v_ax0, v_ax1, v_ax2])
            T_less_equal[v_ax0, v_ax1, v_ax2] = w0[v_ax0, v_ax1, v_ax2] <= w0_1[v_ax0, v_ax1, v_ax2]


sch = tvm.s_tir.Schedule(less_equal)
b0 = sch.get_sblock(name="root", func_name="main")
b1, = sch.get_child_blocks(b0)
l2, l3, l4 = sch.get_loops(block=b1)
sch.unroll(loop=l4)
arguments = [
    np.array([[[1.0], [1.0], [1.0], [1.0]], [[1.0], [1.0], [1.0], [1.0]], [[1.0], [1.0], [1.0], [1.0]], [[1.0], [1.0], [1.0], [1.0]]], dtype='float32'),
    np.array([[[1.0], [1.0], [1.0], [1.0]], [[1.0], [1.0], [1.0], [1.0]], [[1.0], [1.0], [1.0], [1.0]], [[1.0], [1.0], [1.0], [1.0]]], dtype='float32'),
    np.zeros((4, 4, 1), 'bool'),
]
try:
    scheduled = tvm.compile(sch.mod, 'llvm')
except Exception as error:
    print(f"BUG REPRODUCES (compile-error): {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
actual = [tvm.runtime.tensor(a) for a in arguments]
scheduled(*actual)
expected = [tvm.runtime.tensor(a) for a in arguments]
tvm.compile(less_equal, 'llvm')(*expected)
try:
    np.testing.assert_array_equal(actual[2].numpy(), expected[2].numpy(), err_msg='buffer 2')
except AssertionError as error:
    print("changed (wrong-result, not compile-error): the scheduled less_equal differs from the unscheduled one:", " ".join(str(error).split()))
    sys.exit(125)
print("fixed: the scheduled less_equal compiles, runs and matches the unscheduled one")

"""passfuzz compile-error-091cae066e68: compile-error after FoldConstant compiled with schedule=random on llvm.

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


v3_0 = TypeVar("v3_0")
v3_1 = TypeVar("v3_1")
v3_2 = TypeVar("v3_2")
@T.prim_func(s_tir=True)
def reshape(lv: T.Buffer((), "bool"), T_reshape: T.Buffer((v3_0, v3_1, v3_2), "bool")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for ax0, ax1, ax2 in T.grid(v3_0, v3_1, v3_2):
        with T.sblock("T_reshape"):
            v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
            T.reads(lv[()])
            T.writes(T_reshape[v_ax0, v_ax1, v_ax2])
            T_reshape[v_ax0, v_ax1, v_ax2] = lv[()]


sch = tvm.s_tir.Schedule(reshape)
b0 = sch.get_sblock(name="root", func_name="main")
b1, = sch.get_child_blocks(b0)
l2, l3, l4 = sch.get_loops(block=b1)
sch.unroll(loop=l2)
arguments = [np.array(False, dtype='bool'), np.zeros((1, 1, 1), 'bool')]
try:
    scheduled = tvm.compile(sch.mod, 'llvm')
except Exception as error:
    print(f"BUG REPRODUCES (compile-error): {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
actual = [tvm.runtime.tensor(a) for a in arguments]
scheduled(*actual)
expected = [tvm.runtime.tensor(a) for a in arguments]
tvm.compile(reshape, 'llvm')(*expected)
try:
    np.testing.assert_array_equal(actual[1].numpy(), expected[1].numpy(), err_msg='buffer 1')
except AssertionError as error:
    print("changed (wrong-result, not compile-error): the scheduled reshape differs from the unscheduled one:", " ".join(str(error).split()))
    sys.exit(125)
print("fixed: the scheduled reshape compiles, runs and matches the unscheduled one")

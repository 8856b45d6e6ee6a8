"""passfuzz compile-error-49b1947cb219: compile-error after FoldConstant compiled with schedule=random on llvm.

error at compile:llvm: InternalError: Check failed: (is_scalable_expr && TargetHasVLA(target_)) is false: Failed to vectorize loop with extent v2_2 for target {"kind":"llvm","tag":"","keys":["cpu"],"host":{"kind":"llvm","tag":"","keys":["cpu"],"mtriple":"x86_64-conda-linux-gnu"},"mtriple":"x86_64-conda-linux-gnu"}
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
from __future__ import annotations

import sys
from typing import TypeVar

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import numpy as np
import tvm
from tvm.script import tirx as T


v2_0 = TypeVar("v2_0")
v2_1 = TypeVar("v2_1")
v2_2 = TypeVar("v2_2")
@T.prim_func(s_tir=True)
def reshape(x0: T.Buffer((), "float32"), T_reshape: T.Buffer((v2_0, v2_1, v2_2), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for ax0, ax1, ax2 in T.grid(v2_0, v2_1, v2_2):
        with T.sblock("T_reshape"):
            v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
            T.reads(x0[()])
            T.writes(T_reshape[v_ax0, v_ax1, v_ax2])
            T_reshape[v_ax0, v_ax1, v_ax2] = x0[()]


sch = tvm.s_tir.Schedule(reshape)
b0 = sch.get_sblock(name="root", func_name="main")
b1, = sch.get_child_blocks(b0)
b2 = sch.cache_write(block=b1, write_buffer_index=0, storage_scope="global")
b3 = sch.get_sblock(name="root", func_name="main")
b4, b5 = sch.get_child_blocks(b3)
b6 = sch.cache_write(block=b5, write_buffer_index=0, storage_scope="global")
b7 = sch.get_sblock(name="root", func_name="main")
b8, b9, b10 = sch.get_child_blocks(b7)
l11, l12, l13 = sch.get_loops(block=b10)
sch.vectorize(loop=l13)
arguments = [np.array(1.0, dtype='float32'), np.zeros((1, 1, 1), 'float32')]
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
    np.testing.assert_allclose(actual[1].numpy().astype("float64"), expected[1].numpy().astype("float64"), rtol=0.0001, atol=0.0008, equal_nan=True, err_msg='buffer 1')
except AssertionError as error:
    print("changed (wrong-result, not compile-error): the scheduled reshape differs from the unscheduled one:", " ".join(str(error).split()))
    sys.exit(125)
print("fixed: the scheduled reshape compiles, runs and matches the unscheduled one")

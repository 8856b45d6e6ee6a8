"""passfuzz compile-error-09e58e81bacd: compile-error after FoldConstant compiled with schedule=random on llvm.

error at compile:llvm: InternalError: Check failed: (is_scalable_expr && TargetHasVLA(target_)) is false: Failed to vectorize loop with extent n0 for target {"kind":"llvm","tag":"","keys":["cpu"],"host":{"kind":"llvm","tag":"","keys":["cpu"],"mtriple":"x86_64-conda-linux-gnu"},"mtriple":"x86_64-conda-linux-gnu"}
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
def logical_or(x3: T.Buffer((n0,), "bool"), B: T.Buffer((T.int64(1),), "bool"), T_logical_or: T.Buffer((n0,), "bool")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for ax0 in range(n0):
        with T.sblock("T_logical_or"):
            v_ax0 = T.axis.spatial(n0, ax0)
            T.reads(x3[v_ax0], B[T.int64(0)])
            T.writes(T_logical_or[v_ax0])
            T_logical_or[v_ax0] = x3[v_ax0] or B[T.int64(0)]


sch = tvm.s_tir.Schedule(logical_or)
b0 = sch.get_sblock(name="root", func_name="main")
b1, = sch.get_child_blocks(b0)
l2, = sch.get_loops(block=b1)
sch.vectorize(loop=l2)
arguments = [np.array([False], dtype='bool'), np.array([False], dtype='bool'), np.zeros((1,), 'bool')]
try:
    scheduled = tvm.compile(sch.mod, 'llvm')
except Exception as error:
    print(f"BUG REPRODUCES (compile-error): {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
actual = [tvm.runtime.tensor(a) for a in arguments]
scheduled(*actual)
expected = [tvm.runtime.tensor(a) for a in arguments]
tvm.compile(logical_or, 'llvm')(*expected)
try:
    np.testing.assert_array_equal(actual[2].numpy(), expected[2].numpy(), err_msg='buffer 2')
except AssertionError as error:
    print("changed (wrong-result, not compile-error): the scheduled logical_or differs from the unscheduled one:", " ".join(str(error).split()))
    sys.exit(125)
print("fixed: the scheduled logical_or compiles, runs and matches the unscheduled one")

"""A planted defect in a schedule primitive: ``plant()`` makes passfuzz's ``unroll`` unroll the
loop and then drop its last iteration (an unrolled loop of extent n runs n-1 times), as a wrong
loop transformation would (tests plant it with ``monkeypatch.setitem``, so it does not outlive
them). The forked sides inherit it; the unscheduled build is untouched. (0.27's Python API has no TIR statement mutator: the loop is shortened in the
scheduled function's TVMScript, which is parsed back.)"""

import re

import tvm
from tvm import s_tir

from passfuzz.portable import schedules

_real_unroll = schedules.OWN_PRIMITIVES["unroll"]  # the real primitive, whatever the table holds
_UNROLLED = re.compile(r"T\.unroll\(((?:[^()]|\([^()]*\))+)\)")  # its extent: T.int64(5), n0, ...


def unroll_dropping_the_last_iteration(sch, block, a, b):
    sch = _real_unroll(sch, block, a, b)
    text = sch.mod.script()
    match = _UNROLLED.search(text)
    if match is None:
        return sch
    text = text[:match.start()] + f"T.unroll({match.group(1)} - 1)" + text[match.end():]
    return s_tir.Schedule(tvm.script.from_source(text), debug_mask="all")


def plant():
    schedules.PRIMITIVES["unroll"] = unroll_dropping_the_last_iteration

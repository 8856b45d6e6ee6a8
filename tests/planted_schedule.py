"""A planted defect in a schedule primitive: ``plant()`` makes passfuzz's ``unroll`` unroll the
loop and then, where the loop is a reduction's, drop its last iteration (an unrolled reduction of
extent n sums n-1 terms), as a wrong loop transformation would. Only reduction loops: a dropped
iteration of a loop that writes leaves an element unwritten, whose memory may still hold the right
value from an earlier run, so the defect would show on some runs only. (Tests plant it with
``monkeypatch.setitem``, so it does not outlive them; the forked sides inherit it; the unscheduled
build is untouched. 0.27's Python API has no TIR statement mutator: the loop is shortened in the
scheduled function's TVMScript, which is parsed back.)"""

import re

import tvm
from tvm import s_tir

from passfuzz.portable import schedules

_real_unroll = schedules.OWN_PRIMITIVES["unroll"]  # the real primitive, whatever the table holds
# the loop variable and its extent (T.int64(5), n0, ...)
_UNROLLED = re.compile(r"for (\w+) in T\.unroll\(((?:[^()]|\([^()]*\))+)\)")
_REMAP = re.compile(r'T\.axis\.remap\("(\w+)", \[([^\]]*)\]\)')


def unroll_dropping_the_last_iteration(sch, block, a, b):
    sch = _real_unroll(sch, block, a, b)
    text = sch.mod.script()
    match = _UNROLLED.search(text)
    remap = _REMAP.search(text, match.end()) if match else None
    loops = [name.strip() for name in remap.group(2).split(",")] if remap else []
    if match is None or match.group(1) not in loops or remap.group(1)[loops.index(match.group(1))] != "R":
        return sch  # not a reduction loop: the real unroll
    text = text[:match.start()] + f"for {match.group(1)} in T.unroll({match.group(2)} - 1)" + text[match.end():]
    return s_tir.Schedule(tvm.script.from_source(text), debug_mask="all")


def plant():
    schedules.PRIMITIVES["unroll"] = unroll_dropping_the_last_iteration

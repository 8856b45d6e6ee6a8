"""Random schedules of a module's PrimFuncs, held as plain data and applied deterministically.

A schedule is a sequence of steps ``(primitive, choices)``: the name of a ``tvm.s_tir.Schedule``
primitive and four non-negative integers that pick, modulo what exists at that moment, the
PrimFunc, the block, and the primitive's loops, buffers or factors. The same steps on the same
module always give the same schedule, so a schedule is a Hypothesis draw (it shrinks toward
fewer steps and toward the unscheduled function) and a reproducer replays it as literal data.

A step the schedule rejects (a ScheduleError, or any error of the primitive's own checks) is
skipped: TVM's verifier, not passfuzz, decides which schedules are valid. What a rejected step
leaves behind is thrown away with it, since each step runs on a copy of the schedule.

tvm only: reproducer scripts import this module as it is.
"""

from __future__ import annotations

from types import MappingProxyType

import tvm
from tvm import s_tir

CHOICES = 4  # integers per step: function, block, and two for the primitive
SPLIT_FACTORS = (2, 3, 4, 8, 16)  # 3 leaves a remainder on most extents: split then needs a predicate


def loop_at(sch, block, choice):
    loops = sch.get_loops(block)
    if not loops:
        raise ValueError("the block has no loops")
    return loops[choice % len(loops)]


def _split(sch, block, a, b):
    loop = loop_at(sch, block, a)
    sch.split(loop, factors=[None, SPLIT_FACTORS[b % len(SPLIT_FACTORS)]])
    return sch


def _reorder(sch, block, a, b):
    loops = sch.get_loops(block)
    first, second = sorted((a % len(loops), b % len(loops)))
    if first == second:
        raise ValueError("one loop")
    sch.reorder(loops[second], loops[first])  # the outer one of the two goes inside
    return sch


def _fuse(sch, block, a, b):
    loops = sch.get_loops(block)
    first = a % len(loops)
    if first + 1 >= len(loops):
        raise ValueError("no next loop")
    sch.fuse(loops[first], loops[first + 1])
    return sch


def _parallel(sch, block, a, b):
    sch.parallel(loop_at(sch, block, a))
    return sch


def _vectorize(sch, block, a, b):
    sch.vectorize(loop_at(sch, block, a))
    return sch


def _unroll(sch, block, a, b):
    sch.unroll(loop_at(sch, block, a))
    return sch


def _compute_at(sch, block, a, b):
    consumers = sch.get_consumers(block)
    if not consumers:
        raise ValueError("no consumer")
    sch.compute_at(block, loop_at(sch, consumers[a % len(consumers)], b))
    return sch


def _reverse_compute_at(sch, block, a, b):
    producers = sch.get_producers(block)
    if not producers:
        raise ValueError("no producer")
    sch.reverse_compute_at(block, loop_at(sch, producers[a % len(producers)], b))
    return sch


def _cache_read(sch, block, a, b):
    reads = sch.get(block).reads
    sch.cache_read(block, a % len(reads), "global")
    return sch


def _cache_write(sch, block, a, b):
    writes = sch.get(block).writes
    sch.cache_write(block, a % len(writes), "global")
    return sch


def _compute_inline(sch, block, a, b):
    sch.compute_inline(block)
    return sch


def _decompose_reduction(sch, block, a, b):
    sch.decompose_reduction(block, loop_at(sch, block, a))
    return sch


# name -> (schedule, block, choice, choice) -> schedule. A primitive returns the schedule it leaves
# (the same object for every real primitive), so a replacement may hand back another one.
PRIMITIVES = {
    "split": _split,
    "reorder": _reorder,
    "fuse": _fuse,
    "parallel": _parallel,
    "vectorize": _vectorize,
    "unroll": _unroll,
    "compute_at": _compute_at,
    "reverse_compute_at": _reverse_compute_at,
    "cache_read": _cache_read,
    "cache_write": _cache_write,
    "compute_inline": _compute_inline,
    "decompose_reduction": _decompose_reduction,
}
# The primitives as this module defines them, whatever PRIMITIVES holds later (a test plants a
# wrong one there): what a reproducer script copies.
OWN_PRIMITIVES = MappingProxyType(dict(PRIMITIVES))


def root_blocks(sch):
    return sch.get_child_blocks(sch.get_sblock("root", func_name="main"))


def schedulable(func) -> bool:
    """Does ``func`` (a PrimFunc) have blocks under a root block, which the primitives act on?"""
    try:
        return bool(root_blocks(s_tir.Schedule(tvm.IRModule({"main": func}))))
    except Exception:  # noqa: BLE001 - no root block (a lowered shape function): nothing to schedule
        return False


def nests_parallel_loops(sch) -> bool:
    """Does a block of ``sch`` sit under two parallel loops? LLVM's CPU codegen refuses that by
    design ("Nested parallel loop is not supported by threadpool", codegen_cpu.cc:1208-1209) while
    the primitives accept it, so such a schedule is outside what the CPU build supports."""
    blocks = list(root_blocks(sch))
    while blocks:
        block = blocks.pop()
        kinds = [sch.get(loop).kind for loop in sch.get_loops(block)]
        if kinds.count(tvm.tirx.ForKind.PARALLEL) > 1:
            return True
        blocks.extend(sch.get_child_blocks(block))
    return False


def apply_step(sch, step, primitives=None):
    """The schedule after ``step`` (a copy of ``sch``), or None when the schedule rejects it.
    ``primitives``: the table to take the primitive from (PRIMITIVES if None)."""
    name, choices = step
    choices = tuple(choices) + (0,) * (CHOICES - len(choices))
    trial = sch.copy()
    try:
        blocks = root_blocks(trial)
        if not blocks:
            return None
        trial = (primitives or PRIMITIVES)[name](trial, blocks[choices[1] % len(blocks)], choices[2], choices[3])
        return None if nests_parallel_loops(trial) else trial
    except Exception:  # noqa: BLE001 - a rejected primitive is a skipped step, not a finding
        return None


def schedule_of(func, steps, primitives=None):
    """The schedule of ``func`` (a PrimFunc, named "main" in it) after ``steps`` in order
    (rejected ones skipped); its trace holds the calls that were kept."""
    sch = s_tir.Schedule(tvm.IRModule({"main": func}), debug_mask="all")
    for step in steps:
        sch = apply_step(sch, step, primitives) or sch
    return sch


def schedule_function(func, steps):
    """``func`` (a PrimFunc) scheduled by ``steps`` in order (rejected ones skipped)."""
    return schedule_of(func, steps).mod["main"]


def steps_per_function(mod, steps):
    """{PrimFunc name: its steps}: each step goes to the PrimFunc its first choice picks (modulo
    the schedulable PrimFuncs, in name order); {} when ``mod`` has none."""
    names = sorted(gv.name_hint for gv, func in mod.functions.items()
                   if isinstance(func, tvm.tirx.PrimFunc) and schedulable(func))
    per_function = {name: [] for name in names}
    for name, choices in (steps if names else ()):
        choices = tuple(choices) + (0,) * (CHOICES - len(choices))
        per_function[names[choices[0] % len(names)]].append((name, choices))
    return per_function


def apply_schedule(mod, steps):
    """``mod`` with each PrimFunc scheduled by its steps (``steps_per_function``)."""
    per_function = {name: own for name, own in steps_per_function(mod, steps).items() if own}
    if not per_function:
        return mod
    mod = mod.clone()  # a pass leaves its input as it was
    for name, own in per_function.items():
        mod.update_func(mod.get_global_var(name), schedule_function(mod[name], own))
    return mod


def schedule_pass(steps):
    """A module pass applying ``steps`` (run after the Relax pipeline, on the kernels it leaves)."""
    @tvm.transform.module_pass(opt_level=0, name="PassfuzzRandomSchedule")
    def _schedule(mod, _ctx):
        return apply_schedule(mod, steps)
    return _schedule

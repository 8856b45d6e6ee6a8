"""Calling-convention adapters: how to call an optimized module so the call is equivalent to
calling the original ``main`` with the Program's arguments.

Some passes change ``main`` on purpose. LiftTransformParams moves the weight-only computation
into ``main_transform_params`` (``transform_params`` with shared_transform=True): calling the new
``main`` with the old weights is *not* equivalent, and comparing such calls is the false alarm
apache/tvm#17207. Where no adapter is known and the signature changed, the pair is
incomparable and is never compared.
"""

from __future__ import annotations

from dataclasses import dataclass

import tvm

from .program import Program


@dataclass(frozen=True)
class Adapter:
    name: str  # "plain" or "lifted"
    transform: str | None = None  # the function that transforms the weights, for "lifted"

    def call(self, vm, program: Program, args: list) -> object:
        if self.name == "plain":
            return vm["main"](*args)
        n = program.num_input or 0
        transformed = vm[self.transform](list(args[n:]))
        return vm["main"](*args[:n], *transformed)


PLAIN = Adapter("plain")


def _signature(func) -> list[str]:
    return [str(p.ty) for p in func.params]


def choose_adapter(original: tvm.IRModule, optimized: tvm.IRModule) -> Adapter | None:
    """The adapter that calls ``optimized`` like ``original``; None when there is none."""
    names = {gv.name_hint for gv in optimized.functions}
    before = {gv.name_hint for gv in original.functions}
    if "main" not in names:
        return None
    for transform in ("main_transform_params", "transform_params"):
        if transform in names and transform not in before:
            return Adapter("lifted", transform)
    if _signature(optimized["main"]) == _signature(original["main"]):
        return PLAIN
    return None

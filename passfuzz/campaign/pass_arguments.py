"""Whether TVM takes the arguments given to a named pass, asked once before fuzzing.

TVM checks few pass arguments when the pass is built: ``ToMixedPrecision(out_dtype='float17')``
builds (``float17`` parses as a 17-bit float), rewrites a float32 matmul, and only codegen then
says ``do not support T.float17``; ``Gradient('mian')`` fails on every module it is given. A
run with such a pass would fire on nothing, or report TVM refusing the user's own argument as a
bug. So each pass given arguments runs once on a few tiny modules (one side each, isolated like
any other, so a crash costs nothing) before fuzzing.

What counts as TVM rejecting the *arguments*, not failing on a *module* (which is the fuzzer's
to find and report): a tiny module inside the pass's contract (``contracts.module_violation``;
the pass's prerequisites run first) fails at the pass or after it with an error that names one
of the arguments' values, and no tiny module the pass changed ran through. A module outside the
contract, a failure naming no argument (a crash, a type error of the rewrite), or a pass that
works on one of the modules is left to the fuzzer.
"""

from __future__ import annotations

from typing import Iterator, Sequence

import numpy as np

from passfuzz.ir.program import Node, Param, Program
from passfuzz.passes.catalogue import with_prerequisites
from passfuzz.passes.names import PassSpec
from passfuzz.run.execute import run_side

# Too short to tell an argument from any other word in an error message.
_SHORTEST_NAMED = 3


def tiny_programs() -> list[Program]:
    """One float32 module of each shape the pattern passes look at (a matmul with a weight, a
    convolution with a constant kernel) and one loss program (what Gradient accepts)."""
    x = Param((2, 3), "float32", -1.0, 1.0, np.full((2, 3), 0.5, "float32").tolist())
    w = Param((3, 4), "float32", -1.0, 1.0, np.full((3, 4), 0.25, "float32").tolist(), role="weight")
    image = Param((1, 2, 4, 4), "float32", -1.0, 1.0, np.full((1, 2, 4, 4), 0.5, "float32").tolist())
    kernel = Param((2, 2, 3, 3), "float32", -1.0, 1.0, np.full((2, 2, 3, 3), 0.125, "float32").tolist(),
                   role="weight")
    conv = {"strides": [1, 1], "padding": [1, 1, 1, 1], "dilation": [1, 1], "groups": 1,
            "data_layout": "NCHW", "kernel_layout": "OIHW", "out_layout": "NCHW", "out_dtype": None}
    return [
        Program((x, w, Node("matmul", (0, 1)), Node("relu", (2,))), (3,)),
        Program((image, kernel, Node("conv2d", (0, 1), conv), Node("add", (2, 0))), (3,)),
        Program((x, Node("exp", (0,)), Node("sum", (1,), {"axis": None, "keepdims": False})), (2,)),
    ]


def _words(value) -> Iterator[str]:
    """The strings an argument holds (keys and items of containers too)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _words(key)
            yield from _words(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _words(item)


def argument_words(spec: PassSpec) -> list[str]:
    """The strings among ``spec``'s arguments long enough to recognise in an error message."""
    values = list(spec.args) + [value for _, value in spec.kwargs]
    return [word for word in dict.fromkeys(_words(values)) if len(word) >= _SHORTEST_NAMED]


def rejection(spec: PassSpec, targets: Sequence[str], timeout: float,
              programs: Sequence[Program] | None = None) -> str:
    """'' when TVM takes ``spec``'s arguments (or the pass has none); else TVM's error, one line.
    ``programs``: the tiny modules to try (default ``tiny_programs()``)."""
    words = argument_words(spec)
    if not words:
        return ""  # nothing TVM could reject by name
    passes = with_prerequisites([spec])
    failures = []
    for program in programs if programs is not None else tiny_programs():
        outcome = run_side(program, passes, targets, timeout)
        if outcome.ok and spec.text in outcome.fired:
            return ""  # it did its work on a module: the arguments are usable
        reached = outcome.stage.split(":", 1)[0] in ("compile", "run") or \
            outcome.stage in (f"pass:{spec.text}", f"well-formed:{spec.text}")
        if outcome.status == "error" and reached and not outcome.outside_contract \
                and any(word in outcome.error for word in words):
            failures.append(outcome.error)
    return failures[0] if failures else ""

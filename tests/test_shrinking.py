"""How the engine runs shrink candidates: a hang costs seconds, not the whole --timeout."""

import time

from passfuzz.ir.program import Node, Param, Program
from passfuzz.judge.trial import check, shrink_timeout
from passfuzz.passes.names import resolve_list

X = Param((2, 2), "float32", -4, 4, [[0.0, 1.0], [2.0, 3.0]])


def test_the_hang_limit_follows_the_unoptimized_side_within_the_timeout():
    assert shrink_timeout(0.1, 60) == 3.0  # the floor
    assert shrink_timeout(2.0, 60) == 20.0  # ten times the unoptimized side
    assert shrink_timeout(30.0, 60) == 60  # never past --timeout
    assert shrink_timeout(0.1, 2) == 2


def test_a_shrink_candidate_that_still_hangs_costs_seconds_not_the_timeout():
    program = Program((X, Node("negative", (0,))), (1,))
    started = time.monotonic()
    verdict, _ = check(program, resolve_list("tests.planted_passes:spin_forever"), ["llvm"], 60.0, shrinking=True)
    assert verdict.finding is not None and verdict.finding.kind == "hang"
    assert "after 60 s" not in verdict.finding.message
    assert time.monotonic() - started < 30

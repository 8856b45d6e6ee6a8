"""The engine's events: typed, frozen, picklable across workers, rendered by type."""

import dataclasses
import io
import pickle
import typing
from pathlib import Path

import pytest

from passfuzz.campaign import events
from passfuzz.campaign.events import (
    ClusterJoined,
    ExampleChecked,
    FindingSaved,
    FindingSeen,
    InternalError,
    Observed,
    OutsideContract,
    VariantSeen,
    Replanned,
    WorkerLost,
    WorkerRefused,
)
from passfuzz.campaign.stats import Stats
from passfuzz.cli.output import Console
from passfuzz.ir.program import Node, Param, Program
from passfuzz.judge.finding import new_finding
from passfuzz.passes.names import PassSpec

PROGRAM = Program((Param((3,), "float32", -4, 4, [0.0, 1.0, 2.0]), Node("exp", (0,))), (1,))
FINDING = new_finding("wrong-result", [PassSpec("FoldConstant")], "values", "outputs differ", "run:llvm")
PATH = Path("corpus/wrong-result-0123456789ab.json")


def every_event():
    return [ExampleChecked(Stats(examples=3, pass_runs={"FoldConstant": 3})), FindingSeen(FINDING, PATH),
            OutsideContract(dataclasses.replace(FINDING, outside_contract="FoldConstant after LegalizeOps"), PATH),
            VariantSeen(dataclasses.replace(FINDING, variant_of="a-known-fault"), PATH),
            Observed(dataclasses.replace(FINDING, kind="missed-rewrite"), PATH),
            FindingSaved(FINDING, PATH, PROGRAM), ClusterJoined("tcp://127.0.0.1:8786", ("w1", "w2"), ("w2",)),
            WorkerRefused("w3", "worker w3 runs TVM 0.26.0, the client TVM 0.27.0"), WorkerLost("w1", "it left the cluster"),
            Replanned(("exp", "sigmoid"), "P changed the module in 0.0% of 100 examples: focus widened to exp,sigmoid"),
            InternalError("OverflowError: Python integer -8 out of bounds for uint8", "run/internal-error-0-1.txt")]


def test_every_kind_is_listed_frozen_and_survives_pickling():
    made = every_event()
    assert {type(e) for e in made} == set(typing.get_args(events.Event))
    for event in made:
        assert pickle.loads(pickle.dumps(event)) == event  # the workers' queues pickle them
        with pytest.raises(dataclasses.FrozenInstanceError):
            event.__setattr__(dataclasses.fields(event)[0].name, None)


def test_the_console_renders_each_kind_by_its_type():
    stream = io.StringIO()
    console = Console(stream)
    for event in every_event():
        console.handle(event)
    text = stream.getvalue()
    assert "0:00:00  3 examples" in text
    assert f"new finding wrong-result: outputs differ\n  saved unshrunk to {PATH}; shrinking..." in text
    assert f"because FoldConstant after LegalizeOps\n  saved apart to {PATH}" in text
    assert f"shrunk to {PROGRAM.summary()}\n  saved {PATH}\n  reproduce: python {str(PATH)[:-5]}.py" in text
    assert "on 2 workers of the Dask cluster at tcp://127.0.0.1:8786: w1, w2" in text
    assert "1 of them run several threads" in text
    assert "a worker joined and gets no work: worker w3 runs TVM 0.26.0, the client TVM 0.27.0" in text
    assert "worker w1 lost (it left the cluster); the others go on" in text
    assert ("passfuzz itself failed (its bug, please report it with the traceback in run/internal-error-0-1.txt): "
            "OverflowError: Python integer -8 out of bounds for uint8; the round is dropped, the run goes on") in text


def test_what_is_not_an_event_is_refused_not_ignored():
    with pytest.raises(TypeError):
        Console(io.StringIO()).handle({"stats": Stats()})


def _failing_generation(monkeypatch, failures: int) -> list:
    """Fuzzer.programs made to raise in its first ``failures`` draws, as a generator bug would."""
    from hypothesis import strategies as st

    from passfuzz.campaign import engine

    left = [failures]

    def programs(self):
        def draw(_):
            if left[0] > 0:
                left[0] -= 1
                raise OverflowError("Python integer -8 out of bounds for uint8")
            return PROGRAM
        return st.just(None).map(draw)

    monkeypatch.setattr(engine.Fuzzer, "programs", programs)
    return left


def test_passfuzzs_own_error_drops_the_round_and_the_run_goes_on(monkeypatch, tmp_path):
    from passfuzz.campaign.engine import FuzzConfig, Fuzzer
    from passfuzz.passes.names import resolve_list

    _failing_generation(monkeypatch, 1)
    seen = []
    config = FuzzConfig(passes=resolve_list("FoldConstant"), targets=["llvm"], corpus_dir=tmp_path, max_examples=4,
                        seed=1, round_size=2, run_dir=tmp_path / "run")
    (tmp_path / "run").mkdir()
    stats = Fuzzer(config, notify=seen.append).run()
    assert stats.internal_errors == 1 and stats.examples >= 2, stats
    [error] = [e for e in seen if isinstance(e, InternalError)]
    assert error.error == "OverflowError: Python integer -8 out of bounds for uint8"
    assert "OverflowError" in Path(error.path).read_text()


def test_the_same_error_in_every_round_still_stops_the_run(monkeypatch, tmp_path):
    from passfuzz.campaign.engine import MAX_INTERNAL_ERRORS, FuzzConfig, Fuzzer
    from passfuzz.passes.names import resolve_list

    _failing_generation(monkeypatch, 10**6)
    config = FuzzConfig(passes=resolve_list("FoldConstant"), targets=["llvm"], corpus_dir=tmp_path, max_examples=40,
                        seed=1, round_size=2)
    fuzzer = Fuzzer(config, notify=lambda event: None)
    with pytest.raises(OverflowError):
        fuzzer.run()
    assert fuzzer.stats.internal_errors == MAX_INTERNAL_ERRORS

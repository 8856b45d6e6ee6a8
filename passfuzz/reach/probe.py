"""What a pass does, observed: it is applied (in forked children) to small programs drawn the way
the fuzzer draws them, and the ops of the programs it changes (or fails on) are what it matches.

Evidence rather than guesses. A pass's source names the ops it *builds* as readily as those it
matches, composes op names at run time, or names none (a wrapped C++ pass); the probe reads none
of it. Source hints only *order* the probe (the ops they name are probed first, so a short budget
still reaches them); the probe decides.

Three stages, within a time budget:

1. **Each op on its own, in every operand form.** For every drawable op, a few programs focused on
   that op alone (``strategies.relax_programs(focus=(op,))``): two or three nodes of it meeting
   (one feeding the next at a drawn operand, sharing an operand, one value read twice, reading
   the same operands), half of them with fresh constants beside them; eight times as many for an
   op the source names. The focus strategy is the fuzzer's own, so whatever form the probe saw
   fire, the run draws again. An op counts when at least half the programs drawn around it fired, and
   the form is kept: did the firing programs feed a constant to the op, read one value twice?
2. **Two ops meeting.** When no op fires alone and the source names ops: programs focused on two
   of them, or, when it names one, on that one and each other op. The first batch that fires gives
   the source's ops its programs share and their partners there.
3. **Larger programs.** Otherwise, unfocused programs of up to eight nodes, with motifs; the ops
   that firing programs hold at twice the overall fire rate or more are candidates, each confirmed
   by programs focused on it.

A child that crashes is halved until the program it dies on stands alone; a child that hangs ends
the probe. A probe of the catalogue that finds more than half of it, or sees nearly every program
change, found a pass that rewrites (or fails on) anything: focusing would narrow generation for
nothing.

Results are cached by the pass's identity (its text, its Python source, the TVM and passfuzz
versions) under the corpus, so a second run starts at once.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings

from passfuzz.ir.program import Node, Program
from passfuzz.passes.catalogue import with_prerequisites
from strategies import relax_programs

# A probe that changes more than this share of the catalogue found a pass that rewrites anything.
EVERYTHING = 0.5
PROGRAMS_PER_OP = 4  # stage 1: programs focused on each op (eight times as many for an op the source names)
PROGRAMS_PER_BATCH = 40  # programs one child applies the pass to
STAGE_TWO_SHARE = 0.5  # of the budget, what stage 2 may take when stage 1 found nothing
STAGE_TWO_ROUNDS = 4  # passes over the pairs (fresh draws of those not yet seen firing), budget allowing
LARGER_BATCHES = 12  # stage 3: batches of larger programs at the most
# After this many programs, a pass that changed (or failed on) nearly all of them changes anything.
EARLY = 2 * PROGRAMS_PER_BATCH


@dataclass(frozen=True)
class ProbeResult:
    """What the probe saw: the ops the pass changed (or failed on) programs holding, best first,
    the forms those programs had, how many programs it ran and how many fired."""

    ops: tuple[str, ...] = ()
    constants: bool = False  # most firing programs fed a constant to a found op
    twice: bool = False  # most firing programs read one value twice in a found op
    # (producer, consumer, operand) edges between found ops that most of a firing pair's programs held
    feeds: tuple[tuple[str, str, int], ...] = ()
    stage: int = 0  # 1: ops on their own; 2: two hinted ops meeting; 3: in larger programs; 0: nothing found
    programs: int = 0
    fired: int = 0
    everything: bool = False  # it changed most ops: no focus follows
    hung: bool = False  # a child hung (or a pass too slow for the batch's time): not cached
    seconds: float = 0.0
    # op -> (programs holding it that the pass changed, programs holding it)
    counts: dict[str, tuple[int, int]] = field(default_factory=dict, compare=False)

    def line(self) -> str:
        """One line for the start of the run: what the probe found."""
        if self.hung:
            return f"hung on probe programs ({self.programs} tried): no focus follows"
        if self.everything:
            return f"changes or fails on programs of most ops ({self.fired} of {self.programs} probe programs)"
        if not self.ops:
            return f"changed none of {self.programs} probe programs"
        forms = [name for name, wanted in (("constants", self.constants), ("one value twice", self.twice)) if wanted]
        how = {1: "on their own", 2: "two of them meeting", 3: "in larger programs"}[self.stage]
        return (f"changes {','.join(self.ops)} ({how}{', with ' + ' and '.join(forms) if forms else ''}; "
                f"{self.fired} of {self.programs} probe programs)")


def draw_programs(count: int, draw_seed: int, **strategy) -> list[Program]:
    """``count`` programs of ``relax_programs(**strategy)``, the same ones for the same seed
    (remembered: probes of several passes in one process draw most of their programs alike)."""
    frozen = tuple(sorted((key, tuple(value) if isinstance(value, list) else value) for key, value in strategy.items()))
    return list(_drawn(count, draw_seed, frozen))


@functools.lru_cache(maxsize=4096)
def _drawn(count: int, draw_seed: int, strategy: tuple) -> tuple[Program, ...]:
    drawn: list[Program] = []

    @seed(draw_seed)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(relax_programs(**dict(strategy)))
    def collect(program):
        drawn.append(program)

    collect()
    return tuple(drawn)


# Structure, not ops a pattern names: a pass that rebuilds every function changes programs with local
# functions and branches whatever it matches.
STRUCTURE = frozenset({"const", "tuple", "tuple_get_item", "call", "if"})


def _ops(program: Program) -> set[str]:
    return {v.op for v in program.values if isinstance(v, Node) and v.op not in STRUCTURE}


def _form(program: Program, ops: set[str]) -> tuple[bool, bool]:
    """(a constant feeds one of ``ops``, one of ``ops`` reads a value twice) in ``program``."""
    constant = twice = False
    for value in program.values:
        if isinstance(value, Node) and value.op in ops:
            args = [a for a in value.args if isinstance(a, int)]
            constant = constant or any(isinstance(program.values[a], Node) and program.values[a].op == "const"
                                       for a in args)
            twice = twice or len(set(args)) < len(args)
    return constant, twice


def _apply_all(programs: Sequence[Program], spec, timeout: float, hung: list[int]) -> list[bool]:
    """Whether ``spec`` changed (or failed on) each program: batches, each in a forked child. A
    child that crashes is split in halves until the programs it meets stand alone: each such
    program counts as fired (the pass met it), the others are judged as usual. A child that hangs
    counts its whole batch as fired, and its size goes to ``hung``: the probe stops there."""
    from passfuzz.run import execute, isolate  # TVM lives there

    passes = with_prerequisites([spec])  # a pass meant for legalized modules is given one, as a run gives it

    def changes(batch: Sequence[Program]) -> list[bool]:
        seen = []
        for program in batch:
            try:
                seen.append(spec.text in execute.fired_passes(program, passes))
            except Exception:  # noqa: BLE001 - a pass failing on a program is looking at it
                seen.append(True)
        return seen

    def judged(batch: list[Program], seconds: float) -> list[bool]:
        result = isolate.run_forked(lambda: changes(batch), seconds)
        if result.status == "ok":
            return result.value
        if result.status == "hang":  # halving a hang costs a timeout per half: it hangs on what it is given
            hung.append(len(batch))
            return [True] * len(batch)
        if len(batch) == 1:
            return [True]
        half = len(batch) // 2  # a crash ends the child: which program, the halves say
        return judged(batch[:half], max(1.0, seconds / 2)) + judged(batch[half:], max(1.0, seconds / 2))

    fired: list[bool] = []
    for start in range(0, len(programs), PROGRAMS_PER_BATCH):
        fired += judged(list(programs[start:start + PROGRAMS_PER_BATCH]), timeout)
    return fired


def probe_pass(spec, ops: Sequence[str], budget: float = 30.0, hints: Sequence[str] = (), timeout: float = 10.0,
               match_cast: bool = True, dtypes: Sequence[str] | None = None, hinted_dtypes: Sequence[str] = (),
               feeds: Sequence[tuple[str, str, int]] = (), share: float = 0.5,
               alone: Sequence[str] | None = None) -> ProbeResult:
    """Probe ``spec`` over the catalogue ops ``ops`` for at most about ``budget`` seconds.
    ``hints``: ops its source names (matched or built), probed first and paired with each other,
    with the dtypes its source names (``hinted_dtypes``) and the feeds its patterns nest (``feeds``)
    drawn often; ``match_cast`` and ``dtypes`` keep the probe programs inside the pass's contract,
    as the run's programs are. ``share``: of the programs holding an op, how many must fire for
    stage 1 to count it (any at all when confirming ops the source names); ``alone``: the ops stage 1
    probes on their own (default: all of ``ops``), the rest being met in pairs only."""
    started = time.monotonic()
    ops = [op for op in ops if op not in STRUCTURE]
    hints = [op for op in hints if op in ops]
    order = hints + [op for op in ops if op not in hints] if alone is None else [op for op in alone if op in ops]
    common = {"match_cast": match_cast, "symbolic": False, **({"dtypes": tuple(dtypes)} if dtypes else {})}
    counts: dict[str, list[int]] = {}
    own: list[tuple[str, frozenset[str], bool]] = []  # stage 1: (the op drawn around, the ops held, fired)
    paired: list[tuple[tuple[str, str], Program, bool]] = []  # stage 2: (the pair drawn around, program, fired)
    plain = [0, 0]  # [fired, programs] among those not drawn around an op the source names
    programs: list[Program] = []
    fired_programs: list[Program] = []
    hung: list[int] = []  # batches whose child hung: a pass that hangs is fuzzed without a probe's focus
    whole = alone is None  # a probe of the catalogue (or all --ops allows): "everything" applies

    def left() -> float:
        return budget - (time.monotonic() - started) if not hung else 0.0

    def run(batch: list[Program], around: Sequence[str | tuple[str, str] | None] = ()) -> list[bool]:
        """Whether the pass changed each program of ``batch``; ``around``: what each was drawn
        around (stage 1 an op, stage 2 a pair, stage 3 nothing)."""
        seen = _apply_all(batch, spec, timeout, hung)
        for k, (program, fired) in enumerate(zip(batch, seen)):
            programs.append(program)
            op = around[k] if around else None
            if isinstance(op, str):
                own.append((op, frozenset(_ops(program)), fired))
            elif isinstance(op, tuple):
                paired.append((op, program, fired))
            if op is None or isinstance(op, str) and op not in hints:
                plain[0] += fired
                plain[1] += 1
            for op in _ops(program):
                tally = counts.setdefault(op, [0, 0])
                tally[0] += fired
                tally[1] += 1
            if fired:
                fired_programs.append(program)
        return seen

    def focused(group: Sequence[str], number: int, count: int = PROGRAMS_PER_OP) -> list[Program]:
        try:  # half the groups with fresh constants beside the focused ops
            return draw_programs(count, number, ops=list(group), focus=tuple(group), min_nodes=2,
                                 max_nodes=2 + len(group), motifs=False, focus_constants=number % 2 == 1,
                                 focus_dtypes=tuple(hinted_dtypes),
                                 focus_feeds=tuple(f for f in feeds if {f[0], f[1]} <= set(group)), **common)
        except Exception:  # noqa: BLE001 - a group that cannot be drawn here (its dtypes, the contract)
            return []

    # Stage 1: each op on its own, in every operand form; ops batched so a child serves several.
    pending: list[Program] = []
    around: list[str] = []
    for number, op in enumerate(order):
        if left() < budget * STAGE_TWO_SHARE or hung:
            break
        drawn = focused([op], number, PROGRAMS_PER_OP * (8 if op in hints else 1))
        pending += drawn
        around += [op] * len(drawn)
        if len(pending) >= PROGRAMS_PER_BATCH:
            run(pending, around)
            pending, around = [], []
            if whole and plain[1] >= EARLY and plain[0] >= 0.9 * plain[1]:
                break  # it changes or fails on whatever it is given (the source's ops aside)
    if pending and not hung:
        run(pending, around)
    found, stage, feeds = _found(own, share), 1, ()
    # Stage 2: two ops meeting, at least one of them named by the source: a pattern of two ops
    # neither of which a one-op program shows (the hinted pairs first, then each hinted op with
    # every other op).
    if not found and hints:
        pairs = [(a, b) for i, a in enumerate(hints) for b in hints[i + 1:]]
        among_hints = len(pairs)  # drawn more often: the source names both
        if len(hints) == 1:  # one op named: its partner is one the source does not name
            pairs += [(hints[0], b) for b in ops if b != hints[0]]
        # Every pair the budget reaches, in rounds of fresh draws of the pairs not yet seen firing,
        # not up to the first pair that fires: a pass matching a named op under any of several
        # partners (negative under abs, square or tanh) is focused on all those the probe saw, and
        # a pair whose few programs did not meet in the order the pattern needs gets more draws.
        pending, around, fired_pairs = [], [], set()
        for attempt in range(STAGE_TWO_ROUNDS):
            todo = [(number, pair) for number, pair in enumerate(pairs) if pair not in fired_pairs]
            for k, (number, pair) in enumerate(todo):
                if left() <= 0:
                    break
                drawn = focused(pair, 30_000 + 1_000 * attempt + number,
                                2 * PROGRAMS_PER_OP if number < among_hints else 3)
                pending += drawn
                around += [pair] * len(drawn)
                if len(pending) >= PROGRAMS_PER_BATCH or k == len(todo) - 1:
                    fired_pairs |= {pair for pair, fired in zip(around, run(pending, around)) if fired}
                    pending, around = [], []
            if left() <= 0:
                break
        if pending and left() > 0:
            run(pending, around)
        kept = _met(paired)
        met = {op for pair in kept for op in pair}
        feeds = _feeds(paired, kept)
        if met:  # the source's ops of the pairs that fired, and their partners (not the helpers they bring)
            found, stage = [op for op in hints if op in met] + sorted(met - set(hints))[:6], 2
    # Stage 3: larger unfocused programs; the ops that firing programs hold clearly more often
    # than programs do are candidates, each confirmed by programs focused on it (which may run a
    # quarter of the budget over: a candidate is worth its confirmation).
    if not found and alone is None:  # (confirming the source's ops stops at its pairs: the run re-plans)
        number = 0
        while left() > 0 and number < LARGER_BATCHES:
            run(draw_programs(PROGRAMS_PER_BATCH, 10_000 + number, ops=list(ops), min_nodes=3, max_nodes=8, **common))
            number += 1
        candidates = enriched(counts, len(programs), len(fired_programs))
        confirmed = [op for number, op in enumerate(candidates)
                     if left() > -budget / 4 and any(run(focused([op], 20_000 + number, 4 * PROGRAMS_PER_OP)))]
        if confirmed:
            found, stage = confirmed, 3
    everything = bool(hung) or whole and ((bool(found) and len(found) > EVERYTHING * len(ops))
                                         or (plain[1] >= EARLY and plain[0] >= 0.9 * plain[1]))
    shown = found if not everything else []
    wanted = set(shown)
    forms = [_form(p, wanted) for p in fired_programs if _ops(p) & wanted]
    return ProbeResult(
        ops=tuple(shown), constants=bool(forms) and sum(c for c, _ in forms) * 2 > len(forms),
        twice=bool(forms) and sum(t for _, t in forms) * 2 > len(forms), stage=stage if shown else 0,
        feeds=feeds if shown else (), programs=len(programs), fired=len(fired_programs), everything=everything,
        hung=bool(hung),
        seconds=round(time.monotonic() - started, 1),
        counts={op: (tally[0], tally[1]) for op, tally in counts.items()})


def _found(drawn: Sequence[tuple[str, frozenset[str], bool]], share: float = 0.5) -> list[str]:
    """Stage 1's ops, best rate first: those whose programs (drawn around the op: ``drawn`` holds
    (op, the ops a program holds, fired)) fired at least ``share`` of the time. Only the op a
    program was drawn around counts, not a helper its proposal adds (the clip before a take: eight
    times as many programs around a take the source names once made clip look matched); and an op
    counts only on the programs that hold no other op found, since a helper the pass matches
    makes its op's programs fire too (the expand_dims a conv2d's proposal adds, which
    RewriteDataflowReshape rewrites)."""
    def rate(op: str, without: frozenset[str] = frozenset()) -> tuple[int, int]:
        fired = [f for o, held, f in drawn if o == op and not (held - {op}) & without]
        return sum(fired), len(fired)

    def counts(fired: int, held: int) -> bool:
        return fired > 0 and fired >= share * held

    found = frozenset(op for op, _, _ in drawn if counts(*rate(op)))
    kept = [op for op in found if counts(*rate(op, found))]
    return sorted(kept, key=lambda op: (-rate(op)[0] / rate(op)[1], op))


def _met(paired: Sequence[tuple[tuple[str, str], Program, bool]]) -> set[tuple[str, str]]:
    """Stage 2's pairs: those drawn around which a program fired, each counted (as ``_found``
    counts stage 1's ops) only on the programs holding no op of another such pair. A partner
    whose proposal adds a helper the pass rewrites fires through that helper alone (the ``abs``
    before an ``acosh`` meeting a ``negative``, for a pass rewriting ``abs(negative(x))``); focusing
    on it would spend the run's draws on programs that fire for the helper's sake. When that
    leaves no pair (each pair's programs hold another's ops), every pair that fired counts."""
    fired = {pair for pair, _, f in paired if f}
    partners = {op for pair in fired for op in pair}
    kept = {pair for pair in fired
            if any(f and not (_ops(program) - set(pair)) & partners for p, program, f in paired if p == pair)}
    return kept or fired


def _feeds(paired: Sequence[tuple[tuple[str, str], Program, bool]],
           kept: set[tuple[str, str]]) -> tuple[tuple[str, str, int], ...]:
    """The feeds (producer, consumer, operand position) between the two ops of each pair in
    ``kept`` that the most of the pair's firing programs hold, and at least half of them: the nesting the pass's pattern
    wants, seen rather than read from its source (patterns built in a loop over names read as
    none). The run's focus draws them often, as it draws the feeds a source's patterns nest."""
    seen: dict[tuple[str, str, int], int] = {}
    for pair in sorted(kept):
        programs = [program for p, program, f in paired if p == pair and f]
        tally: dict[tuple[str, str, int], int] = {}
        for program in programs:
            edges = {(program.values[a].op, value.op, k)
                     for value in program.values if isinstance(value, Node) and value.op in pair
                     for k, a in enumerate(value.args)
                     if isinstance(a, int) and isinstance(program.values[a], Node) and program.values[a].op in pair
                     and {program.values[a].op, value.op} == set(pair)}
            for edge in edges:
                tally[edge] = tally.get(edge, 0) + 1
        most = max(tally.values(), default=0)
        for edge, count in tally.items():  # the edges the most firing programs held (the pattern's, not a bystander)
            if count == most and 2 * count >= len(programs):
                seen[edge] = seen.get(edge, 0) + count
    return tuple(sorted(seen, key=lambda e: (-seen[e], e)))


def enriched(counts: dict[str, list[int]], programs: int, fired_programs: int) -> list[str]:
    """Stage 2's candidates: the ops that firing programs hold clearly more often than programs
    do (their fire rate at least twice the overall one, in at least two firing programs), at
    most four, the highest lift first."""
    if not fired_programs or not programs:
        return []
    overall = fired_programs / programs
    lifted = [(fired / held / overall, op) for op, (fired, held) in counts.items()
              if fired >= 2 and fired / held >= 2 * overall]
    return [op for _, op in sorted(lifted, key=lambda t: (-t[0], t[1]))[:4]]


# -- the cache ---------------------------------------------------------------------------------

def identity(spec, source: str, tvm_version: str, passfuzz_version: str, scope: str) -> str:
    """What a probe result depends on: the pass (text, and its Python source for a custom pass),
    the TVM and passfuzz that ran it, and the programs' scope (ops, dtypes, match_cast)."""
    text = "\0".join([spec.text, source, tvm_version, passfuzz_version, scope])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def cached(directory: Path, key: str) -> ProbeResult | None:
    try:
        doc = json.loads((directory / f"{key}.json").read_text(encoding="utf-8"))
        return ProbeResult(**{**doc, "ops": tuple(doc["ops"]), "feeds": tuple(tuple(f) for f in doc.get("feeds", ())),
                              "counts": {op: tuple(c) for op, c in doc["counts"].items()}})
    except (OSError, ValueError, TypeError, KeyError):
        return None


def store(directory: Path, key: str, result: ProbeResult) -> None:
    """Written whole or not at all (a cache: a lost entry is only probed again)."""
    write_whole(directory / f"{key}.json", json.dumps(asdict(result)) + "\n")


def write_whole(path: Path, text: str) -> None:
    """``text`` at ``path``, written whole or not at all (written beside it, then renamed), for the
    files of reach/ that several workers of a machine share."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial.tmp")  # as corpus.atomic_write names them
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


# -- the pass catalogue held against the probe -------------------------------------------------

@dataclass(frozen=True)
class CatalogueCheck:
    """A TVM pass's ``PassInfo.matches`` held against what the probe sees it change, with the
    disagreements its catalogue entry explains (``PassInfo.probe_notes``) set apart."""

    name: str
    listed: tuple[str, ...]  # the catalogue's ops (structure left out: never probed)
    seen: ProbeResult
    notes: tuple[tuple[str, str], ...] = ()  # (op, why the probe disagrees on it) from the catalogue

    def disagreements(self) -> list[str]:
        """Each disagreement as ``-op`` (listed, never seen), ``+op`` (seen, not listed) or
        ``*`` (changes most ops)."""
        if self.seen.everything:
            return ["*"]
        return [f"-{op}" for op in self.listed if op not in self.seen.ops] + \
            [f"+{op}" for op in self.seen.ops if op not in self.listed]

    def unexplained(self) -> list[str]:
        """The disagreements the catalogue does not explain (a note keyed ``+`` explains every
        op seen but not listed)."""
        explained = {key for key, _ in self.notes}
        return [d for d in self.disagreements() if d not in explained and not (d[0] == "+" and "+" in explained)]


def against_catalogue(name: str, budget: float = 60.0) -> CatalogueCheck:
    """Probe TVM's pass ``name`` over the whole catalogue (the ops its entry lists first, programs
    inside its contract, as a run draws them) and hold the result against the entry."""
    from passfuzz.passes.catalogue import CATALOGUE
    from passfuzz.passes.contracts import generation
    from passfuzz.passes.names import resolve_list

    from .focus import drawable

    [spec] = resolve_list(name)
    kept = generation([spec])
    info = CATALOGUE[name]
    listed = tuple(op for op in info.matches if op not in STRUCTURE)
    ops = [op for op in drawable() if op not in kept.left_out]
    scope = {"match_cast": kept.match_cast, "dtypes": kept.dtypes or None}
    seen = probe_pass(spec, ops, budget=budget, hints=listed, **scope)
    unseen = [op for op in listed if op not in seen.ops]
    if unseen and not seen.everything:  # confirmed as a run confirms the ops a custom pass's source looks for
        confirmed = probe_pass(spec, ops, budget=budget / 3, hints=listed, alone=unseen, share=0.0, **scope)
        seen = dataclasses.replace(seen, ops=seen.ops + tuple(op for op in confirmed.ops if op in unseen),
                                   seconds=seen.seconds + confirmed.seconds)
    return CatalogueCheck(name, listed, seen, info.probe_notes)

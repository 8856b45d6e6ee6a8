"""Fire rate of every pass of the default pool: the share of drawn programs a pass changes,
for programs drawn with motifs and without, side by side (same N, same seed).

    python benchmarks/fire_rates.py [--examples N] [--seed N] [--max-nodes N]

Nothing is compiled: each program is built, each pass is applied after its prerequisites (as
the fuzzer does), and the pass fired if it changed the module it was given (structural hash).
Each program runs in one forked child; a child that crashes is rerun one pass per child, and
passes that raise or crash are counted apart (they are the fuzzer's to judge).
"""

from __future__ import annotations

import argparse
import collections
import time

from hypothesis import HealthCheck, Phase, given, seed, settings

from passfuzz.passes.catalogue import fuzzable_pool, with_prerequisites
from passfuzz.passes.names import PassSpec
from passfuzz.run.execute import fired_passes
from passfuzz.run.isolate import run_forked
from strategies import relax_programs


def draw(examples: int, draw_seed: int, max_nodes: int, motifs: bool) -> list:
    programs = []

    @settings(max_examples=examples, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @seed(draw_seed)
    @given(relax_programs(max_nodes=max_nodes, motifs=motifs))
    def collect(program):
        programs.append(program)

    collect()
    return programs


def _one_pass(program, name: str) -> str:
    """'fired', 'unchanged', 'error' or 'crash' for one pass on one program."""
    try:
        return "fired" if name in fired_passes(program, with_prerequisites([PassSpec(name)])) else "unchanged"
    except Exception:  # noqa: BLE001 - a pass that raises is a finding for the fuzzer, not here
        return "error"


def outcomes(program, pool: list[str]) -> dict[str, str]:
    child = run_forked(lambda: {name: _one_pass(program, name) for name in pool}, timeout=300)
    if child.status == "ok":
        return child.value
    result = {}
    for name in pool:  # one pass per child, to find the one that crashed
        single = run_forked(lambda: _one_pass(program, name), timeout=60)
        result[name] = single.value if single.status == "ok" else "crash"
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-nodes", type=int, default=10)
    args = parser.parse_args()
    pool = fuzzable_pool()
    counts = {}
    started = time.monotonic()
    for motifs in (True, False):
        tally: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        programs = draw(args.examples, args.seed, args.max_nodes, motifs)
        for program in programs:
            for name, outcome in outcomes(program, pool).items():
                tally[name][outcome] += 1
        counts[motifs] = (len(programs), tally)
    n_with, with_motifs = counts[True]
    n_without, without = counts[False]
    print(f"{args.examples} programs drawn per column (seed {args.seed}, max {args.max_nodes} nodes), "
          f"{time.monotonic() - started:.0f} s; fire rate = share of programs the pass changed")
    print(f"{'pass':34} {'with motifs':>12} {'without':>9}   raised/crashed (with, without)")
    for name in sorted(pool, key=lambda n: (-with_motifs[n]["fired"], n)):
        failed = [f"{t['error']}+{t['crash']}" for t in (with_motifs[name], without[name])]
        note = f"   {failed[0]}, {failed[1]}" if any(f != "0+0" for f in failed) else ""
        print(f"{name:34} {100 * with_motifs[name]['fired'] / n_with:11.1f}% "
              f"{100 * without[name]['fired'] / n_without:8.1f}%{note}")


if __name__ == "__main__":
    main()

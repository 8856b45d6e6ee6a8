"""How often drawn programs hold each variant a pass branches on (passfuzz.passes.variants): per
pass, each variant and the share of programs that contain it where the pass can rewrite it, side
by side for programs drawn with the defaults (no pass named: no focus) and programs drawn as
`passfuzz --passes P` draws them for that pass (focus auto: its matched ops, its motifs first).
Goal: every variant in at least 1% of the programs the fuzzer draws for its pass.

    python benchmarks/variants.py [--examples N] [--seed N] [--max-nodes N] [--confirm K] [--passes P,...]

Nothing is compiled: programs are drawn exactly as the fuzzer draws them (relax_programs with
its defaults, in rounds of 50 under derived seeds) and each variant's detector reads the Program. ``--confirm K`` then applies each
pass (after its prerequisites, in a forked child, like benchmarks/fire_rates.py) to up to K
programs that contain one of its variants and prints how many it changed.
"""

from __future__ import annotations

import argparse
import random
import time

from hypothesis import HealthCheck, Phase, given, seed, settings

from passfuzz.campaign.engine import FuzzConfig
from passfuzz.ir.catalogue import OPS
from passfuzz.passes.contracts import generation
from passfuzz.passes.names import PassSpec
from passfuzz.passes.variants import PASS_VARIANTS, variants_in
from passfuzz.reach.focus import resolve as resolve_focus
from strategies import relax_programs

GOAL = 0.01


def draw(examples: int, draw_seed: int, max_nodes: int, for_pass: str | None = None) -> list:
    """``examples`` programs drawn as the fuzzer draws them: rounds of ``FuzzConfig.round_size``
    examples, each under a seed derived like ``Fuzzer``'s (one worker); for ``for_pass``, with the
    focus and motifs ``passfuzz --passes for_pass`` uses."""
    focus, motifs_for = ([], ()) if for_pass is None else (resolve_focus("auto", [PassSpec(for_pass)]).ops, (for_pass,))
    kept = generation([PassSpec(for_pass)] if for_pass else [])  # what the pass's contract rejects is not drawn
    ops = [op.name for op in OPS if op.name not in kept.left_out] if kept.left_out else None
    programs: list = []
    round_number = 0
    while len(programs) < examples:
        round_seed = random.Random(f"{draw_seed}:0:{round_number}").randrange(2**32)
        size = min(FuzzConfig.round_size, examples - len(programs))

        @settings(max_examples=size, database=None, deadline=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @seed(round_seed)
        @given(relax_programs(ops=ops, max_nodes=max_nodes, focus=focus, motifs_for=motifs_for, match_cast=kept.match_cast))
        def collect(program):
            programs.append(program)

        collect()
        round_number += 1
    return programs[:examples]


def shares(programs: list) -> tuple[dict[str, dict[str, float]], list[dict[str, set[str]]]]:
    found = [variants_in(p) for p in programs]
    table = {name: {v.name: sum(v.name in f[name] for f in found) / len(programs) for v in variants}
             for name, variants in PASS_VARIANTS.items()}
    return table, found


def confirm(programs: list, found: list, name: str, most: int) -> tuple[int, int]:
    """(changed, tried): how many of up to ``most`` programs holding a variant of ``name`` it changed."""
    from passfuzz.passes.catalogue import with_prerequisites
    from passfuzz.passes.names import PassSpec
    from passfuzz.run.execute import fired_passes
    from passfuzz.run.isolate import run_forked

    specs = with_prerequisites([PassSpec(name)])
    holding = [p for p, f in zip(programs, found) if f[name]][:most]
    changed = 0
    for program in holding:
        child = run_forked(lambda: name in fired_passes(program, specs), timeout=120)
        changed += child.status == "ok" and bool(child.value)
    return changed, len(holding)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-nodes", type=int, default=10)
    parser.add_argument("--confirm", type=int, default=0, metavar="K")
    parser.add_argument("--passes", metavar="P[,P...]", help="only these passes (default: every pass listed)")
    args = parser.parse_args()
    names = args.passes.split(",") if args.passes else list(PASS_VARIANTS)
    started = time.monotonic()
    plain = draw(args.examples, args.seed, args.max_nodes)
    plain_table, _ = shares(plain)
    print(f"{args.examples} programs per column (seed {args.seed}, max {args.max_nodes} nodes); share of programs "
          f"holding each variant where the pass can rewrite it (goal >= {GOAL:.0%} as fuzzed for the pass)")
    print(f"    {'variant':42} {'default':>8} {'as fuzzed':>10}")
    below = []
    for name in names:
        programs = draw(args.examples, args.seed, args.max_nodes, for_pass=name)
        table, found = shares(programs)
        any_share = sum(bool(f[name]) for f in found) / len(programs)
        line = f"{name}  (any variant as fuzzed: {any_share:.1%})"
        if args.confirm:
            changed, tried = confirm(programs, found, name, args.confirm)
            line += f"  changed {changed} of {tried} sampled"
        print(line, flush=True)
        for variant in PASS_VARIANTS[name]:
            share = table[name][variant.name]
            mark = "" if share >= GOAL else "   < goal"
            observed = "" if variant.observed == "rewrites" else f" ({variant.observed})"
            print(f"    {variant.name + observed:42} {plain_table[name][variant.name]:8.1%} {share:10.1%}{mark}")
            if share < GOAL:
                below.append(f"{name}.{variant.name}")
    print(f"{len(below)} variant(s) below the goal as fuzzed" + (": " + ", ".join(below) if below else "")
          + f"; {time.monotonic() - started:.0f} s")

if __name__ == "__main__":
    main()

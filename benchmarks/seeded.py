"""Seeded against unseeded fuzzing, for equal time: each pass's fire rate and the bugs met.

For each pass named, and each arm, this runs the fuzzer in this process exactly as

    passfuzz --passes PASS --max-time T --seed S --targets llvm --corpus EMPTY [--seeds SEEDS]

would (the run plan of passfuzz.campaign.plan, so focus, motifs, prerequisites and dtypes are as a
user gets them), with a fresh corpus per run and the shipped known-bug baseline. The arms:

- ``unseeded``: programs drawn from scratch (relax_programs, focus and motifs as usual);
- ``seeded``: programs drawn only as mutations of SEEDS (default: the repository's corpus records);
- ``mixed``: half of each, one Hypothesis ``one_of`` (seeded first, so shrinking prefers it);
  what ``--seeds`` does (``FuzzConfig.fresh_too``).

Printed per pass and arm: examples run, the fire rate (examples in which the pass changed the
module, of those in which it ran), the distinct bugs met (known ones of the baseline, and new
ones, which are shrunk and reduced within the run), and generator defects.

    python benchmarks/seeded.py [--passes P,...] [--max-time 120] [--seed 1] [--seeds PATH,...]
                                [--arms unseeded,seeded,mixed]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from passfuzz.campaign.engine import Fuzzer
from passfuzz.campaign.plan import RunOptions, plan

ROOT = Path(__file__).resolve().parent.parent
PASSES = "FoldConstant,EliminateCommonSubexpr,FuseTransposeMatmul,CombineParallelMatmul,ReorderTakeAfterMatmul"


class _CountingFuzzer(Fuzzer):
    """The fuzzer, also remembering every distinct finding it met (known ones included)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.met: set[tuple[str, str]] = set()

    def _count(self, program, verdict, optimized, passes, known, shrinking):
        if verdict.finding is not None and not shrinking:
            self.met.add((verdict.finding.kind, verdict.finding.fingerprint))
        return super()._count(program, verdict, optimized, passes, known, shrinking)


def run_arm(pass_name: str, arm: str, args) -> dict:
    with tempfile.TemporaryDirectory() as corpus:
        options = RunOptions(passes=pass_name, max_time=args.max_time, seed=args.seed, targets="llvm",
                             corpus=Path(corpus), shrink_time=5, reduce_time=15,
                             seeds=None if arm == "unseeded" else args.seeds)
        config = plan(options)
        config.fresh_too = arm == "mixed"
        fuzzer = _CountingFuzzer(config)
        stats = fuzzer.run()
    ran = stats.pass_runs.get(pass_name, 0)
    fired = stats.pass_fired.get(pass_name, 0)
    known = set(config.known_bugs)
    return {"examples": stats.examples, "ran": ran, "fired": fired,
            "known": sorted(fp for _, fp in fuzzer.met if fp in known),
            "new": sorted(f"{kind}-{fp}" for kind, fp in fuzzer.met if fp not in known),
            "saved": len(stats.findings) + len(stats.unblamed), "defects": stats.generator_defects}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--passes", default=PASSES)
    parser.add_argument("--max-time", type=float, default=120.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seeds", default=str(ROOT / "corpus"))
    parser.add_argument("--arms", default="unseeded,seeded")
    args = parser.parse_args()
    arms = args.arms.split(",")
    print(f"{args.max_time:g} s per pass and arm, seed {args.seed}, seeds {args.seeds}")
    print(f"{'pass':28} {'arm':9} {'examples':>8} {'fire rate':>16} {'known met':>9} {'new met':>7} {'defects':>7}")
    for pass_name in args.passes.split(","):
        for arm in arms:
            r = run_arm(pass_name, arm, args)
            rate = f"{r['fired']}/{r['ran']} ({100 * r['fired'] / r['ran']:.0f}%)" if r["ran"] else "-"
            print(f"{pass_name:28} {arm:9} {r['examples']:>8} {rate:>16} {len(r['known']):>9} {len(r['new']):>7} "
                  f"{r['defects']:>7}", flush=True)
            for finding in r["new"]:
                print(f"{'':28} {'':9} new: {finding}", flush=True)


if __name__ == "__main__":
    main()

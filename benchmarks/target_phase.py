"""Hypothesis' target phase on and off, side by side: time to each planted pass's bug and its
fire rate.

From the 25th example of each 50-example round, the target phase spends the round's examples
hill-climbing from the program where the most passes changed the module (the engine's
``target()``) instead of drawing fresh ones. Whether that earns its examples is measured here on
the planted passes (``benchmarks/planted_focus/`` and ``benchmarks/planted_reach/``; never the
held-out sets): for each pass and seed, the engine runs twice at the same time, once with the
phase and once without, so the machine's load falls on both alike, as

    passfuzz --passes MODULE:NAME --max-time T --seed S --known-bugs corpus/ --corpus EMPTY
             --shrink-time 1 --reduce-time 1 --strict-time

would (the run plan of passfuzz.campaign.plan, with ``FuzzConfig.target_phase`` set, and
``--probe-time 15``), each ending at its first new wrong result. The pass is probed once, before
both arms (the probe's cache copied into each run's corpus), so both focus alike; each arm is a
child forked from this process, running its seeds in turn. Printed per pass, arm and seed: the seconds from the
fuzzer's start to the first wrong result (``-``: none within T), the examples run, and the pass's
fire rate over them; at the end, per arm, the runs that found the bug, the sum of their times
(a run that found nothing counted at T) and the fire rate over all examples.

    PYTHONPATH=. python benchmarks/target_phase.py [--max-time 60] [--seed 1,2] [--set planted,reach]
                                                   [--only NAME,...]
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import multiprocessing
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETS = {"planted": "benchmarks.planted_focus.passes", "reach": "benchmarks.planted_reach.passes"}
PROBES = Path(".reach") / "probes"
ARMS = {"on": True, "off": False}
PROBE_TIME = 15.0  # each pass probed once, before its runs (the cache key holds the budget)


def options(pass_text: str, max_time: float, seed: int, corpus: Path):
    from passfuzz.campaign.plan import RunOptions

    return RunOptions(passes=pass_text, max_time=max_time, seed=seed, corpus=corpus, known_bugs=str(ROOT / "corpus"),
                      shrink_time=1, reduce_time=1, strict_time=True, targets="llvm", probe_time=PROBE_TIME)


def prime(pass_text: str, probes: Path) -> None:
    """Plan once, so that the probe's result is cached in ``probes`` for every run of the pass."""
    from passfuzz.campaign.plan import plan

    with tempfile.TemporaryDirectory() as corpus:
        plan(options(pass_text, 60, 1, Path(corpus)))
        if (Path(corpus) / PROBES).is_dir():
            shutil.copytree(Path(corpus) / PROBES, probes, dirs_exist_ok=True)


def one_run(pass_text: str, seed: int, arm: str, max_time: float, probes: Path) -> dict:
    """One arm's run, ended at its first new wrong result."""
    from passfuzz.campaign.engine import Fuzzer
    from passfuzz.campaign.events import FindingSeen
    from passfuzz.campaign.plan import plan

    with tempfile.TemporaryDirectory() as corpus:
        if probes.is_dir():
            shutil.copytree(probes, Path(corpus) / PROBES)
        config = dataclasses.replace(plan(options(pass_text, max_time, seed, Path(corpus))), target_phase=ARMS[arm])
        found: list[float] = []

        def notify(event) -> None:
            if isinstance(event, FindingSeen) and event.finding.kind == "wrong-result" and not found:
                found.append(time.monotonic() - fuzzer.started)
                fuzzer.interrupted = True  # the run ends here, at its next example

        fuzzer = Fuzzer(config, notify=notify)
        stats = fuzzer.run()
    return {"seconds": found[0] if found else None, "examples": stats.examples,
            "runs": stats.pass_runs.get(pass_text, 0), "fired": stats.pass_fired.get(pass_text, 0)}


def arm_runs(pass_text: str, seeds: list[int], arm: str, max_time: float, probes: Path, results) -> None:
    """A forked child: one arm's run for each seed in turn, sent back through ``results``."""
    results.send([one_run(pass_text, seed, arm, max_time, probes) for seed in seeds])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-time", type=float, default=60.0, help="seconds per run (default 60)")
    parser.add_argument("--seed", default="1,2", help="comma-separated seeds (default 1,2)")
    parser.add_argument("--set", default="planted,reach", help="planted, reach or both (default both)")
    parser.add_argument("--only", help="comma-separated planted pass names")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    import passfuzz.campaign.engine  # noqa: F401 - TVM imported once, before the arms fork

    seeds = [int(s) for s in args.seed.split(",")]
    passes = [f"{SETS[name]}:{p}" for name in args.set.split(",") for p in importlib.import_module(SETS[name]).PLANTED
              if not args.only or p in args.only.split(",")]
    context = multiprocessing.get_context("fork")
    totals = {arm: {"found": 0, "seconds": 0.0, "runs": 0, "fired": 0, "examples": 0, "tried": 0} for arm in ARMS}
    print(f"{'pass':<24}" + "".join(f"{f'{arm} seed {s}':>24}" for arm in ARMS for s in seeds) +
          "   (seconds to the first wrong result, examples, fire rate)", flush=True)
    with tempfile.TemporaryDirectory() as cache:
        for pass_text in passes:
            probes = Path(cache) / pass_text.replace(":", "_")
            prime(pass_text, probes)
            pipes, children = {}, []
            for arm in ARMS:
                pipes[arm], sent = context.Pipe(duplex=False)
                children.append(context.Process(target=arm_runs, args=(pass_text, seeds, arm, args.max_time, probes,
                                                                       sent), daemon=True))
                children[-1].start()
            cells = []
            for arm in ARMS:
                for result in pipes[arm].recv():
                    total = totals[arm]
                    total["tried"] += 1
                    total["found"] += result["seconds"] is not None
                    total["seconds"] += args.max_time if result["seconds"] is None else result["seconds"]
                    for key in ("runs", "fired", "examples"):
                        total[key] += result[key]
                    rate = f"{100 * result['fired'] / result['runs']:.0f}%" if result["runs"] else "?"
                    when = "-" if result["seconds"] is None else f"{result['seconds']:.0f} s"
                    cells.append(f"{when}, {result['examples']}, {rate}")
            for child in children:
                child.join()
            print(f"{pass_text.rsplit(':', 1)[1]:<24}" + "".join(f"{cell:>24}" for cell in cells), flush=True)
    for arm, total in totals.items():
        rate = 100 * total["fired"] / total["runs"] if total["runs"] else 0.0
        print(f"target phase {arm}: found {total['found']} of {total['tried']} runs, {total['seconds']:.0f} s in all "
              f"(not found: {args.max_time:.0f} s), {total['examples']} examples, fire rate {rate:.1f}%")


if __name__ == "__main__":
    main()

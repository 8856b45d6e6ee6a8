"""Generator validity over a large sample: every drawn Program must build, compile and run
unoptimized (else a pipeline finding, when leaving one pass out of tvm.compile's pipeline makes it
run and match numpy, or else a generator defect) and agree with the numpy reference (else a
reference mismatch: a TVM bug or a catalogue mistake). No passes are applied.

    python benchmarks/validity.py [--examples N] [--processes N] [--seed N] [--max-nodes N] [--dtypes D,...]
                                  [--ops OP,...] [--save DIR]

Prints the counts, the defect rate, each distinct failure with a sample, how often each op was
drawn, and examples per second. ``--save DIR`` writes one Program (JSON, for ``Program.from_json``)
per distinct failure, for triage.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import multiprocessing
import pathlib
import random
import time

from hypothesis import HealthCheck, Phase, given, seed, settings

from passfuzz.judge.trial import check
from strategies import relax_programs


def _sample(job: tuple[int, int, int, tuple[str, ...] | None, list[str] | None]) -> dict:
    examples, job_seed, max_nodes, dtypes, ops = job
    found = {"examples": 0, "defects": collections.Counter(), "mismatches": collections.Counter(),
             "pipeline": collections.Counter(), "ops": collections.Counter(), "samples": {}, "programs": {}}

    @settings(max_examples=examples, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @seed(job_seed)
    @given(relax_programs(ops=ops, max_nodes=max_nodes, **({"dtypes": dtypes} if dtypes else {})))
    def one(program):
        found["examples"] += 1
        found["ops"].update(program.op_counts())
        verdict, _ = check(program, [], ["llvm"], timeout=60)  # original side and numpy only
        if verdict.generator_defect:
            key = ":".join(verdict.generator_defect.split(":")[0:2])[:150]
            found["defects"][key] += 1
            found["samples"].setdefault(key, program.to_json())
        elif verdict.finding is not None:
            kind = "pipeline" if verdict.finding.pipeline_pass else "mismatches"  # a TVM build bug, listed apart
            key = verdict.finding.signature
            found[kind][key] += 1
            found["samples"].setdefault(key, f"{program.summary()}: {verdict.finding.message}")
        else:
            return
        found["programs"].setdefault(key, program.to_json())

    one()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-nodes", type=int, default=10)
    parser.add_argument("--dtypes", help="comma-separated dtypes of parameters and constants (default: all)")
    parser.add_argument("--ops", help="comma-separated ops programs are drawn from (default: the whole catalogue)")
    parser.add_argument("--save", metavar="DIR", help="write a Program (JSON) per distinct failure into DIR")
    args = parser.parse_args()
    dtypes = tuple(args.dtypes.split(",")) if args.dtypes else None
    rng = random.Random(args.seed)
    chunk = 100  # many short Hypothesis runs, as the engine's rounds
    ops = args.ops.split(",") if args.ops else None
    jobs = [(min(chunk, args.examples - start), rng.randrange(2**32), args.max_nodes, dtypes, ops)
            for start in range(0, args.examples, chunk)]
    started = time.perf_counter()
    total = {"examples": 0, "defects": collections.Counter(), "mismatches": collections.Counter(),
             "pipeline": collections.Counter(), "ops": collections.Counter(), "samples": {}, "programs": {}}
    # forking after `import tvm` is safe and cheap (each example forks again for isolation)
    with multiprocessing.get_context("fork").Pool(args.processes, maxtasksperchild=1) as pool:
        for found in pool.imap_unordered(_sample, jobs):
            total["examples"] += found["examples"]
            for name in ("defects", "mismatches", "pipeline", "ops"):
                total[name].update(found[name])
            for name in ("samples", "programs"):
                for key, value in found[name].items():
                    total[name].setdefault(key, value)
            print(f"{total['examples']} examples ...", flush=True)
    elapsed = time.perf_counter() - started
    n = max(total["examples"], 1)
    defects, mismatches = sum(total["defects"].values()), sum(total["mismatches"].values())
    print(f"examples {total['examples']} in {elapsed:.0f} s ({total['examples'] / elapsed:.2f}/s, "
          f"{args.processes} processes)")
    pipeline = sum(total["pipeline"].values())
    print(f"generator defects {defects} ({100 * defects / n:.3f}%); reference mismatches {mismatches} "
          f"({100 * mismatches / n:.3f}%); pipeline findings {pipeline} ({100 * pipeline / n:.3f}%)")
    for title, name in (("generator defects", "defects"), ("reference mismatches", "mismatches"),
                        ("pipeline findings (a pass of tvm.compile's pipeline to blame)", "pipeline")):
        if total[name]:
            print(f"{title}:")
        for key, count in total[name].most_common():
            print(f"  {count:5d}  {key}\n         e.g. {str(total['samples'][key])[:400]}")
    if args.save:
        directory = pathlib.Path(args.save)
        directory.mkdir(parents=True, exist_ok=True)
        for key, program in total["programs"].items():
            name = hashlib.sha256(key.encode()).hexdigest()[:12]
            (directory / f"{name}.json").write_text(json.dumps({"failure": key, "program": program}, indent=1))
        print(f"saved {len(total['programs'])} program(s) in {directory}")
    ops = total["ops"]
    print(f"ops drawn: {len(ops)}; least drawn: " + ", ".join(f"{op} {c}" for op, c in ops.most_common()[-10:]))


if __name__ == "__main__":
    main()

"""Memory of a long run: does passfuzz's resident memory stay flat?

Runs ``passfuzz`` for N minutes (its own command line, in a fresh process, into a scratch
corpus) and reads the run log it wrote (``<corpus>/.runs/<run>/log.jsonl``, a line every 5 s):

    python benchmarks/memory.py [--minutes 30] [--passes random] [--workers 1] [--seed 0] [--keep DIR]

Prints the resident memory of the passfuzz process at the start, after the first minute (TVM's
caches warm), at the end and at its peak, the growth from the first minute to the end, and the
same for its live children (workers and the children running sides) as the log recorded them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from passfuzz.campaign.run_log import read  # noqa: E402

WARM_SECONDS = 60.0


def mib(size: int) -> str:
    return f"{size / 2**20:.1f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0, help="length of the run (default 30)")
    parser.add_argument("--passes", default="random", help="--passes of the run (default random)")
    parser.add_argument("--workers", type=int, default=1, help="--workers of the run (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, metavar="DIR", help="corpus directory to keep (default: a scratch one)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch:
        corpus = args.keep or Path(scratch) / "corpus"
        command = [sys.executable, "-m", "passfuzz", "--passes", args.passes, "--max-time", str(args.minutes * 60),
                   "--workers", str(args.workers), "--seed", str(args.seed), "--corpus", str(corpus)]
        print("running:", " ".join(command), flush=True)
        with open(Path(scratch) / "stderr.txt", "w") as stderr:
            status = subprocess.run(command, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                                    stdout=subprocess.DEVNULL, stderr=stderr).returncode
        runs = sorted((corpus / ".runs").iterdir(), key=lambda p: p.stat().st_mtime)
        lines, warnings = read(runs[-1])
        for warning in warnings:
            print("warning:", warning)
        if status not in (0, 1):
            print(f"passfuzz exited {status}; its stderr ends with:")
            print((Path(scratch) / "stderr.txt").read_text()[-2000:])

    first, last = lines[0], lines[-1]
    warm = next((line for line in lines if line["elapsed"] >= WARM_SECONDS), last)
    peak = max(lines, key=lambda line: line["rss_bytes"])
    children_peak = max(lines, key=lambda line: line["children_rss_bytes"])
    print(f"{last['elapsed'] / 60:.1f} min, {last['examples']} examples, {last['shrink_runs']} shrink runs, "
          f"{last['findings']} new finding{'s' * (last['findings'] != 1)}, {len(lines)} log lines "
          f"({last['memory_source']})")
    print(f"passfuzz process RSS: start {mib(first['rss_bytes'])}, at {warm['elapsed']:.0f} s "
          f"{mib(warm['rss_bytes'])}, end {mib(last['rss_bytes'])}, peak {mib(peak['rss_bytes'])} "
          f"at {peak['elapsed']:.0f} s")
    print(f"growth from {warm['elapsed']:.0f} s to the end: {mib(last['rss_bytes'] - warm['rss_bytes'])} "
          f"({100 * (last['rss_bytes'] - warm['rss_bytes']) / warm['rss_bytes']:+.1f}%)")
    print(f"live children RSS (summed): start {mib(first['children_rss_bytes'])}, at {warm['elapsed']:.0f} s "
          f"{mib(warm['children_rss_bytes'])}, end {mib(last['children_rss_bytes'])}, "
          f"peak {mib(children_peak['children_rss_bytes'])} at "
          f"{children_peak['elapsed']:.0f} s ({children_peak['children']} processes); "
          f"median {mib(sorted(line['children_rss_bytes'] for line in lines)[len(lines) // 2])}")


if __name__ == "__main__":
    main()

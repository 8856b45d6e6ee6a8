"""How long loading seeds from a TVM checkout's tests takes: cold with one process, cold with
several (one forked child per file, ``--workers`` at a time), and warm (every file's seeds read
from the seed cache, passfuzz.campaign.seeds).

    PYTHONPATH=. python benchmarks/seed_loading.py TVM/tests/python/relax [--files N] [--workers N]

(PYTHONPATH=. so that this checkout's passfuzz is measured, not an installed one.) ``--files N``
takes every k-th file of the directory so that N are loaded (0: all of them); each cold run uses a
fresh cache directory of its own, the warm run reads the one the parallel cold run wrote. Prints
the seconds of each and what was found, which must be the same three times.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from passfuzz.campaign.seeds import find_seeds, seed_files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--files", type=int, default=30, help="how many files to load (0: all; default 30)")
    parser.add_argument("--workers", type=int, default=2, help="processes of the parallel cold run (default 2)")
    options = parser.parse_args()
    files = [file for file, _ in seed_files([options.directory]) if file.suffix == ".py"]
    if options.files:
        step = max(1, len(files) // options.files)
        files = files[::step][:options.files]
    print(f"{len(files)} of the files in {options.directory}")
    with tempfile.TemporaryDirectory() as serial_cache, tempfile.TemporaryDirectory() as parallel_cache:
        runs = [("cold, 1 process", 1, Path(serial_cache)),
                (f"cold, {options.workers} processes", options.workers, Path(parallel_cache)),
                (f"warm, {options.workers} processes", options.workers, Path(parallel_cache))]
        found_before = None
        for label, workers, cache in runs:
            started = time.perf_counter()
            found = find_seeds(files, workers=workers, cache=cache)
            seconds = time.perf_counter() - started
            print(f"{label:<22} {seconds:7.1f} s  {found.summary()}", flush=True)
            if found_before is not None and [s.name for s in found.seeds] != [s.name for s in found_before.seeds]:
                print("  differs from the run before!")
            found_before = found


if __name__ == "__main__":
    main()

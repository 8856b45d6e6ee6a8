"""Several fuzzing processes on one machine, sharing the corpus.

Each worker is a forked process running its own Fuzzer under its own seed stream and its share
of --max-examples. Workers write to the corpus themselves (writes are atomic and named by
fingerprint, so two workers saving one bug cannot corrupt it) and read the known fingerprints
from it at every round, which is how a bug one worker found stops being new for the others.
The parent only forwards events to the console and adds up the statistics; a worker that dies
without reporting is counted lost, and the run goes on with the others.

Workers are forked (fast, and TVM is imported already) unless a target is a GPU: then they are
spawned, fresh interpreters, since a GPU driver initialised in the parent (by a custom pass module
at import, say) breaks in forked children; their GPU sides go through their own fork servers.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import queue as queue_module
import time

from passfuzz.run.targets import needs_fresh_process

from .engine import FuzzConfig, Fuzzer
from .events import Event, ExampleChecked, Notify
from .stats import Stats

_SNAPSHOT_SECONDS = 0.5


def fuzz_in_workers(config: FuzzConfig, workers: int, notify: Notify) -> Stats:
    if workers == 1:
        return Fuzzer(config, notify).run()
    context = multiprocessing.get_context(worker_start_method(config.targets))
    events = context.Queue()
    seed = config.seed
    if seed is None:
        seed = Fuzzer(config).seed  # one base seed, shown in the summary
    processes: dict[int, multiprocessing.Process] = {}
    for index in range(workers):
        share = example_share(config.max_examples, workers, index)
        if share == 0:
            continue
        worker_config = dataclasses.replace(config, max_examples=share, seed=seed)
        processes[index] = context.Process(target=_worker, args=(worker_config, index, events), daemon=True)
    for process in processes.values():
        process.start()
    latest: dict[int, Stats] = {}
    finished: dict[int, Stats] = {}
    interrupted = False
    while len(finished) < len(processes):
        try:
            worker, message = events.get(timeout=1.0)
        except queue_module.Empty:
            if all(not p.is_alive() for p in processes.values()):
                break  # a worker died without reporting; keep what the others said
            continue
        except KeyboardInterrupt:
            interrupted = True  # workers got the same SIGINT and report their final stats
            continue
        if isinstance(message, Stats):  # the worker's final statistics
            finished[worker] = message
        elif isinstance(message, ExampleChecked):
            latest[worker] = message.stats
            notify(ExampleChecked(total_stats({**latest, **finished}, seed)))
        else:
            notify(message)
    for process in processes.values():
        process.join(timeout=5)
    total = total_stats({**latest, **finished}, seed, {index: f"worker {index}" for index in range(workers)})
    total.workers_lost = [f"worker {index}" for index, process in processes.items()
                          if index not in finished and process.exitcode not in (0, None)]
    if interrupted:
        total.stop_reason = "interrupted"
    return total


def worker_start_method(targets) -> str:
    """"fork" for CPU targets (TVM is imported already; safe and cheap), else "spawn" (see above)."""
    return "spawn" if needs_fresh_process(targets) else "fork"


def example_share(max_examples: int | None, workers: int, index: int) -> int | None:
    """Worker ``index``'s part of --max-examples (None: no example budget)."""
    if max_examples is None:
        return None
    return max_examples // workers + (index < max_examples % workers)


def total_stats(per_worker: dict[int, Stats], seed: int, names: dict[int, str] | None = None) -> Stats:
    """The run's statistics from each worker's latest; ``names``: say who ran how many examples."""
    total = Stats()
    for index, stats in per_worker.items():
        total.merge(stats)
        total.elapsed = max(total.elapsed, stats.elapsed)
        total.stop_reason = total.stop_reason or stats.stop_reason
        if names is not None and len(names) > 1:
            total.examples_by_worker[names[index]] = stats.examples
    total.seed = seed
    return total


def _worker(config: FuzzConfig, index: int, events) -> None:
    last = [0.0]

    def forward(event: Event) -> None:
        if isinstance(event, ExampleChecked):
            now = time.monotonic()
            if now - last[0] < _SNAPSHOT_SECONDS:
                return
            last[0] = now
            event = ExampleChecked(dataclasses.replace(event.stats))
        events.put((index, event))

    fuzzer = Fuzzer(config, forward, worker=index)
    stats = fuzzer.run()
    events.put((index, stats))  # last: its final statistics

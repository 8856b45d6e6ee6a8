"""Fuzzing on the workers of a Dask distributed cluster (``passfuzz --scheduler tcp://HOST:PORT``).

Each Dask worker process runs one Fuzzer, as one task pinned to it, under its own seed stream
(its index in the run) and its share of --max-examples. Nothing goes through a shared filesystem:

- findings: the worker's store (``ClusterStore``) puts each finding's record, script and report on
  a Dask ``Queue``; the client takes them off and writes the corpus;
- known fingerprints: the client keeps them in a Dask ``Variable``, set again after each finding it
  writes, and every worker reads it at each round (and while shrinking), so a bug one worker
  found is known to all within a second or so;
- events and statistics travel on the same Queue, pickled (the engine's events carry Programs).

Every worker must run the client's passfuzz and TVM (``installation.identity``: version, source
digest, TVM version): another source speaks another event protocol and draws other programs,
another TVM finds other bugs. ``connect`` asks every worker present (``Client.run``, one round
trip outside the task graph) before the run directory exists or any work is submitted, and
refuses the cluster in one line naming the workers that differ. A worker that joins later is
asked before its first task; one that differs then is left out with a warning, since stopping an
overnight run for a stray worker would lose more than it protects.

A worker that dies or leaves loses the example it was running and the rest of its share: the
client sees its address gone from the scheduler, cancels its task and counts it lost; a worker
that joins mid-run (a restarted one, say) takes over what lost workers left. Ctrl-C cancels the
tasks; a cancelled task (also when the client disappears) stops its Fuzzer between examples.

One Fuzzer per worker process, however many threads the worker has: the Fuzzer forks a child
for every side, and a fork while another thread of the process is inside TVM (printing a module,
say) could leave the child waiting forever on a lock that thread held. Hence ``--nthreads 1``.
"""

from __future__ import annotations

import dataclasses
import pickle
import threading
import time
import uuid
import warnings
from pathlib import Path

from passfuzz.findings import corpus

from .engine import FuzzConfig, Fuzzer, hypothesis_cache, keep_hypothesis_files_in
from .events import ClusterJoined, Event, ExampleChecked, Notify, WorkerLost, WorkerRefused
from .installation import identity, identity_in_a_thread
from .parallel import example_share, total_stats
from .stats import Stats

_SNAPSHOT_SECONDS = 0.5  # how often a worker sends its statistics
_POLL_SECONDS = 0.2  # how often the client looks at the queue
_MEMBERSHIP_SECONDS = 1.0  # how often the client asks the scheduler which workers are there
_STOP_GRACE = 30.0  # after Ctrl-C, how long the client waits for the workers' final statistics
CONNECT_TIMEOUT = 20.0


class ClusterError(Exception):
    """The cluster cannot be used (no scheduler at the address, no worker); one line for the user."""


def available() -> bool:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


class ClusterStore:
    """A worker's FindingStore: findings go to the client over the run's Queue; the known
    fingerprints come from the run's Variable, plus those this worker sent itself."""

    def __init__(self, corpus_dir: Path, index: int, events, known):
        self.corpus_dir, self.index, self.events, self.known_variable = Path(corpus_dir), index, events, known
        self.sent: set[str] = set()

    def known(self) -> set[str]:
        return set(self.known_variable.get()) | self.sent

    def save(self, folder: str, record: dict, script: str, report: str) -> Path:
        self.events.put(pickle.dumps(("save", self.index, folder, record, script, report)))
        self.sent.add(record["fingerprint"])
        return self.corpus_dir / folder / f"{record['id']}.json"  # where the client writes it


def fuzz_task(config: FuzzConfig, index: int, run: str) -> None:
    """One worker's Fuzzer (runs in a Dask worker's thread). Its final statistics go on the queue,
    after every finding it saved."""
    from distributed import Queue, Variable, get_client, get_worker
    from distributed.worker import thread_state

    # Hypothesis warns when the global random state moves during a draw; here the worker's own
    # threads move it (Dask's event loop), not the strategies.
    warnings.filterwarnings("ignore", message="Do not use the `random` module inside strategies")
    client = get_client()
    events = Queue(f"{run}-events", client=client)
    last = [0.0]

    def forward(event: Event) -> None:
        if isinstance(event, ExampleChecked):
            now = time.monotonic()
            if now - last[0] < _SNAPSHOT_SECONDS:
                return
            last[0] = now
        events.put(pickle.dumps(("event", index, event)))

    keep_hypothesis_files_in(hypothesis_cache())  # not .hypothesis/ in the worker's working directory
    store = ClusterStore(config.corpus_dir, index, events, Variable(f"{run}-known", client=client))
    fuzzer = Fuzzer(config, forward, worker=index, store=store)
    worker, key, done = get_worker(), thread_state.key, threading.Event()

    def stop_when_cancelled() -> None:
        # Dask cannot interrupt a running task: the Fuzzer stops between examples once the
        # worker marks this task cancelled (Ctrl-C on the client, or the client gone).
        while not done.wait(0.5):
            task = worker.state.tasks.get(key)
            if task is None or task.state in ("cancelled", "released", "forgotten"):
                fuzzer.interrupted = True
                return

    watcher = threading.Thread(target=stop_when_cancelled, name="passfuzz-cancel-watch", daemon=True)
    watcher.start()
    try:
        stats = fuzzer.run()
    finally:
        done.set()
    events.put(pickle.dumps(("final", index, stats)))


@dataclasses.dataclass
class _Assignment:
    address: str
    future: object
    share: int | None


SAME_EVERYWHERE = "install the same passfuzz and TVM everywhere"


class Cluster:
    """A client connected to a scheduler, and what it learnt of each worker's passfuzz: the
    workers that run the client's own (``admitted``) and why the others may not fuzz."""

    def __init__(self, client):
        self.client, self.ours = client, identity()
        self.admitted: set[str] = set()
        self.refused: dict[str, tuple[str | None, str]] = {}  # address -> (theirs, ours) as text

    def screen(self, addresses) -> dict[str, tuple[str | None, str]]:
        """Ask the workers not asked before which passfuzz and TVM they run; those that differ
        from the client's, with (their identity, the client's) as text, theirs None with the
        error when a worker could not say (no passfuzz there, or one from before this check)."""
        new = [address for address in addresses if address not in self.admitted and address not in self.refused]
        if not new:
            return {}
        answers = self.client.run(identity_in_a_thread, workers=new, on_error="return")
        refused = {}
        for address in new:
            if address not in answers:
                continue  # gone before it answered: asked again if it comes back
            difference = identity_difference(answers[address], self.ours)
            if difference is None:
                self.admitted.add(address)
            else:
                refused[address] = self.refused[address] = difference
        return refused

    def close(self) -> None:
        self.client.close()


def identity_difference(theirs, ours: dict[str, str]) -> tuple[str | None, str] | None:
    """None when a worker's answer is the client's identity; else (theirs, ours) naming only what
    differs (passfuzz, TVM or both), or (None, the error) for an answer that is no identity."""
    if isinstance(theirs, Exception):  # Dask wraps an error unpickling the function in a bare Exception
        return None, str(theirs) if type(theirs) is Exception else f"{type(theirs).__name__}: {theirs}"
    if not isinstance(theirs, dict) or set(theirs) != set(ours):
        return None, f"it answered {theirs!r:.200}"
    if theirs == ours:
        return None
    passfuzz_differs = (theirs["passfuzz"], theirs["source"]) != (ours["passfuzz"], ours["source"])
    tvm_differs = theirs["tvm"] != ours["tvm"]

    def text(installed: dict[str, str]) -> str:
        return " with ".join([f"passfuzz {installed['passfuzz']} (source {installed['source'][:12]})"] * passfuzz_differs
                             + [f"TVM {installed['tvm']}"] * tvm_differs)

    return text(theirs), text(ours)


def differing_workers(refused: dict[str, tuple[str | None, str]]) -> str:
    """One line: the workers that differ, grouped by what differs, and what to do."""
    groups: dict[tuple[str | None, str], list[str]] = {}
    for address, difference in sorted(refused.items()):
        groups.setdefault(difference, []).append(address)
    clauses = []
    for (theirs, ours), addresses in groups.items():
        many = len(addresses) > 1
        subject = f"worker{'s' * many} {', '.join(addresses)}"
        if theirs is None:
            clauses.append(f"{subject} cannot say which passfuzz {'they run' if many else 'it runs'} ({ours})")
        else:
            clauses.append(f"{subject} {'run' if many else 'runs'} {theirs}, the client {ours}")
    return "; ".join(clauses) + f"; {SAME_EVERYWHERE}"


def connect(address: str) -> Cluster:
    """A client of the scheduler at ``address`` with at least one worker, every worker present
    running the client's passfuzz and TVM; ClusterError (one line) otherwise."""
    from distributed import Client

    try:
        client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"--scheduler {address}: cannot connect: {exc}") from None
    cluster = Cluster(client)
    try:
        try:
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
        except TimeoutError:
            raise ClusterError(f"--scheduler {client.scheduler.address}: no worker joined within "
                               f"{CONNECT_TIMEOUT:g} s") from None
        refused = cluster.screen(sorted(client.nthreads()))
        if refused:
            raise ClusterError(differing_workers(refused))
    except BaseException:
        cluster.close()
        raise
    return cluster


def fuzz_on_cluster(config: FuzzConfig, cluster: Cluster, notify: Notify) -> Stats:
    """Run the fuzzing on the cluster's workers; the corpus is written here, by the client."""
    from distributed import Queue, Variable

    return _Run(cluster, config, notify, Queue, Variable).go()


class _Run:
    def __init__(self, cluster: Cluster, config: FuzzConfig, notify: Notify, Queue, Variable):
        self.cluster, self.client, self.notify = cluster, cluster.client, notify
        self.seed = config.seed if config.seed is not None else Fuzzer(config).seed
        self.config = dataclasses.replace(config, seed=self.seed)
        self.run = f"passfuzz-{uuid.uuid4().hex[:12]}"
        self.events = Queue(f"{self.run}-events", client=self.client)
        self.known = corpus.known_fingerprints(config.corpus_dir)
        self.known_variable = Variable(f"{self.run}-known", client=self.client)
        self.known_variable.set(sorted(self.known))
        self.assigned: dict[int, _Assignment] = {}
        self.latest: dict[int, Stats] = {}
        self.finished: dict[int, Stats] = {}
        self.lost: list[int] = []
        self.handed_over = 0  # examples of lost workers given to workers that joined later
        self.started = time.monotonic()

    def workers(self) -> list[str]:
        # Client.nthreads asks the scheduler each time; scheduler_info() returns a cache that the
        # client's own periodic refresh may have just emptied of workers.
        return sorted(self.client.nthreads())

    def admitted(self, addresses) -> list[str]:
        """Those of ``addresses`` running the client's passfuzz and TVM; a worker not seen before
        is asked first, and one that differs is left out, with a warning."""
        for address, difference in self.cluster.screen(addresses).items():
            self.notify(WorkerRefused(address, differing_workers({address: difference})))
        return [address for address in addresses if address in self.cluster.admitted]

    def go(self) -> Stats:
        threads = self.client.nthreads()
        addresses = self.admitted(sorted(threads))  # connect asked those present then; one may have joined since
        self.notify(ClusterJoined(self.client.scheduler.address, tuple(addresses),
                                  tuple(a for a in addresses if threads[a] > 1)))
        for index, address in enumerate(addresses):
            self.submit(index, address, example_share(self.config.max_examples, len(addresses), index))
        interrupted, stop_deadline, next_membership = False, None, 0.0
        while self.running():
            try:
                self.drain()
                if time.monotonic() >= next_membership:
                    self.follow_membership(interrupted)
                    next_membership = time.monotonic() + _MEMBERSHIP_SECONDS
                if stop_deadline is not None and time.monotonic() > stop_deadline:
                    break
                time.sleep(_POLL_SECONDS)
            except KeyboardInterrupt:
                if interrupted:
                    break  # a second Ctrl-C: do not wait for the workers
                interrupted, stop_deadline = True, time.monotonic() + _STOP_GRACE
                self.client.cancel([a.future for a in self.assigned.values()], force=True)
        self.drain()
        self.client.cancel([a.future for a in self.assigned.values()], force=True)
        self.known_variable.delete()  # the scheduler keeps both until told (a worker still
        self.events.close()  # stopping then finds them gone, which ends its task)
        names = {index: a.address for index, a in self.assigned.items()}
        total = total_stats({**self.latest, **self.finished}, self.seed, names)
        total.workers_lost = [names[index] for index in self.lost]
        if interrupted:
            total.stop_reason = "interrupted"
        return total

    def submit(self, index: int, address: str, share: int | None) -> None:
        if share == 0:
            return
        config = dataclasses.replace(self.config, max_examples=share)
        if config.max_time is not None:  # a worker that joins late gets what is left of the time
            config.max_time = max(0.0, config.max_time - (time.monotonic() - self.started))
        future = self.client.submit(fuzz_task, config, index, self.run, key=f"{self.run}-worker-{index}",
                                    workers=[address], allow_other_workers=False, pure=False)
        self.assigned[index] = _Assignment(address, future, share)

    def running(self) -> bool:
        return any(index not in self.finished and index not in self.lost for index in self.assigned)

    def drain(self) -> None:
        for item in self.events.get(batch=True):
            message = pickle.loads(item)
            if message[0] == "save":
                _, index, folder, record, script, report = message
                corpus.save(self.config.corpus_dir / folder, record, script, report)
                known = corpus.known_fingerprints(self.config.corpus_dir)  # a shrunk record brings its trigger
                if known != self.known:
                    self.known = known
                    self.known_variable.set(sorted(self.known))
            elif message[0] == "final":
                self.finished[message[1]] = message[2]
                if self.config.exitfirst and message[2].findings:  # -x: the run stops, not one worker
                    self.client.cancel([a.future for a in self.assigned.values()], force=True)
            else:
                _, index, event = message
                if isinstance(event, ExampleChecked):
                    self.latest[index] = event.stats
                    self.notify(ExampleChecked(total_stats({**self.latest, **self.finished}, self.seed)))
                else:
                    self.notify(event)
        for index, assignment in self.assigned.items():
            if index in self.finished or index in self.lost or assignment.future.status != "error":
                continue
            self.lose(index, f"its task failed: {assignment.future.exception()!r}"[:300])

    def follow_membership(self, interrupted: bool) -> None:
        """Count a worker gone from the scheduler as lost; give a worker that joined mid-run the
        rest of the time, or what lost workers left of their example shares."""
        connected = self.client.status == "running"
        present = set(self.workers()) if connected else set()
        for index, assignment in list(self.assigned.items()):
            if index not in self.finished and index not in self.lost and assignment.address not in present:
                self.lose(index, "it left the cluster" if connected else "the scheduler is out of reach")
        if interrupted:
            return
        newcomers = sorted(present - {a.address for a in self.assigned.values()} - set(self.cluster.refused))
        for address in self.admitted(newcomers):
            share = self.spare_share()
            if share == 0:
                break
            self.submit(max(self.assigned) + 1, address, share)
            self.handed_over += share or 0

    def spare_share(self) -> int | None:
        """What a worker that joins mid-run gets: None (the rest of the time, if any), else the
        examples lost workers did not run and no other joiner took over."""
        if self.config.max_examples is None:
            left = None if self.config.max_time is None else self.config.max_time - (time.monotonic() - self.started)
            return 0 if left is not None and left <= 0 else None
        unrun = sum(self.assigned[i].share - self._examples(i) for i in self.lost)
        return max(0, unrun - self.handed_over)

    def _examples(self, index: int) -> int:
        stats = self.finished.get(index) or self.latest.get(index)
        return stats.examples if stats is not None else 0

    def lose(self, index: int, why: str) -> None:
        self.lost.append(index)
        self.assigned[index].future.cancel()
        self.notify(WorkerLost(self.assigned[index].address, why))

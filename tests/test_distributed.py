"""passfuzz --scheduler: a real Dask scheduler and two workers on 127.0.0.1, started by the test."""

import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

from passfuzz import corpus

from .conftest import ROOT

PLANTED = "tests.planted_passes:"
RUN_TIMEOUT = 150  # seconds, per passfuzz run


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def cluster(tmp_path):
    """A scheduler and two single-threaded workers (no nanny, so a killed worker stays dead),
    all importing passfuzz from this checkout and working in a directory of their own."""
    distributed = pytest.importorskip("distributed")
    address = f"tcp://127.0.0.1:{free_port()}"
    workdir = tmp_path / "cluster"
    workdir.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    def start(name, command):  # its log kept in workdir, for a failure's post-mortem
        with open(workdir / f"{name}.log", "w") as log:
            return subprocess.Popen(command, cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT)

    processes = [start("scheduler", ["dask", "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1],
                                     "--no-dashboard"])]
    try:
        for index in range(2):
            processes.append(start(f"worker-{index}", ["dask", "worker", address, "--nthreads", "1", "--no-nanny",
                                                       "--host", "127.0.0.1", "--no-dashboard"]))
        with distributed.Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
        yield address, processes[1:], workdir
    finally:
        for process in reversed(processes):
            process.kill()
            process.wait(timeout=30)


def passfuzz_command(*args):
    return [sys.executable, "-m", "passfuzz", *args]


def client_env():
    return dict(os.environ, PYTHONPATH=str(ROOT))


def examples_by_worker(stderr: str) -> dict[str, int]:
    [line] = re.findall(r"^examples by worker: (.*)$", stderr, re.MULTILINE)
    return {name: int(count) for name, count in (item.rsplit(" ", 1) for item in line.split(", "))}


def test_cluster_run_saves_the_finding_on_the_client_and_counts_both_workers(cluster, tmp_path):
    address, workers, workdir = cluster
    client_dir = tmp_path / "client"
    client_dir.mkdir()
    # A relative corpus: a worker writing it itself would write under its own directory.
    result = subprocess.run(passfuzz_command("--scheduler", address, "--passes", PLANTED + "permute_as_reshape",
                                             "--max-examples", "8", "--seed", "1", "--shrink-time", "3",
                                             "--reduce-time", "10", "--corpus", "found"),
                            cwd=client_dir, env=client_env(), capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert result.returncode == 1, result.stderr
    [path] = sorted((client_dir / "found").glob("*.json"))
    entry = corpus.load(path)
    assert entry.record["kind"] == "wrong-result"
    assert (client_dir / "found" / f"{entry.id}.py").exists() and (client_dir / "found" / f"{entry.id}.md").exists()
    assert not (workdir / "found").exists()
    assert "8 examples in" in result.stderr and "worker lost" not in result.stderr, result.stderr
    counts = examples_by_worker(result.stderr)
    assert len(counts) == 2 and all(count > 0 for count in counts.values()) and sum(counts.values()) == 8, counts


def test_a_killed_worker_is_counted_lost_and_the_run_finishes_with_the_other(cluster, tmp_path):
    address, workers, _ = cluster
    process = subprocess.Popen(passfuzz_command("--scheduler", address, "--passes", PLANTED + "permute_as_reshape_fixed",
                                                "--max-examples", "16", "--seed", "1", "--corpus", str(tmp_path / "c")),
                               cwd=ROOT, env=client_env(), stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + RUN_TIMEOUT
        for line in process.stderr:
            if " examples " in line or time.monotonic() > deadline:  # the first progress line: fuzzing began
                break
        time.sleep(3)
        workers[1].send_signal(signal.SIGKILL)
        rest = process.stderr.read()
        assert process.wait(timeout=RUN_TIMEOUT) == 0, rest
    finally:
        process.kill()
    assert "1 worker lost" in rest and "stop: max examples reached" in rest, rest
    assert re.search(r"^worker tcp://127\.0\.0\.1:\d+ lost \(it left the cluster\)", rest, re.MULTILINE), rest
    counts = examples_by_worker(rest)
    assert len(counts) == 2 and 8 in counts.values(), counts  # the survivor ran its whole share
    examples = int(re.search(r"^passfuzz: (\d+) examples in", rest, re.MULTILINE).group(1))
    assert examples == sum(counts.values()) < 16


def test_scheduler_without_dask_installed_exits_2_in_one_line(tmp_path):
    hide_dask = "import sys; sys.modules['distributed'] = None; from passfuzz.cli import main; sys.exit(main())"
    result = subprocess.run([sys.executable, "-c", hide_dask, "--scheduler", "tcp://127.0.0.1:1", "--passes",
                             "FoldConstant", "--corpus", str(tmp_path)], cwd=ROOT, env=client_env(),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and 'pip install "passfuzz[distributed]"' in result.stderr, result.stderr

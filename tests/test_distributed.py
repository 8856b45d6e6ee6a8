"""passfuzz --scheduler: a real Dask scheduler and two workers on 127.0.0.1, started by the test."""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from passfuzz.campaign.installation import PACKAGES, identity, source_digest
from passfuzz.findings import corpus

from .conftest import ROOT

PLANTED = "tests.planted_passes:"
RUN_TIMEOUT = 150  # seconds, per passfuzz run


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Scheduler:
    """A Dask scheduler on 127.0.0.1 and the workers a test starts on it (no nanny, so a killed
    worker stays dead), each process logging to the work directory for a failure's post-mortem."""

    def __init__(self, workdir):
        self.address, self.workdir, self.processes = f"tcp://127.0.0.1:{free_port()}", workdir, []
        self.start("scheduler", ["dask", "scheduler", "--host", "127.0.0.1", "--port",
                                 self.address.rsplit(":", 1)[1], "--no-dashboard"], ROOT)

    def start(self, name, command, pythonpath):
        env = dict(os.environ, PYTHONPATH=str(pythonpath))
        with open(self.workdir / f"{name}.log", "w") as log:
            self.processes.append(subprocess.Popen(command, cwd=self.workdir, env=env, stdout=log,
                                                   stderr=subprocess.STDOUT))
        return self.processes[-1]

    def worker(self, name, pythonpath=ROOT, *options):
        """A single-threaded worker importing passfuzz from ``pythonpath`` alone: where passfuzz is
        installed editable, its import finder would supply the modules another copy lacks, so such
        a worker first drops that finder (a preload runs before the worker joins)."""
        if pythonpath != ROOT:
            options = ("--preload", str(ROOT / "tests" / "pythonpath_alone.py"), *options)
        return self.start(name, ["dask", "worker", self.address, "--nthreads", "1", "--no-nanny", "--host",
                                 "127.0.0.1", "--no-dashboard", "--name", name, *options], pythonpath)

    def addresses(self, count: int) -> dict[str, str]:
        """Worker name -> address, once ``count`` workers have joined."""
        import distributed

        with distributed.Client(self.address, timeout=60, set_as_default=False) as client:
            client.wait_for_workers(count, timeout=60)
            return {info["name"]: address for address, info in client.scheduler_info(n_workers=-1)["workers"].items()}

    def stop(self):
        for process in reversed(self.processes):
            process.kill()
            process.wait(timeout=30)


@pytest.fixture
def scheduler(tmp_path):
    pytest.importorskip("distributed")
    workdir = tmp_path / "cluster"
    workdir.mkdir()
    started = Scheduler(workdir)
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture
def cluster(scheduler):
    """Two workers, all importing passfuzz from this checkout and working in a directory of their own."""
    workers = [scheduler.worker(f"worker-{index}") for index in range(2)]
    scheduler.addresses(2)
    return scheduler.address, workers, scheduler.workdir


@pytest.fixture
def other_source(tmp_path):
    """A copy of passfuzz and strategies with one comment added: the same version, another source."""
    root = tmp_path / "other"
    for package in PACKAGES:
        shutil.copytree(ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    with open(root / "passfuzz" / "engine.py", "a") as engine:
        engine.write("# edited here\n")
    return root


def passfuzz_command(*args):
    return [sys.executable, "-m", "passfuzz", *args]


def client_env():
    return dict(os.environ, PYTHONPATH=str(ROOT))


def examples_by_worker(summary: str) -> dict[str, int]:
    [line] = re.findall(r"^examples by worker: (.*)$", summary, re.MULTILINE)
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
    assert "8 examples in" in result.stdout and "worker lost" not in result.stdout, result.stderr
    assert ", 2 workers, seed 1)" in result.stderr.splitlines()[0], result.stderr  # the cluster's, not --workers'
    counts = examples_by_worker(result.stdout)
    assert len(counts) == 2 and all(count > 0 for count in counts.values()) and sum(counts.values()) == 8, counts


def test_a_killed_worker_is_counted_lost_and_the_run_finishes_with_the_other(cluster, tmp_path):
    address, workers, _ = cluster
    process = subprocess.Popen(passfuzz_command("--scheduler", address, "--passes", PLANTED + "permute_as_reshape_fixed",
                                                "--max-examples", "16", "--seed", "1", "--corpus", str(tmp_path / "c")),
                               cwd=ROOT, env=client_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + RUN_TIMEOUT
        for line in process.stdout:  # progress (stderr) and results (stdout) in one stream
            if " examples " in line or time.monotonic() > deadline:  # the first progress line: fuzzing began
                break
        time.sleep(3)
        workers[1].send_signal(signal.SIGKILL)
        rest = process.stdout.read()
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


def test_workers_running_another_passfuzz_or_tvm_stop_the_run_in_one_line_before_any_work(scheduler, other_source,
                                                                                           tmp_path):
    older = tmp_path / "older"  # a passfuzz from before workers were asked: it cannot answer
    shutil.copytree(other_source, older)
    (older / "passfuzz" / "campaign" / "installation.py").unlink()
    old_tvm = scheduler.workdir / "old_tvm.py"  # a preload runs in the worker before it joins
    old_tvm.write_text("import tvm\n\ntvm.__version__ = '0.26.0'\n")
    scheduler.worker("same")
    scheduler.worker("edited", other_source)
    scheduler.worker("old-tvm", ROOT, "--preload", str(old_tvm))
    scheduler.worker("older", older)
    addresses = scheduler.addresses(4)
    client_dir = tmp_path / "client"
    client_dir.mkdir()
    result = subprocess.run(passfuzz_command("--scheduler", scheduler.address, "--passes", "FoldConstant",
                                             "--max-examples", "4", "--corpus", "found"),
                            cwd=client_dir, env=client_env(), capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert result.returncode == 2, result.stderr
    [line] = result.stderr.splitlines()
    ours, theirs = identity(), source_digest([other_source / package for package in PACKAGES])
    assert line.startswith("passfuzz: error: worker") and line.endswith("; install the same passfuzz and TVM everywhere")
    assert (f"worker {addresses['edited']} runs passfuzz {ours['passfuzz']} (source {theirs[:12]}), "
            f"the client passfuzz {ours['passfuzz']} (source {ours['source'][:12]})") in line
    assert f"worker {addresses['old-tvm']} runs TVM 0.26.0, the client TVM {ours['tvm']}" in line
    assert f"worker {addresses['older']} cannot say which passfuzz it runs (" in line
    assert "No module named 'passfuzz.campaign.installation'" in line
    assert addresses["same"] not in line
    assert not (client_dir / "found" / ".runs").exists()  # refused before the run directory is made
    assert not list((client_dir / "found").glob("*"))


def test_a_worker_joining_mid_run_is_asked_first_and_one_running_another_source_gets_no_work(scheduler, other_source,
                                                                                             tmp_path):
    scheduler.worker("first")
    scheduler.addresses(1)
    process = subprocess.Popen(passfuzz_command("--scheduler", scheduler.address, "--passes", "FoldConstant",
                                                "--max-time", "45", "--seed", "1", "--corpus", str(tmp_path / "c")),
                               cwd=ROOT, env=client_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + RUN_TIMEOUT
        for line in process.stdout:  # progress (stderr) and results (stdout) in one stream
            if " examples " in line or time.monotonic() > deadline:  # the first progress line: fuzzing began
                break
        scheduler.worker("edited", other_source)
        scheduler.worker("late")  # the control: the client's own passfuzz, so it takes over the rest of the time
        addresses = scheduler.addresses(3)
        rest = process.stdout.read()
        assert process.wait(timeout=RUN_TIMEOUT) == 0, rest
    finally:
        process.kill()
    assert f"a worker joined and gets no work: worker {addresses['edited']} runs passfuzz" in rest, rest
    assert set(examples_by_worker(rest)) == {addresses["first"], addresses["late"]}, rest


def test_the_source_digest_follows_the_sources_alone(other_source, tmp_path):
    copy = tmp_path / "copy"
    for package in PACKAGES:
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__"))
    digest = source_digest([copy / package for package in PACKAGES])
    assert digest == identity()["source"]  # this checkout's, whose compiled caches the copy left out
    (copy / "passfuzz" / "known" / "notes.json").write_text("{}")
    assert source_digest([copy / package for package in PACKAGES]) == digest
    assert source_digest([other_source / package for package in PACKAGES]) != digest  # one comment more
    (copy / "strategies" / "_programs.py").rename(copy / "strategies" / "_renamed.py")
    assert source_digest([copy / package for package in PACKAGES]) != digest


def test_the_refusal_names_what_differs_and_groups_the_workers_alike():
    from passfuzz.campaign.cluster import differing_workers, identity_difference

    ours = {"passfuzz": "0.3.0", "source": "d4e5f6" * 8, "tvm": "0.27.0"}
    assert identity_difference(dict(ours), ours) is None
    other_tvm, other_both = dict(ours, tvm="0.26.0"), dict(ours, passfuzz="0.2.0", tvm="0.26.0")
    assert identity_difference(other_tvm, ours) == ("TVM 0.26.0", "TVM 0.27.0")
    assert identity_difference(other_both, ours) == (f"passfuzz 0.2.0 (source {'d4e5f6' * 2}) with TVM 0.26.0",
                                                     f"passfuzz 0.3.0 (source {'d4e5f6' * 2}) with TVM 0.27.0")
    assert identity_difference(ModuleNotFoundError("No module named 'passfuzz'"), ours) == \
        (None, "ModuleNotFoundError: No module named 'passfuzz'")
    refused = {"tcp://b:2": identity_difference(other_tvm, ours), "tcp://a:1": identity_difference(other_tvm, ours),
               "tcp://c:3": identity_difference(Exception("ModuleNotFoundError('passfuzz')"), ours)}
    assert differing_workers(refused) == (
        "workers tcp://a:1, tcp://b:2 run TVM 0.26.0, the client TVM 0.27.0; worker tcp://c:3 cannot say which "
        "passfuzz it runs (ModuleNotFoundError('passfuzz')); install the same passfuzz and TVM everywhere")


def test_an_unreachable_scheduler_exits_2_in_one_line_and_leaves_no_run_directory(tmp_path):
    pytest.importorskip("distributed")
    result = subprocess.run(passfuzz_command("--scheduler", f"tcp://127.0.0.1:{free_port()}", "--passes", "FoldConstant",
                                             "--corpus", str(tmp_path / "found")),
                            cwd=ROOT, env=client_env(), capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "cannot connect" in result.stderr, result.stderr
    assert not (tmp_path / "found" / ".runs").exists()

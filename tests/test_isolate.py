"""The forked runner: results, errors, signals and hangs come back as values, never kill us."""

import ctypes
import os
import signal
import time

from passfuzz.run import isolate


def test_result_comes_back():
    result = isolate.run_forked(lambda: {"x": [1, 2, 3]}, timeout=30)
    assert result.status == "ok" and result.value == {"x": [1, 2, 3]}


def test_exception_becomes_error_with_message():
    def fail():
        isolate.mark("compile")
        raise ValueError("bad shape")

    result = isolate.run_forked(fail, timeout=30)
    assert result.status == "error" and result.error == "ValueError: bad shape" and result.last_mark == "compile"


def test_segfault_becomes_crash_with_last_mark():
    def crash():
        isolate.mark("run:llvm")
        ctypes.string_at(0)

    result = isolate.run_forked(crash, timeout=30)
    assert (result.status, result.error, result.last_mark) == ("crash", "SIGSEGV", "run:llvm")


def test_notes_reach_the_parent_whatever_the_child_does_next():
    def told_then(end):
        def child():
            isolate.note("adapter", ("lazy", 2))
            isolate.mark("run")
            return end()
        return child

    crashed = isolate.run_forked(told_then(lambda: ctypes.string_at(0)), timeout=30)
    failed = isolate.run_forked(told_then(lambda: 1 / 0), timeout=30)
    done = isolate.run_forked(told_then(lambda: "value"), timeout=30)
    assert (crashed.status, failed.status, done.status, done.value) == ("crash", "error", "ok", "value")
    assert crashed.notes == failed.notes == done.notes == {"adapter": ("lazy", 2)}
    assert crashed.last_mark == "run"


def test_sigfpe_becomes_crash():
    result = isolate.run_forked(lambda: os.kill(os.getpid(), signal.SIGFPE), timeout=30)
    assert (result.status, result.error) == ("crash", "SIGFPE")


def test_hang_is_killed_at_the_time_limit():
    started = time.monotonic()
    result = isolate.run_forked(lambda: time.sleep(60), timeout=1)
    assert result.status == "hang" and time.monotonic() - started < 30


def test_large_results_do_not_deadlock():
    result = isolate.run_forked(lambda: b"x" * (5 << 20), timeout=60)
    assert result.status == "ok" and len(result.value) == 5 << 20


def test_child_stderr_is_captured_not_printed(capfd):
    def noisy():
        os.write(2, b"warning from C++\n")
        return 1

    result = isolate.run_forked(noisy, timeout=30)
    assert "warning from C++" in result.stderr_tail
    assert "warning from C++" not in capfd.readouterr().err


# The fork server (run_fresh): the path GPU sides take, forced here on the CPU.

def _marked_crash():
    isolate.mark("run:cuda")
    ctypes.string_at(0)


def _noisy_failure():
    os.write(2, b"warning from C++\n")
    isolate.mark("compile")
    raise ValueError("bad shape")


def test_fresh_child_returns_results_and_is_not_this_process():
    result = isolate.run_fresh(os.getpid, (), timeout=120)
    assert result.status == "ok" and result.value != os.getpid()
    assert isolate.run_fresh(sorted, ([3, 1, 2],), timeout=60).value == [1, 2, 3]


def test_fresh_child_error_keeps_message_mark_and_stderr(capfd):
    result = isolate.run_fresh(_noisy_failure, (), timeout=120)
    assert (result.status, result.error, result.last_mark) == ("error", "ValueError: bad shape", "compile")
    assert "warning from C++" in result.stderr_tail and "warning from C++" not in capfd.readouterr().err


def test_fresh_child_crash_and_hang_then_the_next_call_still_works():
    crash = isolate.run_fresh(_marked_crash, (), timeout=120)
    assert (crash.status, crash.error, crash.last_mark) == ("crash", "SIGSEGV", "run:cuda")
    hang = isolate.run_fresh(time.sleep, (60,), timeout=1)
    assert hang.status == "hang"
    assert isolate.run_fresh(sum, ([1, 2],), timeout=60).value == 3


def test_fork_server_is_restarted_after_it_died():
    assert isolate.run_fresh(sum, ([1],), timeout=120).status == "ok"
    server = isolate._fork_server()
    server.process.kill()  # the server started by this test process
    server.process.wait()
    result = isolate.run_fresh(sum, ([1, 1],), timeout=120)
    assert result.status == "ok" and result.value == 2
    assert isolate._fork_server() is not server


def test_a_forked_process_starts_its_own_fork_server():
    isolate.run_fresh(sum, ([1],), timeout=120)
    parent_server = isolate._fork_server().process.pid
    child = isolate.run_forked(lambda: (isolate.run_fresh(sum, ([2],), timeout=120).value,
                                        isolate._fork_server().process.pid), timeout=120)
    assert child.status == "ok" and child.value[0] == 2 and child.value[1] != parent_server


def test_device_probe_runs_in_a_fresh_process():
    from passfuzz.run.targets import device_present

    assert isolate.run_fresh(device_present, ("cpu",), timeout=120).value is True
    assert isolate.run_fresh(device_present, ("cuda",), timeout=120).value is False  # no driver or no device


def test_the_result_is_taken_without_waiting_for_the_child_to_exit():
    read_fd, write_fd = os.pipe()  # a child that has sent its result and not yet exited
    try:
        isolate._send(write_fd, ("mark", "run"))
        isolate._send(write_fd, ("ok", 42))
        started = time.monotonic()
        messages, hung = isolate._receive(read_fd, timeout=5)
        assert (messages, hung) == ([("mark", "run"), ("ok", 42)], False)
        assert time.monotonic() - started < 1
    finally:
        os.close(write_fd)


def test_children_left_exiting_are_reaped_by_later_calls():
    pids = [isolate.run_forked(os.getpid, 10).value for _ in range(5)]
    time.sleep(0.5)  # time enough for each of them to end
    assert isolate.run_forked(os.getpid, 10).value not in pids
    assert [pid for pid in pids if os.path.exists(f"/proc/{pid}")] == []  # no zombie left


def test_children_run_side_by_side_each_within_its_own_time_limit_and_end_as_run_forked_ends():
    def sleep_then(value):
        def child():
            time.sleep(0.5)
            return value
        return child

    def hang():
        isolate.note("found", 1)
        time.sleep(60)

    def crash():
        ctypes.string_at(0)

    started = time.monotonic()
    ended = list(isolate.run_forked_each([sleep_then("a"), hang, crash, sleep_then("b"), sleep_then("c")], timeout=3,
                                         parallel=3))
    results = dict(ended)
    assert sorted(results) == [0, 1, 2, 3, 4]
    assert [results[i].value for i in (0, 3, 4)] == ["a", "b", "c"]
    assert (results[1].status, results[1].notes) == ("hang", {"found": 1})
    assert (results[2].status, results[2].error) == ("crash", "SIGSEGV")
    assert [index for index, _ in ended][-1] == 1  # the hang ends last, the others did not wait for it
    assert time.monotonic() - started < 6  # three sleeps side by side beside the hang, not after it


def test_a_caller_that_stops_early_leaves_no_child_running(tmp_path):
    def child():
        (tmp_path / f"{os.getpid()}.pid").write_text("")
        time.sleep(60)

    runner = isolate.run_forked_each([lambda: "first", child, child], timeout=60, parallel=3)
    assert next(runner)[1].value == "first"
    while len(list(tmp_path.glob("*.pid"))) < 2:  # both others are running
        time.sleep(0.05)
    runner.close()
    for pid in (int(path.stem) for path in tmp_path.glob("*.pid")):
        try:
            os.kill(pid, 0)
            left = True
        except ProcessLookupError:  # killed and reaped
            left = False
        assert not left

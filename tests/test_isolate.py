"""The forked runner: results, errors, signals and hangs come back as values, never kill us."""

import ctypes
import os
import signal
import time

from passfuzz import isolate


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

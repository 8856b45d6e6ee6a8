"""Run a function in a forked child, so that a segfault, SIGFPE or hang cannot stop the fuzzer.

The parent has already imported TVM; forking after that is safe and costs about 3 ms. The child
streams messages back through a pipe: progress marks (``mark("compile")``) and finally its
result or its error. When the child dies by a signal or runs out of time, the last mark says
where it was.
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import select
import signal
import struct
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

_HEADER = struct.Struct("!I")
_channel: int | None = None  # the pipe's write end, inside a child only


@dataclass
class ChildResult:
    status: str  # "ok" | "error" | "crash" | "hang"
    value: Any = None  # the function's return value, when ok
    error: str = ""  # "TypeError: ..." when error, "SIGSEGV" when crash
    marks: list[str] = field(default_factory=list)
    stderr_tail: str = ""

    @property
    def last_mark(self) -> str:
        return self.marks[-1] if self.marks else ""


def mark(stage: str) -> None:
    """Record progress from inside a child (a no-op outside one)."""
    if _channel is not None:
        _send(_channel, ("mark", stage))


def _send(fd: int, message: tuple) -> None:
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    data = _HEADER.pack(len(payload)) + payload
    while data:
        data = data[os.write(fd, data):]


def _child(fn: Callable[[], Any], write_fd: int, stderr_fd: int) -> None:
    global _channel
    _channel = write_fd
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and kills us
    faulthandler.disable()  # a crash is reported by the parent, not dumped on the user's terminal
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(stderr_fd, 2)  # TVM's C++ warnings and fatal messages, kept for the report
    try:
        value = fn()
        message = ("ok", value)
    except BaseException as exc:  # noqa: BLE001 - everything is reported to the parent
        message = ("error", f"{type(exc).__name__}: {exc}", traceback.format_exc(limit=4))
    try:
        _send(write_fd, message)
    finally:
        os._exit(0)


def run_forked(fn: Callable[[], Any], timeout: float) -> ChildResult:
    """Call ``fn()`` in a forked child and wait at most ``timeout`` seconds."""
    read_fd, write_fd = os.pipe()
    with tempfile.TemporaryFile() as stderr_file:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            os.close(read_fd)
            _child(fn, write_fd, stderr_file.fileno())
        os.close(write_fd)
        buffer, messages, hung = b"", [], False
        deadline = time.monotonic() + timeout
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    hung = True
                    break
                ready, _, _ = select.select([read_fd], [], [], remaining)
                if not ready:
                    continue
                chunk = os.read(read_fd, 1 << 16)
                if not chunk:
                    break
                buffer += chunk
                while len(buffer) >= _HEADER.size:
                    (size,) = _HEADER.unpack_from(buffer)
                    if len(buffer) < _HEADER.size + size:
                        break
                    messages.append(pickle.loads(buffer[_HEADER.size:_HEADER.size + size]))
                    buffer = buffer[_HEADER.size + size:]
        finally:
            os.close(read_fd)
            if hung or messages[-1:] == [] or messages[-1][0] == "mark":
                _kill(pid)
            _, status = os.waitpid(pid, 0)
        stderr_file.seek(0)
        tail = stderr_file.read()[-2000:].decode("utf-8", "replace")
    marks = [m[1] for m in messages if m[0] == "mark"]
    final = messages[-1] if messages and messages[-1][0] != "mark" else None
    if hung:
        return ChildResult("hang", error=f"no result after {timeout:g} s", marks=marks, stderr_tail=tail)
    if final is None:
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        name = signal.Signals(-code).name if code < 0 else f"exit status {code}"
        return ChildResult("crash", error=name, marks=marks, stderr_tail=tail)
    if final[0] == "ok":
        return ChildResult("ok", value=final[1], marks=marks, stderr_tail=tail)
    return ChildResult("error", error=final[1], marks=marks, stderr_tail=tail + final[2])


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass

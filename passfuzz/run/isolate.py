"""Run a function in an isolated child, so that a segfault, SIGFPE or hang cannot stop the fuzzer.

Two ways to get the child, chosen per side by its targets (``targets.needs_fresh_process``):

- ``run_forked``: fork this process. It has already imported TVM, so a child costs about 3 ms.
  Safe for CPU targets, and measured so.
- ``run_fresh``: for GPU targets. A GPU driver (CUDA above all) breaks in a child forked after it
  was initialised, and a process that has run one GPU side has initialised it. So a *fork server*
  does the forking: a fresh Python process, started once per fuzzing process, that imports TVM and
  passfuzz itself and never touches a device; each call is a child forked from it, which sets its
  device up from scratch. A crash or hang kills only that child; a server that died is restarted
  at the next call. The function and its arguments travel pickled, so they must be importable.

Either way the child streams messages back through a pipe: progress marks (``mark("compile")``)
and finally its result or its error. When the child dies by a signal or runs out of time, the
last mark says where it was.
"""

from __future__ import annotations

import faulthandler
import gc
import importlib
import os
import pickle
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

_HEADER = struct.Struct("!I")
_channel: int | None = None  # the pipe's write end, inside a child only


@dataclass
class ChildResult:
    status: str  # "ok" | "error" | "crash" | "hang"
    value: Any = None  # the function's return value, when ok
    error: str = ""  # "TypeError: ..." when error, "SIGSEGV" when crash
    marks: list[str] = field(default_factory=list)
    stderr_tail: str = ""
    notes: dict[str, Any] = field(default_factory=dict)  # what the child told before it ended (note())

    @property
    def last_mark(self) -> str:
        return self.marks[-1] if self.marks else ""


def mark(stage: str) -> None:
    """Record progress from inside a child (a no-op outside one)."""
    if _channel is not None:
        _send(_channel, ("mark", stage))


def note(key: str, value: Any) -> None:
    """Tell the parent a fact it needs even if the child then fails (a no-op outside one)."""
    if _channel is not None:
        _send(_channel, ("note", key, value))


def extend_deadline(seconds: float) -> None:
    """Give the child ``seconds`` more before it counts as hung: the time it spent on work of
    its own limit (checks run in a side's child, passfuzz.run.execute's observer), so the side
    keeps the whole limit it would have had alone (a no-op outside a child)."""
    if _channel is not None:
        _send(_channel, ("extend", seconds))


_PROGRESS = ("mark", "note", "extend")  # messages before the child's result


def _send(fd: int, message: tuple) -> None:
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    data = _HEADER.pack(len(payload)) + payload
    while data:
        data = data[os.write(fd, data):]


def _child(fn: Callable[[], Any], write_fd: int, stderr_fd: int) -> None:
    global _channel
    _channel = write_fd
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and kills us
    # What the child inherited is never garbage here; collecting it would only touch its pages,
    # copying them (copy-on-write). Freezing them is O(1) and leaves the child's own objects collected.
    gc.freeze()
    faulthandler.disable()  # a crash is reported by the parent, not dumped on the user's terminal
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(stderr_fd, 2)  # TVM's C++ warnings and fatal messages, kept for the report
    # Another thread of the parent (a Dask worker's event loop, logging) may have held the lock
    # of sys.stdout or sys.stderr at the fork; fresh file objects have no lock held.
    sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115 - lives as long as the child
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
    try:
        value = fn()
        message = ("ok", value)
    except BaseException as exc:  # noqa: BLE001 - everything is reported to the parent
        message = ("error", f"{type(exc).__name__}: {exc}", traceback.format_exc(limit=-6))
    try:
        _send(write_fd, message)
    finally:
        os._exit(0)


_exiting: list[int] = []  # forked children that sent their result and are still exiting


def run_forked(fn: Callable[[], Any], timeout: float) -> ChildResult:
    """Call ``fn()`` in a child forked from this process and wait at most ``timeout`` seconds."""
    _reap_exited()
    read_fd, write_fd = os.pipe()
    with tempfile.TemporaryFile() as stderr_file:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            os.close(read_fd)
            _child(fn, write_fd, stderr_file.fileno())
        os.close(write_fd)
        messages, hung = [], True
        try:
            messages, hung = _receive(read_fd, timeout)
        finally:
            if _unfinished(messages, hung):
                _kill(pid)
                _, status = os.waitpid(pid, 0)
            else:
                # Its result is in; only its exit is left, whose status says nothing more. Tearing
                # down a forked copy of a large process takes tens of milliseconds: it is reaped
                # at a later call instead of waited for.
                status = 0
                _exiting.append(pid)
        return _result(messages, hung, status, stderr_file, timeout)


def _reap_exited() -> None:
    """Reap the children left exiting by earlier calls that have ended by now."""
    for pid in list(_exiting):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # not ours: this process was forked after that call
            done = pid
        if done:
            _exiting.remove(pid)


def run_fresh(fn: Callable[..., Any], args: tuple, timeout: float) -> ChildResult:
    """Call ``fn(*args)`` in a child of the fork server (see the module doc); same results as
    ``run_forked``. ``fn`` and ``args`` must pickle."""
    # The server imports the function's module before forking (see _serve): a pickle naming it
    # beside the call, which only the child unpickles.
    payload = pickle.dumps((fn.__module__, pickle.dumps((fn, args), protocol=pickle.HIGHEST_PROTOCOL)))
    read_fd, write_fd = os.pipe()
    with tempfile.TemporaryFile() as stderr_file:
        server = _fork_server()
        try:
            pid = server.start(payload, write_fd, stderr_file.fileno())
        except (OSError, EOFError) as exc:  # the server died between calls
            server.stop()
            os.close(read_fd)
            return ChildResult("crash", error=f"the fork server died: {exc}")
        finally:
            os.close(write_fd)
        messages, hung = [], True
        try:
            messages, hung = _receive(read_fd, timeout)
        except BaseException:  # Ctrl-C: the server's answer for this child will never be read
            _kill(pid)
            server.stop()
            raise
        if _unfinished(messages, hung):
            _kill(pid)
        try:
            status = server.wait()
        except (OSError, EOFError) as exc:
            server.stop()
            return ChildResult("crash", error=f"the fork server died: {exc}", marks=[m[1] for m in messages])
        return _result(messages, hung, status, stderr_file, timeout)


def _receive(read_fd: int, timeout: float) -> tuple[list[tuple], bool]:
    """The child's messages until it closes the pipe, and whether it ran out of time first."""
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
            received = len(messages)
            buffer = _take_messages(buffer + chunk, messages)
            deadline += sum(message[1] for message in messages[received:] if message[0] == "extend")
            if messages and messages[-1][0] not in _PROGRESS:
                break  # the result is the last message: the child's exit need not be waited for
    finally:
        os.close(read_fd)
    return messages, hung


def _take_messages(buffer: bytes, messages: list[tuple]) -> bytes:
    """Append the whole messages at the start of ``buffer`` to ``messages``; return the rest."""
    while len(buffer) >= _HEADER.size:
        (size,) = _HEADER.unpack_from(buffer)
        if len(buffer) < _HEADER.size + size:
            break
        messages.append(pickle.loads(buffer[_HEADER.size:_HEADER.size + size]))
        buffer = buffer[_HEADER.size + size:]
    return buffer


@dataclass
class _Running:
    """One child of ``run_forked_each``, as the parent follows it."""

    index: int
    pid: int
    read_fd: int
    stderr_file: Any
    deadline: float
    buffer: bytes = b""
    messages: list[tuple] = field(default_factory=list)


def run_forked_each(fns: Sequence[Callable[[], Any]], timeout: float, parallel: int) -> Iterator[tuple[int, ChildResult]]:
    """Call every function of ``fns`` in a child of its own forked from this process, at most
    ``parallel`` at a time, each given ``timeout`` seconds from its start; yield (its index in
    ``fns``, its ChildResult, as ``run_forked`` gives it) as each child ends. The caller must hold
    no other thread (as for every fork here). Closing the generator (Ctrl-C in the caller) kills
    the children still running."""
    _reap_exited()
    waiting, running = list(enumerate(fns)), {}
    try:
        while waiting or running:
            while waiting and len(running) < max(1, parallel):
                index, fn = waiting.pop(0)
                read_fd, write_fd = os.pipe()
                stderr_file = tempfile.TemporaryFile()  # noqa: SIM115 - closed when its child is done
                pid = os.fork()
                if pid == 0:  # pragma: no cover - runs in the child
                    os.close(read_fd)
                    for other in running.values():
                        os.close(other.read_fd)
                    _child(fn, write_fd, stderr_file.fileno())
                os.close(write_fd)
                running[read_fd] = _Running(index, pid, read_fd, stderr_file, time.monotonic() + timeout)
            nearest = min(child.deadline for child in running.values())
            ready, _, _ = select.select(list(running), [], [], max(0.0, nearest - time.monotonic()))
            for read_fd in ready:
                child = running[read_fd]
                chunk = os.read(read_fd, 1 << 16)
                child.buffer = _take_messages(child.buffer + chunk, child.messages)
                if not chunk or (child.messages and child.messages[-1][0] not in _PROGRESS):
                    yield _ended(running.pop(read_fd), hung=False, timeout=timeout)
            for child in [c for c in running.values() if c.deadline <= time.monotonic()]:
                yield _ended(running.pop(child.read_fd), hung=True, timeout=timeout)
    finally:
        for child in running.values():  # only when the caller stopped early
            _kill(child.pid)
            os.waitpid(child.pid, 0)
            os.close(child.read_fd)
            child.stderr_file.close()


def _ended(child: _Running, hung: bool, timeout: float) -> tuple[int, ChildResult]:
    """The result of a child of ``run_forked_each`` whose pipe closed, sent its result, or ran out of time."""
    os.close(child.read_fd)
    status = 0
    if _unfinished(child.messages, hung):
        _kill(child.pid)
        _, status = os.waitpid(child.pid, 0)
    else:
        _exiting.append(child.pid)
    try:
        return child.index, _result(child.messages, hung, status, child.stderr_file, timeout)
    finally:
        child.stderr_file.close()


def _unfinished(messages: list[tuple], hung: bool) -> bool:
    return hung or messages[-1:] == [] or messages[-1][0] in _PROGRESS


def _result(messages: list[tuple], hung: bool, status: int, stderr_file, timeout: float) -> ChildResult:
    stderr_file.seek(0)
    tail = stderr_file.read()[-2000:].decode("utf-8", "replace")
    marks = [m[1] for m in messages if m[0] == "mark"]
    notes = {m[1]: m[2] for m in messages if m[0] == "note"}
    final = messages[-1] if messages and messages[-1][0] not in _PROGRESS else None
    if hung:
        return ChildResult("hang", error=f"no result after {timeout:g} s", marks=marks, stderr_tail=tail, notes=notes)
    if final is None:
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        name = signal.Signals(-code).name if code < 0 else f"exit status {code}"
        return ChildResult("crash", error=name, marks=marks, stderr_tail=tail, notes=notes)
    if final[0] == "ok":
        return ChildResult("ok", value=final[1], marks=marks, stderr_tail=tail, notes=notes)
    return ChildResult("error", error=final[1], marks=marks, stderr_tail=tail + final[2], notes=notes)


class _ForkServer:
    """The parent's end of the fork server: a socket to it, over which each call sends the pickled
    function with the two descriptors its child writes to (messages, stderr), and gets back the
    child's pid and then its wait status."""

    def __init__(self) -> None:
        self.owner = os.getpid()  # a forked worker must not share its parent's server
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # holds passfuzz/
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
        self.process = subprocess.Popen(
            [sys.executable, "-c", f"from passfuzz.run.isolate import _serve; _serve({theirs.fileno()})"],
            pass_fds=[theirs.fileno()], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        theirs.close()
        self.socket = ours
        _send_framed(self.socket, pickle.dumps(sys.path))  # the modules the functions come from

    def alive(self) -> bool:
        return self.owner == os.getpid() and self.process.poll() is None

    def start(self, payload: bytes, write_fd: int, stderr_fd: int) -> int:
        _send_framed(self.socket, payload, fds=[write_fd, stderr_fd])
        return pickle.loads(_receive_framed(self.socket)[0])

    def wait(self) -> int:
        return pickle.loads(_receive_framed(self.socket)[0])

    def stop(self) -> None:
        self.socket.close()
        if self.owner == os.getpid():
            self.process.kill()
            self.process.wait()


_server: _ForkServer | None = None


def _fork_server() -> _ForkServer:
    global _server
    if _server is None or not _server.alive():
        if _server is not None and _server.owner == os.getpid():
            _server.stop()
        _server = _ForkServer()
    return _server


def _serve(fd: int) -> None:  # pragma: no cover - runs in the fork server
    """The fork server's loop: one forked child per request, until the parent goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    connection = socket.socket(fileno=fd)
    sys.path[:] = pickle.loads(_receive_framed(connection)[0])
    while True:
        try:
            framed, fds = _receive_framed(connection)
        except (EOFError, OSError):
            os._exit(0)
        write_fd, stderr_fd = fds
        module, payload = pickle.loads(framed)
        importlib.import_module(module)  # once (passfuzz.run.execute: TVM and passfuzz), for every child after
        pid = os.fork()
        if pid == 0:
            connection.close()

            def call():
                fn, args = pickle.loads(payload)
                return fn(*args)

            _child(call, write_fd, stderr_fd)
        os.close(write_fd)
        os.close(stderr_fd)
        _send_framed(connection, pickle.dumps(pid))
        _, status = os.waitpid(pid, 0)
        _send_framed(connection, pickle.dumps(status))


def _send_framed(sock: socket.socket, payload: bytes, fds: list[int] = ()) -> None:
    header = _HEADER.pack(len(payload))
    if fds:
        socket.send_fds(sock, [header], list(fds))
    else:
        sock.sendall(header)
    sock.sendall(payload)


def _receive_framed(sock: socket.socket) -> tuple[bytes, list[int]]:
    header, fds = b"", []
    while len(header) < _HEADER.size:
        data, received, _, _ = socket.recv_fds(sock, _HEADER.size - len(header), 2)
        if not data:
            raise EOFError("the other end closed the socket")
        header += data
        fds += received
    (size,) = _HEADER.unpack(header)
    payload = bytearray()
    while len(payload) < size:
        chunk = sock.recv(min(size - len(payload), 1 << 20))
        if not chunk:
            raise EOFError("the other end closed the socket")
        payload += chunk
    return bytes(payload), fds


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass

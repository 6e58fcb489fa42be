"""The fork server behind isolated tools on POSIX: plumbing, skip it on a first reading.

A fresh Python per call ("spawn", ``isolation.py``) imports agentlab and
openai again: about half a second. A *fork server* is one helper process,
started once by "spawn" (clean, single-threaded), that imports agentlab and
then ``fork()``s a child per call, which starts in milliseconds. Not done:
forking the parent itself (it has threads, and a forked copy can deadlock on
a lock one of them held), nor ``multiprocessing``'s own "forkserver" (each of
its children re-imports ``__main__``, in Jupyter the whole kernel).

A server serves one call at a time; idle servers wait in a process-wide pool.
The server kills its child when the call's time is up (it alone may: until
it reaps the child, the pid cannot be reused), reaps it, then answers.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..i18n import tr
from ._child import ChildOutcome, kill, left, outcome, reply, spawn

PRELOAD = ("agentlab", "agentlab.tools", "agentlab.course.faults")
"""Imported by every fork server before its first fork."""
_IDLE: list[_Server] = []  # idle servers, shared by every call in this process
_POOL_LOCK = threading.Lock()


def run(job: bytes, function: Callable[..., Any], end: float | None) -> ChildOutcome:
    """Have an idle (or new) server fork a child for ``job``; the child is killed at ``end``."""
    with _POOL_LOCK:
        server = _IDLE.pop() if _IDLE else None
    if server is not None and not server.process.is_alive():
        server.stop()  # close its pipe and reap it, so nothing piles up
        server = None
    server = server or _Server.start(end)
    if isinstance(server, ChildOutcome):
        return server
    try:
        result = server.run(job, _module_of(function), end)
    except BaseException:  # e.g. KeyboardInterrupt: the server kills the child as it stops
        server.stop()
        raise
    if server.usable:
        with _POOL_LOCK:
            _IDLE.append(server)
    else:
        server.stop()
    return result


def shutdown() -> None:
    """Stop the idle fork servers (a new one starts with the next call)."""
    with _POOL_LOCK:
        idle, _IDLE[:] = list(_IDLE), []
    for server in idle:
        server.stop()


@dataclass
class _Server:
    """A fork server this process started, and the pipe we talk to it over."""

    process: Any  # multiprocessing.Process
    control: Any  # multiprocessing.connection.Connection
    usable: bool = True

    @classmethod
    def start(cls, end: float | None) -> _Server | ChildOutcome:
        """A new server, ready to fork; or the outcome of failing to get one in time."""
        started = spawn(_serve, PRELOAD)
        if isinstance(started, ChildOutcome):
            return started
        process, control = started
        try:  # the first call waits for the server to import agentlab (once per process)
            if control.poll(left(end)) and control.recv() == "ready":
                return cls(process, control)
        except (EOFError, OSError):
            pass
        # Out of time (or it died) before it could fork: the process that was
        # to run the work is the one killed.
        killed = kill(process)
        control.close()
        if killed.exitcode is not None and killed.exitcode < 0:
            return killed
        died = tr("isolation.server_died")
        return ChildOutcome(error=died, exitcode=killed.exitcode, pid=killed.pid)

    def run(self, job: bytes, module: str | None, end: float | None) -> ChildOutcome:
        """The server forks a child for ``job``, kills it at ``end``, and answers."""
        try:
            self.control.send((job, module, end))
            # 5 s past the end: never needed with a healthy server
            if self.control.poll(None if end is None else left(end) + 5.0):
                payload, exitcode, pid, killed = self.control.recv()
                if killed and exitcode < 0:
                    return ChildOutcome(killed=True, exitcode=exitcode, pid=pid)
                return outcome(payload, exitcode, pid)
        except (EOFError, OSError, pickle.PickleError):  # the server itself died
            pass
        self.usable = False
        return ChildOutcome(error=tr("isolation.server_died"))

    def stop(self) -> None:
        self.control.close()  # the server sees the pipe close and exits
        self.process.join(1.0)
        if self.process.exitcode is None:
            kill(self.process)


def _module_of(function: Callable[..., Any]) -> str | None:
    module = getattr(function, "__module__", None) or getattr(type(function), "__module__", None)
    return None if module in (None, "__main__", "__mp_main__") else module


# -- the server's and the child's side --------------------------------------------


def _serve(preload: tuple[str, ...], control: Any) -> None:
    """The fork server's loop: import once, then one ``fork()`` per call."""
    for name in preload:
        _import_quietly(name)
    # Stopping the server (multiprocessing sends SIGTERM to daemons at exit)
    # must not leave a hung child behind: SystemExit unwinds to the finally below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    # Ctrl-C in a terminal reaches every process of the group: the server
    # stays (its child gets the KeyboardInterrupt, see _fork_child).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    pid = None
    try:
        control.send("ready")
        while True:
            try:
                job, module, end = control.recv()
            except EOFError:  # the parent is gone
                return
            if module:
                _import_quietly(module)  # later children get it already imported
            pid, read_end = _fork_child(job, control)
            payload, killed = _wait_for(pid, read_end, control, end)
            exitcode = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])  # reaped
            done, pid = pid, None
            control.send((payload, exitcode, done, killed))
    finally:
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def _import_quietly(name: str) -> None:
    try:
        __import__(name)
    except Exception:  # the child will report the import error where it matters
        pass


def _fork_child(job: bytes, control: Any) -> tuple[int, int]:
    """Fork a child that runs ``job`` and writes its reply to a pipe: (pid, read end)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        code = 0
        try:
            os.close(read_end)
            control.close()  # only the server talks to the parent
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            with os.fdopen(write_end, "wb") as out:
                out.write(reply(job))
        except BaseException:
            code = 1
        finally:
            os._exit(code)  # never return into the server's loop
    os.close(write_end)
    return pid, read_end


def _wait_for(pid: int, read_end: int, control: Any, end: float | None) -> tuple[bytes, bool]:
    """The child's reply, read until it exits; ``(reply, killed)``. It is killed at
    ``end``, or when the parent is gone (its pipe closed: nothing else comes mid-call)."""
    chunks: list[bytes] = []
    try:
        while True:
            ready, _, _ = select.select([read_end, control], [], [], left(end))
            if control in ready or read_end not in ready:
                os.kill(pid, signal.SIGKILL)
                return b"".join(chunks), True
            chunk = os.read(read_end, 1 << 16)
            if not chunk:  # the child closed its end: it is done (or dead)
                return b"".join(chunks), False
            chunks.append(chunk)
    finally:
        os.close(read_end)

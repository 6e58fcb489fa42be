"""The fork server behind isolated tools on POSIX: plumbing, skip it on a first reading.

A fresh Python per call ("spawn", ``isolation.py``) imports agentlab and
openai again: about half a second. A *fork server* is one helper process,
started once by "spawn" (clean, single-threaded), that imports agentlab and
then ``fork()``s a child per call, which starts in milliseconds. Not done:

- fork the parent itself: the parent has threads (``run_within``'s workers,
  Jupyter's), and a forked copy of a process with threads can deadlock on a
  lock some thread held at the moment of the fork;
- use ``multiprocessing``'s own "forkserver": each of its children re-imports
  the parent's ``__main__`` module first, which in Jupyter is the whole kernel
  (measured: no faster than spawn there).

A server serves one call at a time; calls made at the same time (from
several threads) get servers of their own. Idle servers are kept in a small
process-wide pool, like ``multiprocessing``'s own fork server: a process is a
resource of the whole program, not of one registry. When a call's time is up
the server kills its child (it alone may: until it reaps the child, the pid
cannot be reused) and says so once the child is reaped.
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
from ._child import ChildOutcome, left, outcome, reply

PRELOAD = ("agentlab", "agentlab.tools", "agentlab.course.faults")
"""Imported by every fork server before its first fork."""


def run(job: bytes, function: Callable[..., Any], end: float | None) -> ChildOutcome:
    """Have an idle (or new) server fork a child for ``job``; kill the child at ``end``."""
    server = _take_server(end)
    if isinstance(server, ChildOutcome):
        return server
    try:
        result = server.run(job, _module_of(function), end)
    except BaseException:  # e.g. KeyboardInterrupt: the server kills the child as it stops
        server.stop()
        raise
    _give_back(server)
    return result


def shutdown() -> None:
    """Stop the idle fork servers (a new one starts with the next call)."""
    with _POOL_LOCK:
        idle, _IDLE[:] = list(_IDLE), []
    for server in idle:
        server.stop()


# Idle fork servers, shared by every call in this process (see the docstring).
_IDLE: list[_Server] = []
_POOL_LOCK = threading.Lock()


def _take_server(end: float | None) -> _Server | ChildOutcome:
    dead = []
    with _POOL_LOCK:
        while _IDLE:
            server = _IDLE.pop()
            if server.process.is_alive():
                break
            dead.append(server)
        else:
            server = None
    for gone in dead:  # close its pipe and reap it, so nothing piles up
        gone.stop()
    return server or _Server.start(end)


def _give_back(server: _Server) -> None:
    if server.usable:
        with _POOL_LOCK:
            _IDLE.append(server)
    else:
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
        try:  # imported here: Pyodide has no _multiprocessing, and most runs never need it
            import multiprocessing

            context = multiprocessing.get_context("spawn")
            ours, theirs = context.Pipe(duplex=True)
        except (ImportError, OSError) as exc:
            return ChildOutcome(unavailable=f"{type(exc).__name__}: {exc}")
        process = context.Process(
            target=_serve, args=(theirs, PRELOAD), name="agentlab-fork-server", daemon=True
        )
        try:
            process.start()
        except (OSError, RuntimeError, ValueError) as exc:
            ours.close()
            return ChildOutcome(unavailable=f"{type(exc).__name__}: {exc}")
        finally:
            theirs.close()  # the server has its own copy (or there is no server)
        server = cls(process, ours)
        # The first call waits for the server to import agentlab (once per process).
        try:
            ready = ours.poll(left(end)) and ours.recv() == "ready"
        except (EOFError, OSError):
            ready = False
        if ready:
            return server
        # Out of time (or it died) before it could fork: the process that was
        # to run the work is the one killed.
        process.kill()
        process.join()
        ours.close()
        if process.exitcode is not None and process.exitcode < 0:
            return ChildOutcome(killed=True, exitcode=process.exitcode, pid=process.pid)
        return ChildOutcome(
            error=tr("isolation.server_died"), exitcode=process.exitcode, pid=process.pid
        )

    def run(self, job: bytes, module: str | None, end: float | None) -> ChildOutcome:
        """Have the server fork a child for ``job``; kill the child at ``end``."""
        pid = None
        try:
            self.control.send(("run", job, module))
            while True:
                if not self.control.poll(left(end)):
                    # Time is up. The server kills the child (it alone may:
                    # until it reaps the child, the pid cannot be reused).
                    self.control.send(("kill",))
                    return self._finish(pid, killed=True)
                message = self.control.recv()
                if message[0] == "started":
                    pid = message[1]
                else:
                    return self._finish(pid, done=message)
        except (EOFError, OSError, pickle.PickleError):  # the server itself died
            self.usable = False
            return ChildOutcome(error=tr("isolation.server_died"), pid=pid)

    def _finish(
        self, pid: int | None, killed: bool = False, done: tuple | None = None
    ) -> ChildOutcome:
        while done is None:  # after a kill: wait for the server to have reaped the child
            if not self.control.poll(5.0):  # never happens with a healthy server
                self.usable = False
                return ChildOutcome(killed=True, pid=pid, error=tr("isolation.server_died"))
            message = self.control.recv()
            if message[0] == "started":
                pid = message[1]
            else:
                done = message
        _, payload, exitcode, pid = done
        if killed and exitcode is not None and exitcode < 0:
            return ChildOutcome(killed=True, exitcode=exitcode, pid=pid)
        return outcome(payload, exitcode, pid)

    def stop(self) -> None:
        self.control.close()  # the server sees the pipe close and exits
        self.process.join(1.0)
        if self.process.exitcode is None:
            self.process.kill()
            self.process.join()


def _module_of(function: Callable[..., Any]) -> str | None:
    module = getattr(function, "__module__", None) or getattr(type(function), "__module__", None)
    return None if module in (None, "__main__", "__mp_main__") else module


# -- the server's and the child's side --------------------------------------------


def _serve(control: Any, preload: tuple[str, ...]) -> None:
    """The fork server's loop: import once, then one ``fork()`` per call."""
    for name in preload:
        _import_quietly(name)
    # Stopping the server (multiprocessing sends SIGTERM to daemons at exit)
    # must not leave a hung child behind: SystemExit unwinds to the finally below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    # Ctrl-C in a terminal reaches every process of the group: the server
    # stays (its child gets the KeyboardInterrupt, see _fork_child).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    child = None
    try:
        control.send("ready")
        while True:
            try:
                request = control.recv()
            except EOFError:  # the parent is gone
                return
            if request[0] != "run":
                continue  # a "kill" that came after its child had finished
            _, job, module = request
            if module:
                _import_quietly(module)  # later children get it already imported
            child = _fork_child(job, control)
            control.send(("started", child[0]))
            payload, exitcode = _wait_for(child, control)
            control.send(("done", payload, exitcode, child[0]))
            child = None
    finally:
        if child is not None:
            try:
                os.kill(child[0], signal.SIGKILL)
                os.waitpid(child[0], 0)
            except (ProcessLookupError, ChildProcessError):  # already reaped
                pass


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
            payload = reply(job)
            with os.fdopen(write_end, "wb") as out:
                out.write(payload)
        except BaseException:
            code = 1
        finally:
            os._exit(code)  # never return into the server's loop
    os.close(write_end)
    return pid, read_end


def _wait_for(child: tuple[int, int], control: Any) -> tuple[bytes, int]:
    """Read the child's reply until it exits or the parent says kill; reap it."""
    pid, read_end = child
    chunks: list[bytes] = []
    try:
        while True:
            ready, _, _ = select.select([read_end, control], [], [])
            if control in ready:
                try:
                    request = control.recv()
                except EOFError:
                    request = ("kill",)  # the parent is gone: so is the work
                if request[0] == "kill":
                    os.kill(pid, signal.SIGKILL)
                    break
            if read_end in ready:
                chunk = os.read(read_end, 1 << 16)
                if not chunk:  # the child closed its end: it is done (or dead)
                    break
                chunks.append(chunk)
    finally:
        os.close(read_end)
    _, status = os.waitpid(pid, 0)  # reaped: no zombie left
    return b"".join(chunks), os.waitstatus_to_exitcode(status)

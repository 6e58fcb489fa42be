"""Run a function in a child process that can be killed: isolated tools.

A thread cannot be stopped; a process can. :func:`run_in_child` runs
``function(**kwargs)`` in a child process and, when its time is up, kills it
(SIGKILL on POSIX, TerminateProcess on Windows) and waits until it has been
reaped, so no zombie is left behind.

Starting a fresh Python for every call ("spawn") costs about half a second:
the child imports agentlab and openai again. So on POSIX the children come
from a *fork server*: one helper process, started once by "spawn" (a clean,
single-threaded interpreter), imports agentlab and then waits. For each call
it ``fork()``s; the copy already has everything imported and starts in a few
milliseconds. Two things we do not do, and why:

- fork the parent itself: the parent has threads (``run_within``'s workers,
  Jupyter's), and a forked copy of a process with threads can deadlock on a
  lock some thread held at the moment of the fork;
- use ``multiprocessing``'s own "forkserver": each of its children re-imports
  the parent's ``__main__`` module first, which in Jupyter is the whole kernel
  (measured: no faster than spawn there).

The server serves one call at a time; calls made at the same time (from
several threads) get servers of their own. Servers are kept in a small
process-wide pool, like ``multiprocessing``'s own fork server: a process is
a resource of the whole program, not of one registry.

Where there is no ``fork`` (Windows) every call is spawned, as before. Where
no process can be started at all (Pyodide in the browser), the outcome says
so (``unavailable``) instead of raising.

This module knows nothing about tools, budgets or the loop (the fork server
only imports the tool modules by name, :data:`PRELOAD`, so that each fork
starts with them loaded).
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..i18n import described, tr

PRELOAD = ("agentlab", "agentlab.tools", "agentlab.course.faults")
"""Imported by every fork server before its first fork."""


@dataclass(frozen=True)
class ChildOutcome:
    """What happened to work run in a child process."""

    value: Any = None
    killed: bool = False
    exitcode: int | None = None
    pid: int | None = None
    error: str | None = None
    unavailable: str | None = None
    """Why no child process could be started (then nothing ran)."""
    unsendable: str | None = None
    """Why the function or its arguments cannot be sent to a child (nothing ran)."""


def start_method() -> str:
    """``"fork server"`` where ``fork()`` exists (POSIX), else ``"spawn"`` (Windows)."""
    return "fork server" if hasattr(os, "fork") and sys.platform != "win32" else "spawn"


def kill_signal_name() -> str:
    """How a child is killed here, for messages people read."""
    return "TerminateProcess" if sys.platform == "win32" else "SIGKILL"


def process_exists(pid: int) -> bool:
    """Is process ``pid`` still there? For showing that a killed child is gone.

    On POSIX, signal 0 asks without doing anything. On Windows ``os.kill``
    would terminate the process instead, so there we ask the system whether
    it can still open a handle to it.
    """
    if sys.platform != "win32":
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # it exists, it is just not ours
            return True
        return True
    import ctypes  # Windows only: OpenProcess fails once the process is gone

    handle = ctypes.windll.kernel32.OpenProcess(0x1000, False, pid)  # QUERY_LIMITED_INFORMATION
    if not handle:
        return False
    ctypes.windll.kernel32.CloseHandle(handle)
    return True


def run_in_child(
    function: Callable[..., Any],
    kwargs: dict[str, Any],
    seconds: float | None,
    method: str | None = None,
) -> ChildOutcome:
    """Run ``function(**kwargs)`` in a child process; kill it when ``seconds`` are up.

    ``function`` must be picklable (defined at module level). ``method``
    (``"fork server"`` or ``"spawn"``) overrides :func:`start_method`; the
    benchmark uses it to compare the two. Never raises for anything the
    function does; a child that cannot be started gives ``unavailable``.
    """
    end = None if seconds is None else time.monotonic() + seconds  # starting counts too
    try:
        job = pickle.dumps((function, kwargs, _surroundings()))
    except Exception as exc:  # a lambda or a local function: it cannot travel
        return ChildOutcome(unsendable=f"{type(exc).__name__}: {exc}")
    if (method or start_method()) == "spawn":
        return _spawned(job, end)
    server = _take_server(end)
    if isinstance(server, ChildOutcome):
        return server
    try:
        outcome = server.run(job, _module_of(function), end)
    except BaseException:  # e.g. KeyboardInterrupt: the server kills the child as it stops
        server.stop()
        raise
    _give_back(server)
    return outcome


def shutdown() -> None:
    """Stop the idle fork servers (a new one starts with the next call)."""
    with _POOL_LOCK:
        idle, _IDLE[:] = list(_IDLE), []
    for server in idle:
        server.stop()


# -- the parent's side ---------------------------------------------------------------

# Idle fork servers, shared by every call in this process (see the docstring).
_IDLE: list[_Server] = []
_POOL_LOCK = threading.Lock()


def _left(end: float | None) -> float | None:
    """Seconds until ``end`` (never below 0), or ``None`` for no limit."""
    return None if end is None else max(0.0, end - time.monotonic())


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
            ready = ours.poll(_left(end)) and ours.recv() == "ready"
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
                if not self.control.poll(_left(end)):
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
        return _outcome(payload, exitcode, pid)

    def stop(self) -> None:
        self.control.close()  # the server sees the pipe close and exits
        self.process.join(1.0)
        if self.process.exitcode is None:
            self.process.kill()
            self.process.join()


def _spawned(job: bytes, end: float | None) -> ChildOutcome:
    """The portable way: a fresh interpreter for this one call (~0.5 s to start)."""
    try:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        receiver, sender = context.Pipe(duplex=False)
    except (ImportError, OSError) as exc:
        return ChildOutcome(unavailable=f"{type(exc).__name__}: {exc}")
    child = context.Process(target=_spawned_main, args=(job, sender), daemon=True)
    try:
        child.start()
    except (OSError, RuntimeError, ValueError) as exc:
        receiver.close()
        return ChildOutcome(unavailable=f"{type(exc).__name__}: {exc}")
    finally:
        sender.close()  # only the child writes
    try:
        if receiver.poll(_left(end)):
            payload = receiver.recv_bytes()
            child.join()
            return _outcome(payload, child.exitcode, child.pid)
        child.kill()  # SIGKILL (TerminateProcess on Windows): the child gets no say
        child.join()  # and reaped: join waits for it
        return ChildOutcome(killed=True, exitcode=child.exitcode, pid=child.pid)
    except (EOFError, OSError):  # the child died without answering
        child.join()
        died = tr("isolation.child_died")
        return ChildOutcome(error=died, exitcode=child.exitcode, pid=child.pid)
    finally:
        receiver.close()


def _outcome(payload: bytes, exitcode: int | None, pid: int | None) -> ChildOutcome:
    try:
        status, value = pickle.loads(payload)
    except Exception:  # nothing (or half a message) came back: it died on the way
        return ChildOutcome(error=tr("isolation.child_died"), exitcode=exitcode, pid=pid)
    if status == "ok":
        return ChildOutcome(value=value, exitcode=exitcode, pid=pid)
    return ChildOutcome(error=value, exitcode=exitcode, pid=pid)


def _surroundings() -> dict[str, Any]:
    """What a spawned child gets from its parent at start, sent with every call:
    a server started earlier would otherwise have the old environment (and
    with it the old AGENTLAB_LANG), folder and import path."""
    try:
        folder: str | None = os.getcwd()
    except OSError:  # the folder was removed under us: stay where the server is
        folder = None
    return {"env": dict(os.environ), "cwd": folder, "path": list(sys.path)}


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
            payload = _reply(job)
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


def _reply(job: bytes) -> bytes:
    """In the child: run the job; ``(status, value)`` pickled."""
    try:
        function, kwargs, surroundings = pickle.loads(job)
        os.environ.clear()
        os.environ.update(surroundings["env"])
        if surroundings["cwd"] is not None:
            os.chdir(surroundings["cwd"])
        sys.path[:] = surroundings["path"]
        reply = ("ok", function(**kwargs))
    except BaseException as exc:  # whatever it raises goes back as a message
        reply = ("error", described(exc))
    finally:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    try:
        return pickle.dumps(reply)
    except Exception as exc:
        return pickle.dumps(("error", tr("isolation.result_unsendable", error=exc)))


def _spawned_main(job: bytes, sender: Any) -> None:
    """In a spawned child: the same, answered over a multiprocessing pipe."""
    sender.send_bytes(_reply(job))
    sender.close()

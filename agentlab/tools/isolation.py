"""Isolated tools: run a function in a child process, and kill it when its time is up.

A thread cannot be stopped; a process can. :func:`run_in_child` runs
``function(**kwargs)`` in a child process, and when the time is up kills it
(SIGKILL on POSIX, TerminateProcess on Windows) and reaps it. The plain way is
:func:`_spawned`, a fresh Python per call; on POSIX a warm *fork server* forks
the child in milliseconds rather than half a second (``_fork_server.py``: same
job, same outcome). Where no process can start (Pyodide), the outcome says so.
:func:`run_isolated` turns the outcome into a tool result for the registry.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

from ..i18n import tr
from . import _fork_server
from ._child import ChildOutcome, kill, left, outcome, pack, reply, spawn
from ._fork_server import shutdown  # noqa: F401 (stops the idle fork servers)
from .result import ToolRun, checked, error


def run_in_child(
    function: Callable[..., Any],
    kwargs: dict[str, Any],
    seconds: float | None,
    method: str | None = None,
) -> ChildOutcome:
    """Run ``function(**kwargs)`` (picklable: defined at module level) in a child
    process, killed when ``seconds`` are up. ``method`` (``"fork server"`` or
    ``"spawn"``) overrides :func:`start_method` (the benchmark compares them).
    Never raises for anything the function does."""
    end = None if seconds is None else time.monotonic() + seconds  # starting counts too
    try:
        job = pack(function, kwargs)
    except Exception as exc:  # a lambda or a local function: it cannot travel
        return ChildOutcome(unsendable=f"{type(exc).__name__}: {exc}")
    if (method or start_method()) == "spawn":
        return _spawned(job, end)
    return _fork_server.run(job, function, end)


def _spawned(job: bytes, end: float | None) -> ChildOutcome:
    """The plain way: a fresh interpreter for this one call, killed at ``end``."""
    started = spawn(_spawned_main, job)
    if isinstance(started, ChildOutcome):
        return started
    child, receiver = started
    try:
        if not receiver.poll(left(end)):
            return kill(child)
        payload = receiver.recv_bytes()
    except (EOFError, OSError):  # the child died without answering
        payload = b""
    finally:
        receiver.close()
    child.join()
    return outcome(payload, child.exitcode, child.pid)


def _spawned_main(job: bytes, sender: Any) -> None:
    """In the spawned child: run the job, answer over the pipe."""
    sender.send_bytes(reply(job))
    sender.close()


def start_method() -> str:
    """``"fork server"`` where ``fork()`` exists (POSIX), else ``"spawn"`` (Windows)."""
    return "fork server" if hasattr(os, "fork") and sys.platform != "win32" else "spawn"


def kill_signal_name() -> str:
    """How a child is killed here, for messages people read."""
    return "TerminateProcess" if sys.platform == "win32" else "SIGKILL"


def process_exists(pid: int) -> bool:
    """Is process ``pid`` still there? On POSIX signal 0 asks without doing anything;
    on Windows ``os.kill`` would terminate it, so there we ask for a handle to it."""
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


def run_isolated(
    name: str,
    function: Callable[..., Any],
    arguments: dict[str, Any],
    seconds: float | None,
    capped: bool,
) -> ToolRun:
    """One isolated tool call: its result, or a tool error saying why there is none.

    ``capped``: ``seconds`` is the tool's own timeout (a ``TIMEOUT`` the model
    reads); else it is the run's time left (``TOOL_KILLED``, and the run ends).
    """
    child = run_in_child(function, arguments, seconds)
    if child.unsendable:  # a lambda or a local function cannot go to another process
        message = tr("isolation.cannot_send", name=name, error=child.unsendable)
        return ToolRun(error("TOOL_EXCEPTION", message))
    if child.unavailable:  # no process can start here (Pyodide): say so, go on
        message = tr("isolation.unavailable", name=name, reason=child.unavailable)
        return ToolRun(error("TOOL_UNAVAILABLE", message))
    how = kill_signal_name()  # as shown on this machine
    process = {
        "pid": child.pid,
        "exitcode": child.exitcode,
        "killed": child.killed,
        "killed_by": how if child.killed else None,
    }
    if child.killed and capped:
        message = tr("isolation.timeout_killed", name=name, seconds=seconds, how=how)
        return ToolRun(error("TIMEOUT", message), process=process)
    if child.killed:
        message = tr("registry.killed", name=name, how=how)
        return ToolRun(error("TOOL_KILLED", message), late=True, process=process)
    if child.error:
        message = tr("registry.raised", name=name, error=child.error)
        return ToolRun(error("TOOL_EXCEPTION", message), process=process)
    ran = checked(name, child.value)
    ran.process = process
    return ran

"""A job for a child process: packed, run inside the child, read back; and starting one.

Both ways of starting a child (``isolation.py``'s spawn, ``_fork_server.py``'s
fork) send the same pickled job and get back the same pickled reply.
"""

from __future__ import annotations

import os
import pickle
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..i18n import described, tr


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


def pack(function: Callable[..., Any], kwargs: dict[str, Any]) -> bytes:
    """The job as bytes; raises if ``function`` cannot travel (a lambda, a local function).

    The environment (``AGENTLAB_LANG`` with it), folder and import path go along:
    a server started earlier would otherwise have the old ones."""
    try:
        folder: str | None = os.getcwd()
    except OSError:  # the folder was removed under us: stay where the server is
        folder = None
    return pickle.dumps((function, kwargs, dict(os.environ), folder, list(sys.path)))


def reply(job: bytes) -> bytes:
    """In the child: run the job; ``(status, value)`` pickled."""
    try:
        function, kwargs, environ, folder, path = pickle.loads(job)
        os.environ.clear()
        os.environ.update(environ)
        if folder is not None:
            os.chdir(folder)
        sys.path[:] = path
        answer = ("ok", function(**kwargs))
    except BaseException as exc:  # whatever it raises goes back as a message
        answer = ("error", described(exc))
    finally:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    try:
        return pickle.dumps(answer)
    except Exception as exc:
        return pickle.dumps(("error", tr("isolation.result_unsendable", error=exc)))


def outcome(payload: bytes, exitcode: int | None, pid: int | None) -> ChildOutcome:
    """In the parent: the child's reply read back."""
    try:
        status, value = pickle.loads(payload)
    except Exception:  # nothing (or half a message) came back: it died on the way
        return ChildOutcome(error=tr("isolation.child_died"), exitcode=exitcode, pid=pid)
    if status == "ok":
        return ChildOutcome(value=value, exitcode=exitcode, pid=pid)
    return ChildOutcome(error=value, exitcode=exitcode, pid=pid)


def spawn(target: Callable[..., None], *args: Any) -> tuple[Any, Any] | ChildOutcome:
    """A fresh Python running ``target(*args, connection)``: the process and our end of
    the pipe to it; or, where no process can start (Pyodide), why not."""
    try:  # imported here: Pyodide has no _multiprocessing, and most runs never need it
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
    except (ImportError, OSError) as exc:
        return ChildOutcome(unavailable=f"{type(exc).__name__}: {exc}")
    process = context.Process(target=target, args=(*args, theirs), daemon=True)
    try:
        process.start()
    except (OSError, RuntimeError, ValueError) as exc:
        ours.close()
        return ChildOutcome(unavailable=f"{type(exc).__name__}: {exc}")
    finally:
        theirs.close()  # the child has its own copy (or there is no child)
    return process, ours


def kill(process: Any) -> ChildOutcome:
    """Kill a ``multiprocessing`` process (SIGKILL; TerminateProcess on Windows): it
    gets no say. ``join`` reaps it, so no zombie is left."""
    process.kill()
    process.join()
    return ChildOutcome(killed=True, exitcode=process.exitcode, pid=process.pid)


def left(end: float | None) -> float | None:
    """Seconds until ``end`` (never below 0), or ``None`` for no limit."""
    return None if end is None else max(0.0, end - time.monotonic())

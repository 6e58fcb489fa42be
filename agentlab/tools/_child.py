"""A job for a child process: how it is packed, run inside the child, and read back.

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
    """The job as bytes; raises if ``function`` cannot travel (a lambda, a local function)."""
    return pickle.dumps((function, kwargs, _surroundings()))


def _surroundings() -> dict[str, Any]:
    """What a spawned child gets from its parent at start, sent with every call:
    a server started earlier would otherwise have the old environment (and
    with it the old AGENTLAB_LANG), folder and import path."""
    try:
        folder: str | None = os.getcwd()
    except OSError:  # the folder was removed under us: stay where the server is
        folder = None
    return {"env": dict(os.environ), "cwd": folder, "path": list(sys.path)}


def reply(job: bytes) -> bytes:
    """In the child: run the job; ``(status, value)`` pickled."""
    try:
        function, kwargs, surroundings = pickle.loads(job)
        os.environ.clear()
        os.environ.update(surroundings["env"])
        if surroundings["cwd"] is not None:
            os.chdir(surroundings["cwd"])
        sys.path[:] = surroundings["path"]
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


def left(end: float | None) -> float | None:
    """Seconds until ``end`` (never below 0), or ``None`` for no limit."""
    return None if end is None else max(0.0, end - time.monotonic())

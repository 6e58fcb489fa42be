"""One absolute deadline for the whole run, and work that must respect it.

``Deadline`` is set once, when the run starts. Every phase — the model
request (*decide*), each tool call (*tool*), the completion check
(*complete*) — gets only the time that *remains*, never a fresh timeout:
three phases of 100 ms each must not add up to a 300 ms run.

:func:`run_within` runs work on a daemon thread and stops *waiting* when time
is up; it cannot stop the work (Python cannot kill a thread), which goes on
in the background. Only a child process can be killed
(``agentlab/tools/isolation.py``). Where no thread can start (Pyodide), the
work runs inline and :class:`TimedOut` comes once it ends late. This module
knows nothing about models, tools or budgets.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Deadline:
    """``max_seconds`` from creation; ``None`` means no time limit."""

    max_seconds: float | None
    started: float = field(default_factory=time.monotonic)

    @property
    def at(self) -> float | None:
        return None if self.max_seconds is None else self.started + self.max_seconds

    def remaining(self) -> float | None:
        """Seconds left (never below 0), or ``None`` without a limit."""
        return None if self.at is None else max(0.0, self.at - time.monotonic())

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def expired(self) -> bool:
        left = self.remaining()
        return left is not None and left <= 0

    def sleep(self, seconds: float) -> None:
        """Sleep ``seconds``, or until the deadline if that comes first."""
        left = self.remaining()
        time.sleep(seconds if left is None else min(seconds, left))


class TimedOut(Exception):
    """The work did not finish within the time it was given.

    ``finished`` is true when it did finish, late: it ran inline because no
    thread could be started, so nothing could interrupt it. ``value`` is then
    what it returned.
    """

    def __init__(self, finished: bool = False, value: Any = None) -> None:
        super().__init__()
        self.finished = finished
        self.value = value


def run_within(work: Callable[[], Any], seconds: float | None, name: str = "phase") -> Any:
    """``work()``'s value, or :class:`TimedOut` after ``seconds`` (work keeps running).

    Exceptions raised by ``work`` are re-raised here, in the caller's thread.
    Without threads the work runs inline, and :class:`TimedOut` (with
    ``finished=True``) comes only once it has ended.
    """
    if seconds is None:
        return work()
    if seconds <= 0:
        raise TimedOut()
    outcome: dict[str, Any] = {}
    finished = threading.Event()

    def target() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:  # handed over to the caller below
            outcome["error"] = exc
        finally:
            finished.set()

    worker = threading.Thread(target=target, name=f"agentlab-{name}", daemon=True)
    try:
        worker.start()
    except RuntimeError:  # "can't start new thread": run it here, uninterruptible
        return _run_inline(work, seconds)
    if not finished.wait(seconds):
        raise TimedOut()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _run_inline(work: Callable[[], Any], seconds: float) -> Any:
    started = time.monotonic()
    value = work()
    if time.monotonic() - started > seconds:
        raise TimedOut(finished=True, value=value)
    return value


@functools.cache  # whether threads start does not change while a process runs
def threads_available() -> bool:
    """Can this process start a thread? (Not in Pyodide, for one.)"""
    probe = threading.Thread(target=lambda: None, name="agentlab-probe", daemon=True)
    try:
        probe.start()
    except RuntimeError:
        return False
    probe.join()
    return True

"""One absolute deadline for the whole run, and work that must respect it.

``Deadline`` is set once, when the run starts. Every phase — the model
request (*decide*), each tool call (*tool*) and the completion check
(*complete*) — gets only the time that *remains*, never a fresh timeout:
three phases of 100 ms each must not add up to a 300 ms run.

Two ways to bound a piece of work:

- :func:`run_within` runs it on a daemon thread and stops *waiting* when time
  is up. It does not wait for the abandoned work (``with
  ThreadPoolExecutor()`` would: its exit joins the worker), but it cannot stop
  it either. Python has no way to kill a thread: the work goes on in the
  background, like a JavaScript promise that ignores its AbortSignal.
- :func:`run_in_child` runs it in a child process and kills it (SIGKILL) when
  time is up. That is the only way to really stop code that hangs and
  ignores every request to stop.

This module knows nothing about models, tools or budgets.
"""

from __future__ import annotations

import multiprocessing
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
    """The work did not finish within the time it was given."""


def run_within(work: Callable[[], Any], seconds: float | None, name: str = "phase") -> Any:
    """``work()``'s value, or :class:`TimedOut` after ``seconds`` (work keeps running).

    Exceptions raised by ``work`` are re-raised here, in the caller's thread.
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
    worker.start()
    if not finished.wait(seconds):
        raise TimedOut()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@dataclass(frozen=True)
class ChildOutcome:
    """What happened to work run in a child process."""

    value: Any = None
    killed: bool = False
    exitcode: int | None = None
    pid: int | None = None
    error: str | None = None


def run_in_child(
    function: Callable[..., Any], kwargs: dict[str, Any], seconds: float | None
) -> ChildOutcome:
    """Run ``function(**kwargs)`` in a fresh process; SIGKILL it when time is up.

    ``function`` must be importable by name (defined at module level), since
    the child starts a new interpreter ("spawn"): forking a process that has
    threads can deadlock.
    """
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child_main, args=(function, kwargs, sender), daemon=True)
    child.start()
    sender.close()  # only the child writes
    try:
        if receiver.poll(seconds):
            status, payload = receiver.recv()
            child.join()
            if status == "ok":
                return ChildOutcome(value=payload, exitcode=child.exitcode, pid=child.pid)
            return ChildOutcome(error=payload, exitcode=child.exitcode, pid=child.pid)
        child.kill()  # SIGKILL: the child gets no say
        child.join()
        return ChildOutcome(killed=True, exitcode=child.exitcode, pid=child.pid)
    except EOFError:  # the child died without answering
        child.join()
        return ChildOutcome(error="the child process died", exitcode=child.exitcode, pid=child.pid)
    finally:
        receiver.close()


def _child_main(function: Callable[..., Any], kwargs: dict[str, Any], sender: Any) -> None:
    try:
        sender.send(("ok", function(**kwargs)))
    except Exception as exc:
        sender.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        sender.close()

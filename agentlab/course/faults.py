"""Fault injection: tools and scripted models that fail on purpose.

Chapter 03 and its tests use these to prove that every budget really stops
a run. Each fault is small and does exactly one bad thing:

tools (in :func:`fault_tools`)
    ``always_fails``      the same error on every call
    ``same_result``       ``ok`` with the same data on every call
    ``permission_denied`` a policy refusal
    ``huge_output``       a 51 000-character log with two error lines in it
    ``hang``              sleeps far past any deadline, ignoring cancellation
                          (in-process: it keeps running after the run gives up)
    ``hang_isolated``     the same, declared isolated: it runs in a child
                          process that is killed when the time is up

models (policies for :class:`~agentlab.clients.ScriptedClient`)
    :func:`keeps_calling`  the same call forever, in three spellings in turn
    :func:`wanders`        a new argument every time, never a repeat
    :func:`flaky`          HTTP errors first (a gateway's 429), then a policy
    ``[Hang(s)]``          a model that goes quiet (see ``clients.Hang``)

completion checks
    :func:`slow_check`     a ``done_when`` that takes its time

Nothing here is used by the loop itself.
"""

from __future__ import annotations

import functools
import json
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..clients.script import Conversation, HttpError, Reply, ToolCall, Turn
from ..i18n import tr
from ..tools.registry import Tool, ToolRegistry, ToolResult, error, ok

HUGE_LINES = 1500


def huge_log(lines: int = HUGE_LINES) -> str:
    """A long build log: mostly noise, two ERROR lines in the middle, a summary at the end."""
    rows = [f"[{i:04d}] compiling module_{i % 97:02d} ... ok" for i in range(lines)]
    rows[lines // 3] = f"[{lines // 3:04d}] ERROR: module_17 failed: undefined name 'budget'"
    rows[lines // 2] = f"[{lines // 2:04d}] ERROR: 3 tests failed in test_loop.py"
    rows.append("summary: 2 errors, build failed")
    return "\n".join(rows)


def sleep_for(seconds: float) -> ToolResult:
    """Sleep, ignoring every request to stop. Module level, so a child process can run it."""
    time.sleep(seconds)
    return ok({"slept": seconds})


@dataclass
class HangingTool:
    """An in-process tool that hangs; ``ticks`` shows it is still running."""

    seconds: float = 30.0
    ticks: int = 0
    started: threading.Event = field(default_factory=threading.Event)
    finished: threading.Event = field(default_factory=threading.Event)

    def __call__(self) -> ToolResult:
        self.started.set()
        end = time.monotonic() + self.seconds
        while time.monotonic() < end:  # no cancellation point: nobody can ask it to stop
            time.sleep(0.01)
            self.ticks += 1
        self.finished.set()
        return ok({"slept": self.seconds})


def _checked_seconds(name: str, value: Any) -> float:
    """A hang length a clock can wait: a finite number of seconds, at least 0."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not (number and math.isfinite(value) and value >= 0):
        raise ValueError(tr("faults.bad_seconds", name=name, value=value))
    return value


def fault_tools(hang_seconds: float = 30.0) -> tuple[ToolRegistry, HangingTool]:
    """A registry of every fault tool, and the in-process hanging tool to watch."""
    _checked_seconds("hang_seconds", hang_seconds)
    hanging = HangingTool(hang_seconds)
    no_args: dict[str, Any] = {}
    registry = ToolRegistry(
        [
            Tool(
                "always_fails",
                tr("faults.describe.always_fails"),
                {"properties": {"mirror": {"type": "string"}}},
                lambda mirror="main": error("UNAVAILABLE", tr("faults.service_down")),
            ),
            Tool(
                "same_result",
                tr("faults.describe.same_result"),
                {"properties": {"job": {"type": "string"}}},
                lambda job="build": ok({"job": job, "state": "running"}),
            ),
            Tool(
                "permission_denied",
                tr("faults.describe.permission_denied"),
                {"properties": {"path": {"type": "string"}}},
                lambda path="": error(
                    "PERMISSION_DENIED", tr("faults.delete_denied", path=repr(path))
                ),
            ),
            Tool(
                "huge_output",
                tr("faults.describe.huge_output"),
                no_args,
                lambda: ok({"log": huge_log()}),
            ),
            Tool("hang", tr("faults.describe.hang"), no_args, hanging),
            Tool(
                "hang_isolated",
                tr("faults.describe.hang_isolated"),
                no_args,
                # partial, not a lambda: an isolated call is pickled to reach its child
                functools.partial(sleep_for, hang_seconds),
                isolated=True,
            ),
        ]
    )
    return registry, hanging


def keeps_calling(
    tool: str, arguments: dict[str, Any] | None = None
) -> Callable[[Conversation], Turn]:
    """A model that asks for the same call on every turn, never answering.

    It cycles through three spellings (as written; keys reversed with JSON
    whitespace; ``./`` before a path), which a repeat detector must see through.
    """
    arguments = arguments or {}

    def policy(conversation: Conversation) -> Turn:
        variant = (conversation.request_number - 1) % 3
        args = dict(reversed(list(arguments.items()))) if variant == 1 else dict(arguments)
        for key, value in args.items():
            if variant == 2 and key.endswith("path") and isinstance(value, str):
                args[key] = "./" + value
        text = json.dumps(args, ensure_ascii=False, indent=None if variant != 1 else 1)
        return Reply(tool_calls=(ToolCall(tool, text),))

    policy.__name__ = f"keeps_calling_{tool}"
    return policy


def wanders(tool: str, key: str) -> Callable[[Conversation], Turn]:
    """A model that never repeats itself: ``{key: "option-1"}``, ``"option-2"``, ...

    Repeat detection cannot catch it; only the no-progress guard can tell
    that the answers it gets back are all the same.
    """

    def policy(conversation: Conversation) -> Turn:
        return Reply(tool_calls=(ToolCall(tool, {key: f"option-{conversation.request_number}"}),))

    policy.__name__ = f"wanders_{tool}"
    return policy


def flaky(
    policy: Callable[[Conversation], Turn], failures: int = 1, status: int = 429
) -> Callable[[Conversation], Turn]:
    """The first ``failures`` requests get HTTP ``status``; later ones go to ``policy``."""

    def wrapped(conversation: Conversation) -> Turn:
        if conversation.request_number <= failures:
            return HttpError(status, tr("faults.slow_down") if status == 429 else tr("faults.busy"))
        return policy(conversation)

    wrapped.__name__ = f"flaky_{getattr(policy, '__name__', 'policy')}"
    return wrapped


def slow_check(seconds: float, result: bool = True) -> Callable[[str], bool]:
    """A completion check that takes ``seconds`` (think: a slow CI run)."""
    _checked_seconds("seconds", seconds)

    def check(answer: str) -> bool:
        time.sleep(seconds)
        return result

    return check

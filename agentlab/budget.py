"""Budgets: every limit of a run in one place, and the guards that enforce them.

``Budget`` is a frozen dataclass of numbers. ``Budget.guards()`` turns it into
small named guard objects, fresh for each run. The loop consults them at
three moments and never contains a limit of its own:

- ``before_step(run)``: may the next step start? (steps, deadline, tokens)
- ``check_call(run, call, position)``: may this tool call run? A guard can
  *refuse* it (the model gets an error result explaining why, the call is not
  executed) or *stop* the run. (repeated calls, calls per turn)
- ``after_step(run, new_fingerprints)``: did the step achieve anything?
  (no progress)

Resource limits (steps, time, tokens) stop runs that cost too much; semantic
limits (repeats, no progress) stop runs that go round in circles cheaply.
The limit lives in host code, not in the prompt: a model told "do not loop"
can still loop, a guard cannot be talked out of its number.

Only the step cap and output truncation are on by default; chapter 03
switches the rest on (see :meth:`Budget.seed_table`).
"""

from __future__ import annotations

import json
import posixpath
from collections import Counter
from dataclasses import dataclass, field, fields
from typing import Any

from .request import CallRequest
from .result import RunState
from .tools.registry import ToolResult, error

MAX_STEPS = 4  # chapter 02's cap, small so the demo stops quickly
DEFAULT_MAX_STEPS = 24  # chapter 01's cap: room for honest multi-step tasks


@dataclass(frozen=True)
class Stop:
    """End the run: why, in one word and in a sentence."""

    reason: str
    message: str
    phase: str | None = None


@dataclass(frozen=True)
class Refuse:
    """Do not execute this call; send the model ``result`` instead."""

    result: ToolResult


class Guard:
    """A guard that never objects; real guards override the hooks they need."""

    def before_step(self, run: RunState) -> Stop | None:
        return None

    def check_call(self, run: RunState, call: CallRequest, position: int) -> Stop | Refuse | None:
        return None

    def after_step(self, run: RunState, new_fingerprints: int) -> Stop | None:
        return None


@dataclass
class StepGuard(Guard):
    """One step = one model request plus the handling of its tool calls."""

    max_steps: int

    def before_step(self, run: RunState) -> Stop | None:
        if run.steps >= self.max_steps:
            return Stop(
                "max_steps",
                f"reached the step budget max_steps={self.max_steps} without a final answer",
            )
        return None


@dataclass
class DeadlineGuard(Guard):
    """No new step once the run's single deadline has passed."""

    def before_step(self, run: RunState) -> Stop | None:
        if run.deadline.expired():
            return Stop(
                "deadline",
                f"the run's {run.deadline.max_seconds} s are used up before step {run.steps + 1}",
                phase="decide",
            )
        return None


@dataclass
class TokenGuard(Guard):
    """Total tokens, as the replies' ``usage`` reported them."""

    max_tokens: int

    def before_step(self, run: RunState) -> Stop | None:
        if run.tokens >= self.max_tokens:
            return Stop("max_tokens", f"used {run.tokens} tokens of a budget of {self.max_tokens}")
        return None


@dataclass
class CallsPerTurnGuard(Guard):
    """One reply may ask for many tools; only the first ``max_calls`` run."""

    max_calls: int

    def check_call(self, run: RunState, call: CallRequest, position: int) -> Stop | Refuse | None:
        if position >= self.max_calls:
            return Refuse(
                error(
                    "TOO_MANY_CALLS",
                    f"only {self.max_calls} tool call(s) per turn are executed; "
                    f"{call.name} was skipped. Ask for it again in the next turn if needed.",
                )
            )
        return None


@dataclass
class RepeatGuard(Guard):
    """The same tool with the same (normalised) arguments, again and again.

    At the ``hint_at``-th identical call the call is not executed and the
    model is told to change strategy; at the ``stop_at``-th the run stops.
    """

    hint_at: int | None
    stop_at: int | None
    seen: Counter = field(default_factory=Counter)

    def check_call(self, run: RunState, call: CallRequest, position: int) -> Stop | Refuse | None:
        key = call_key(call.name, call.arguments)
        self.seen[key] += 1
        count = self.seen[key]
        if self.stop_at is not None and count >= self.stop_at:
            return Stop("repeat_call", f"identical call number {count}: {key}")
        if self.hint_at is not None and count >= self.hint_at:
            return Refuse(
                error(
                    "REPEATED_CALL",
                    f"this exact call was already made {count - 1} times and was not run "
                    "again. Change strategy or give your final answer.",
                )
            )
        return None


@dataclass
class NoProgressGuard(Guard):
    """Steps that add no tool-result fingerprint not seen before in the run."""

    max_no_progress: int
    streak: int = 0

    def after_step(self, run: RunState, new_fingerprints: int) -> Stop | None:
        self.streak = 0 if new_fingerprints else self.streak + 1
        if self.streak >= self.max_no_progress:
            last = run.tool_results[-1] if run.tool_results else None
            where = (
                f"{last['tool']}({last['normalized_args']})"
                if last
                else "answers the check rejected"
            )
            return Stop(
                "no_progress",
                f"{self.streak} steps in a row brought nothing new; stuck at {where}",
            )
        return None


@dataclass(frozen=True)
class Budget:
    """All the limits of one run. ``None`` means "no limit"."""

    max_steps: int = DEFAULT_MAX_STEPS
    max_seconds: float | None = None
    max_repeats: int | None = None  # the identical call that stops the run
    repeat_hint_at: int | None = None  # the identical call refused with a hint
    max_no_progress: int | None = None
    max_tool_calls_per_turn: int | None = None
    max_tool_output_chars: int | None = 8000
    max_tokens: int | None = None
    max_retries: int = 0
    retry_backoff_s: float = 0.2  # first wait; doubles on every retry

    def __post_init__(self) -> None:
        if not isinstance(self.max_steps, int) or self.max_steps < 1:
            raise ValueError(f"max_steps must be a positive integer, got {self.max_steps!r}")
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name != "max_steps" and value is not None and value < 0:
                raise ValueError(f"{f.name} must not be negative, got {value!r}")
        if self.max_seconds is not None and self.max_seconds <= 0:
            raise ValueError("max_seconds must be positive (or None for no limit)")

    @classmethod
    def seed_table(cls, **overrides: Any) -> Budget:
        """Chapter 03's four failure budgets: 25 steps, 8 minutes, repeated call
        refused at the 3rd and stopped at the 4th, 4 steps without progress."""
        values: dict[str, Any] = dict(
            max_steps=25, max_seconds=8 * 60, repeat_hint_at=3, max_repeats=4, max_no_progress=4
        )
        return cls(**{**values, **overrides})

    @classmethod
    def strict_repeats(cls, **overrides: Any) -> Budget:
        """A controller that stops at the 2nd identical call (seed 004)."""
        return cls(**{"max_repeats": 2, "repeat_hint_at": None, **overrides})

    def guards(self) -> list[Guard]:
        guards: list[Guard] = [StepGuard(self.max_steps)]
        if self.max_seconds is not None:
            guards.append(DeadlineGuard())
        if self.max_tokens is not None:
            guards.append(TokenGuard(self.max_tokens))
        if self.max_tool_calls_per_turn is not None:
            guards.append(CallsPerTurnGuard(self.max_tool_calls_per_turn))
        if self.max_repeats is not None or self.repeat_hint_at is not None:
            guards.append(RepeatGuard(self.repeat_hint_at, self.max_repeats))
        if self.max_no_progress is not None:
            guards.append(NoProgressGuard(self.max_no_progress))
        return guards


# One encoder, made once: json.dumps with options builds a new one per call.
CANONICAL_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def call_key(name: str, arguments: str | None) -> str:
    """Tool name + arguments in one canonical spelling, for repeat detection.

    Key order and JSON whitespace do not matter, and path arguments are
    normalised (``./sales.csv`` and ``sales.csv`` are the same call).
    """
    try:
        parsed = json.loads(arguments) if arguments and arguments.strip() else {}
    except json.JSONDecodeError:
        return f"{name}:{(arguments or '').strip()}"
    return f"{name}:{canonical_arguments(parsed)}"


def canonical_arguments(parsed: Any) -> str:
    """Parsed arguments in one canonical JSON spelling (sorted keys, paths normalised)."""
    return CANONICAL_JSON.encode(_normalise(parsed))


def normalized_arguments(arguments: str | None) -> str:
    """Just the canonical arguments part of :func:`call_key`."""
    return call_key("", arguments)[1:]


def _normalise(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: _normalise(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    if isinstance(value, str) and key.endswith("path") and value.strip():
        return posixpath.normpath(value.strip())
    return value

"""Budgets: every limit of a run in one place, and the guards that enforce them.

``Budget`` is a frozen dataclass of numbers. ``Budget.guards()`` turns it into
small named guard objects, fresh for each run. The loop consults them at
four moments and never contains a limit of its own:

- ``before_step(run)``: may the next step start? (steps, deadline, tokens)
- ``check_call(run, call, position)``: may this tool call run? A guard can
  *refuse* it (the model gets an error result explaining why, the call is not
  executed) or *stop* the run. (repeated calls, calls per turn)
- ``after_step(run)``: did the step achieve anything? (no progress)
- ``last_step(run)``: with ``Budget(wrap_up=True)``, is the budget about to
  run out, so that the next step should be the reserved last word? (steps,
  deadline, tokens)

Resource limits (steps, time, tokens) stop runs that cost too much; semantic
limits (repeats, no progress) stop runs that go round in circles cheaply.
The limit lives in host code, not in the prompt: a model told "do not loop"
can still loop, a guard cannot be talked out of its number.

Only the step cap and output truncation are on by default; the chapters
switch the rest on one at a time (chapter 02 the calls per turn, chapter 03
the seed's failure budgets, :meth:`Budget.seed_table`, then tokens and the
wrap-up).
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..i18n import tr
from ..tools.registry import call_key, error
from .context import MIN_OUTPUT_CHARS
from .result import Refuse, RunState, Stop, records_of_step

if TYPE_CHECKING:
    from ..model.request import CallRequest

DEFAULT_MAX_STEPS = 24  # Budget()'s cap: room for honest multi-step tasks
DEMO_MAX_STEPS = 4  # chapter 02's cap (and `agentlab run`'s): a runaway demo stops at once
SEED_REPEATS = {"repeat_hint_at": 3, "max_repeats": 4}
"""Seed 002's rule: the 3rd identical call is refused with a hint, the 4th stops the run."""


class Guard:
    """A guard that never objects; real guards override the hooks they need."""

    def before_step(self, run: RunState) -> Stop | None:
        return None

    def check_call(self, run: RunState, call: CallRequest, position: int) -> Stop | Refuse | None:
        return None

    def after_step(self, run: RunState) -> Stop | None:
        return None

    def last_step(self, run: RunState) -> Stop | None:
        return None


@dataclass
class StepGuard(Guard):
    """One step = one model request plus the handling of its tool calls."""

    max_steps: int

    def before_step(self, run: RunState) -> Stop | None:
        if run.steps >= self.max_steps:
            return Stop("max_steps", tr("guard.max_steps", cap=self.max_steps))
        return None

    def last_step(self, run: RunState) -> Stop | None:
        if run.steps + 1 >= self.max_steps:  # the next step is the last one
            return Stop("max_steps", tr("guard.max_steps", cap=self.max_steps))
        return None


@dataclass
class DeadlineGuard(Guard):
    """No new step once the run's single deadline has passed."""

    def before_step(self, run: RunState) -> Stop | None:
        if run.deadline.expired():
            message = tr("guard.deadline", seconds=run.deadline.max_seconds, step=run.steps + 1)
            return Stop("deadline", message, phase="decide")
        return None

    def last_step(self, run: RunState) -> Stop | None:
        """Too little time for one more step *and* a last word after it.

        A step costs about the slowest model request plus the slowest tool so
        far; the last word, a model request. With room for error, the last
        word comes when less than three of the slowest requests plus the
        slowest tool (and at least a fifth of the budget) is left. A request
        much slower than all before it can still miss the deadline.
        """
        slowest = {"decide": 0.0, "tool": 0.0}
        for event in run.trace.events:
            if event.get("phase") in slowest:
                slowest[event["phase"]] = max(slowest[event["phase"]], event["elapsed_s"])
        reserve = max(run.deadline.max_seconds / 5, 3 * slowest["decide"] + slowest["tool"])
        if run.deadline.remaining() < reserve:
            return Stop("deadline", tr("guard.deadline_near", seconds=run.deadline.max_seconds))
        return None


@dataclass
class TokenGuard(Guard):
    """Total tokens, as the replies' ``usage`` reported them."""

    max_tokens: int

    def before_step(self, run: RunState) -> Stop | None:
        if run.tokens >= self.max_tokens:
            return Stop("max_tokens", tr("guard.max_tokens", used=run.tokens, cap=self.max_tokens))
        return None

    def last_step(self, run: RunState) -> Stop | None:
        # The history grows, so the next request costs about what the last one did or
        # more (less only after fold_after_steps folded old results: then it is a guess).
        if run.tokens + run.last_turn_tokens >= self.max_tokens:
            return Stop("max_tokens", tr("guard.max_tokens", used=run.tokens, cap=self.max_tokens))
        return None


@dataclass
class CallsPerTurnGuard(Guard):
    """One reply may ask for many tools; only the first ``max_calls`` run."""

    max_calls: int

    def check_call(self, run: RunState, call: CallRequest, position: int) -> Stop | Refuse | None:
        if position >= self.max_calls:
            message = tr("guard.too_many_calls", cap=self.max_calls, name=call.name)
            return Refuse(error("TOO_MANY_CALLS", message))
        return None


@dataclass
class RepeatGuard(Guard):
    """The same tool with the same (normalised) arguments, again and again.

    At the ``hint_at``-th identical call the call is not executed and the
    model is told to change strategy; at the ``stop_at``-th the run stops.
    """

    hint_at: int | None
    stop_at: int | None
    seen: Counter[str] = field(default_factory=Counter)

    def check_call(self, run: RunState, call: CallRequest, position: int) -> Stop | Refuse | None:
        key = call_key(call.name, call.arguments)
        self.seen[key] += 1
        count = self.seen[key]
        if self.stop_at is not None and count >= self.stop_at:
            return Stop("repeat_call", tr("guard.repeat_stop", count=count, key=key))
        if self.hint_at is not None and count >= self.hint_at:
            return Refuse(error("REPEATED_CALL", tr("guard.repeat_hint", before=count - 1)))
        return None


@dataclass
class NoProgressGuard(Guard):
    """Steps that bring no tool result the run has not seen before.

    "Seen" is by fingerprint: what the model learned (a result's data or
    error), not where it came from. A step whose answer the completion check
    rejected brings nothing new either.
    """

    max_no_progress: int
    streak: int = 0
    seen: set[str] = field(default_factory=set)

    def after_step(self, run: RunState) -> Stop | None:
        this_step = records_of_step(run.tool_results, run.steps)
        learned = {r["fingerprint"] for r in this_step if r["fingerprint"]} - self.seen
        self.seen |= learned
        self.streak = 0 if learned else self.streak + 1
        if self.streak < self.max_no_progress:
            return None
        last = run.tool_results[-1] if run.tool_results else None
        where = f"{last['tool']}({last['normalized_args']})" if last else tr("guard.rejected")
        return Stop("no_progress", tr("guard.no_progress", steps=self.streak, where=where))


# What each field of Budget must hold. Checked once, when a Budget is made,
# so every guard can trust its number (no 0 steps, no NaN seconds, no True).
LIMIT_KINDS = {
    "max_steps": "count",
    "max_seconds": "seconds_or_none",
    "max_repeats": "repeat_or_none",  # the 2nd identical call is the first repeat
    "repeat_hint_at": "repeat_or_none",
    "max_no_progress": "count_or_none",
    "max_tool_calls_per_turn": "count_or_none",
    "max_tool_output_chars": "output_chars_or_none",
    "max_tokens": "count_or_none",
    "max_retries": "retries",
    "retry_backoff_s": "backoff",
    "wrap_up": "bool",
}


def _plain_number(value: Any) -> Any:
    """numpy's numbers (a cap read from a sweep's DataFrame is ``numpy.int64``) as
    Python's, so they count as limits and the trace can write them as JSON."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


def _fits(kind: str, value: Any) -> bool:
    """Does ``value`` hold a limit of this kind (see LIMIT_KINDS)?"""
    if value is None:
        return kind.endswith("_or_none")
    kind = kind.removesuffix("_or_none")
    if kind == "bool":
        return isinstance(value, bool)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False  # True is an int to Python, never a limit here
    if kind == "seconds":
        return math.isfinite(value) and value > 0
    if kind == "backoff":
        return math.isfinite(value) and value >= 0
    least = {"count": 1, "repeat": 2, "retries": 0, "output_chars": MIN_OUTPUT_CHARS}[kind]
    return isinstance(value, int) and value >= least


@dataclass(frozen=True)
class Budget:
    """All the limits of one run. ``None`` means "no limit"."""

    max_steps: int = DEFAULT_MAX_STEPS
    max_seconds: float | None = None
    """One deadline for the whole run, shared by every phase."""
    max_repeats: int | None = None
    """The identical call that stops the run (4: the 4th; at least the 2nd)."""
    repeat_hint_at: int | None = None
    """The identical call that is refused with a hint (3: the 3rd)."""
    max_no_progress: int | None = None
    """Steps in a row that bring nothing new."""
    max_tool_calls_per_turn: int | None = None
    max_tool_output_chars: int | None = 8000
    """Longer tool results are cut down before the model sees them (not a guard:
    ``RunState.record_tool`` in ``result.py`` applies it, with ``context.fit_result``)."""
    max_tokens: int | None = None
    max_retries: int = 0
    """Extra attempts for a model request that failed transiently."""
    retry_backoff_s: float = 0.2
    """The first wait before a retry; it doubles on every retry."""
    wrap_up: bool = False
    """Keep the last step for a tool-less request asking the model to sum up
    what it has, when the step, time or token budget is about to run out."""

    def __post_init__(self) -> None:
        for name, kind in LIMIT_KINDS.items():
            value = _plain_number(getattr(self, name))
            object.__setattr__(self, name, value)  # frozen: set once, here
            if not _fits(kind, value):
                rule = tr(f"budget.kind.{kind.removesuffix('_or_none')}", least=MIN_OUTPUT_CHARS)
                raise ValueError(tr("budget.bad_value", name=name, value=value, rule=rule))

    @classmethod
    def seed_table(cls, **overrides: Any) -> Budget:
        """Chapter 03's four failure budgets: 25 steps, 8 minutes, repeated call
        refused at the 3rd and stopped at the 4th, 4 steps without progress."""
        values = {"max_steps": 25, "max_seconds": 8 * 60, "max_no_progress": 4, **SEED_REPEATS}
        return cls(**{**values, **overrides})

    @classmethod
    def strict_repeats(cls, **overrides: Any) -> Budget:
        """A controller that stops at the 2nd identical call (seed 004)."""
        return cls(**{"max_repeats": 2, "repeat_hint_at": None, **overrides})

    def guards(self) -> list[Guard]:
        """Fresh guards for one run, for the limits that are switched on."""
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

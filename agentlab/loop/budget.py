"""Budgets: every limit of a run in one place.

``Budget`` is a frozen dataclass of numbers, checked once when it is made so
that every guard can trust its number (no 0 steps, no NaN seconds, no
``True``). ``None`` means "no limit". The loop turns them into the guards that
enforce them (``guards.py``, ``circles.py``); a limit lives in host code, not in the prompt: a model
told "do not loop" can still loop, a guard cannot be talked out of its number.

Only the step cap and output truncation are on by default; the chapters
switch the rest on one at a time (chapter 02 the calls per turn, chapter 03
the seed's failure budgets, :meth:`Budget.seed_table`, then tokens and the
wrap-up).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, fields
from typing import Any

from ..i18n import tr

DEFAULT_MAX_STEPS = 24  # Budget()'s cap: room for honest multi-step tasks
DEMO_MAX_STEPS = 4  # chapter 02's cap (and `agentlab run`'s): a runaway demo stops at once
MIN_OUTPUT_CHARS = 200  # below this not even a status and a truncation note fit
SEED_REPEATS = {"repeat_hint_at": 3, "max_repeats": 4}
"""Seed 002's rule: the 3rd identical call is refused with a hint, the 4th stops the run."""


def limit(default: Any, kind: str) -> Any:
    """A Budget field holding a limit of ``kind`` (what :func:`_fits` accepts)."""
    return field(default=default, metadata={"kind": kind})


@dataclass(frozen=True)
class Budget:
    """All the limits of one run. ``None`` means "no limit"."""

    max_steps: int = limit(DEFAULT_MAX_STEPS, "count")
    max_seconds: float | None = limit(None, "seconds_or_none")
    """One deadline for the whole run, shared by every phase."""
    max_repeats: int | None = limit(None, "repeat_or_none")
    """The identical call that stops the run (4: the 4th; at least the 2nd)."""
    repeat_hint_at: int | None = limit(None, "repeat_or_none")
    """The identical call that is refused with a hint (3: the 3rd)."""
    max_no_progress: int | None = limit(None, "count_or_none")
    """Steps in a row that bring nothing new."""
    max_tool_calls_per_turn: int | None = limit(None, "count_or_none")
    max_tool_output_chars: int | None = limit(8000, "output_chars_or_none")
    """Longer tool results are cut down before the model sees them (``context.py``)."""
    max_tokens: int | None = limit(None, "count_or_none")
    max_retries: int = limit(0, "retries")
    """Extra attempts for a model request that failed transiently."""
    retry_backoff_s: float = limit(0.2, "backoff")
    """The first wait before a retry; it doubles on every retry."""
    wrap_up: bool = limit(False, "bool")
    """Keep the last step for a tool-less request asking the model to sum up
    what it has, when the step, time or token budget is about to run out."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = _plain_number(getattr(self, f.name))
            object.__setattr__(self, f.name, value)  # frozen: set once, here
            if not _fits(f.metadata["kind"], value):
                kind = f.metadata["kind"].removesuffix("_or_none")
                rule = tr(f"budget.kind.{kind}", least=MIN_OUTPUT_CHARS)
                raise ValueError(tr("budget.bad_value", name=f.name, value=value, rule=rule))

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
    """Does ``value`` hold a limit of this kind?"""
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

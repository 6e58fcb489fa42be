"""Budgets: every limit of a run in one place, and the guards that enforce them.

``Budget`` is a frozen dataclass of numbers. ``Budget.guards()`` turns it into
small named guard objects; the loop asks each guard, before every step,
whether the run may go on. A guard answers ``None`` (go on) or a
:class:`Stop` (the stop reason and a readable message).

The limit lives in host code, not in the prompt: a model told "do not loop"
can still loop, a ``for`` loop with a cap cannot.

This module decides *whether* to stop; it does not call the model or tools.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .result import RunState

MAX_STEPS = 4  # chapter 02's cap, small so the demo stops quickly
DEFAULT_MAX_STEPS = 24  # chapter 01's cap: room for honest multi-step tasks


@dataclass(frozen=True)
class Stop:
    reason: str
    message: str


class Guard(Protocol):
    def before_step(self, run: RunState) -> Stop | None: ...


@dataclass(frozen=True)
class StepGuard:
    """One step = one model request plus the handling of its tool calls."""

    max_steps: int

    def before_step(self, run: RunState) -> Stop | None:
        if run.steps >= self.max_steps:
            return Stop(
                "max_steps",
                f"reached the step budget max_steps={self.max_steps} without a final answer",
            )
        return None


@dataclass(frozen=True)
class Budget:
    """All the limits of one run. ``None`` means "no limit" where allowed."""

    max_steps: int = DEFAULT_MAX_STEPS

    def __post_init__(self) -> None:
        if not isinstance(self.max_steps, int) or self.max_steps < 1:
            raise ValueError(f"max_steps must be a positive integer, got {self.max_steps!r}")

    def guards(self) -> list[Guard]:
        return [StepGuard(self.max_steps)]

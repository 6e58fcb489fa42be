"""The guards: small named objects that enforce a :class:`~agentlab.loop.budget.Budget`.

The loop (``agent.py``: ``guards_for``) makes fresh guards for one run. It
consults them at four moments and holds no limit of its own:

- ``before_step(run)``: may the next step start? (steps, deadline, tokens)
- ``check_call(run, call, position)``: may this tool call run? A guard can
  *refuse* it (the model gets an error result saying why) or *stop* the run.
  (calls per turn, repeated calls)
- ``after_step(run)``: did the step bring anything new? (no progress)
- ``last_step(run)``: with ``Budget(wrap_up=True)``, is the budget about to
  run out, so that the next step should be the reserved last word?

Resource limits (steps, time, tokens, calls per turn) are here: they stop
runs that cost too much. The guards against runs that go round in circles
cheaply (repeated calls, no progress) are in ``circles.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..i18n import tr
from ..tools.registry import error
from .result import Refuse, Stop

if TYPE_CHECKING:
    from ..model.turn import CallRequest
    from .state import RunState


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

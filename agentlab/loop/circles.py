"""Guards against runs that go round in circles: repeated calls, no progress.

A run can stay cheap and still get nowhere: the model calls the same tool
with the same arguments again and again, or every step brings back what the
run has already seen. Resource limits (``guards.py``) catch such runs only
late; these two catch them by what the steps bring.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..i18n import tr
from ..tools.registry import call_key, error
from .guards import Guard
from .result import Refuse, Stop, records_of_step

if TYPE_CHECKING:
    from ..model.turn import CallRequest
    from .state import RunState


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

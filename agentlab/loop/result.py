"""How a run ends: the words for it, the tool records, the result.

The words are the course's (tool status ``ok``/``error`` for one tool
execution; run status ``completed``/``failed`` for the whole run; the stop
reason; the outcome a table groups by). A call a guard refused
(``REPEATED_CALL``, ``TOO_MANY_CALLS``) or that never ran because the run
stopped (``NOT_RUN``) was no execution: it is counted apart, never as a tool
call or a tool error. :data:`ENDINGS` writes each stop
reason once, with the outcome it leads to; everything else derives from it.
This module records and classifies; it never decides when to stop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

from ..tools.registry import ToolResult

ENDINGS = {
    "answered": "completed",  # unless the last tool results hold a failure: tool_error
    "policy_denied": "tool_error",
    "max_steps": "budget_exhausted",
    "deadline": "budget_exhausted",
    "repeat_call": "budget_exhausted",
    "no_progress": "budget_exhausted",
    "max_tokens": "budget_exhausted",
    "model_error": "model_error",
    "invalid_task": "invalid_task",  # an empty task: no request was made
}
"""Every stop reason, and the outcome of a run that stops for it."""
STOP_REASONS = tuple(ENDINGS)
OUTCOMES = tuple(dict.fromkeys(ENDINGS.values()))
BUDGET_STOPS = frozenset(r for r, outcome in ENDINGS.items() if outcome == "budget_exhausted")


@dataclass(frozen=True)
class Stop:
    """End the run: the stop reason (a code) and a sentence saying why."""

    reason: str
    message: str = ""
    phase: str | None = None
    """For deadline stops: the phase that was running (decide, tool, complete)."""


@dataclass(frozen=True)
class Refuse:
    """Do not run this tool call; send the model ``result`` instead."""

    result: ToolResult


class ToolRecord(TypedDict):
    """One tool call of a run: what was asked, what came back, what the model got."""

    step: int
    call_id: str
    tool: str
    arguments: str  # as the model sent them (JSON text, maybe broken)
    normalized_args: str  # one canonical spelling, for repeats and reports
    status: str  # tool status: "ok" or "error"
    ran: bool  # False: refused by a guard, or never run because the run stopped
    error_class: str | None  # transient / invalid_input / permission / logic
    fingerprint: str | None  # what the model learned; None for calls not run
    truncated_chars: int  # characters cut before the model saw the result
    saved_to: str | None  # the full output, when it was truncated
    process: dict[str, Any] | None  # isolated tools: pid, exit code, killed
    result: ToolResult  # the whole structured result


def is_tool_failure(record: ToolRecord) -> bool:
    """An execution that failed. Logic errors are feedback, and a call refused or
    never run did not execute at all."""
    return record["ran"] and record["status"] == "error" and record["error_class"] != "logic"


def records_of_step(records: list[ToolRecord], step: int) -> list[ToolRecord]:
    """The records of one step, read from the end (records come in step order)."""
    found: list[ToolRecord] = []
    for record in reversed(records):
        if record["step"] != step:
            break
        found.append(record)
    return found[::-1]


def last_batch_failures(records: list[ToolRecord]) -> list[ToolRecord]:
    """The failed calls of the last step that ran tools (empty if none failed). A step
    whose calls were all refused leaves the results before it standing."""
    ran = [r for r in records if r["ran"]]
    if not ran:
        return []
    return [r for r in records_of_step(ran, ran[-1]["step"]) if is_tool_failure(r)]


def classify(stop_reason: str, records: list[ToolRecord]) -> str:
    """The outcome of a run from why it stopped and what its tools returned.

    An answer given right after a failed tool call reports a failure: the
    run ends ``tool_error``, not ``completed``.
    """
    if stop_reason == "answered" and last_batch_failures(records):
        return "tool_error"
    return ENDINGS[stop_reason]


@dataclass
class RunResult:
    """How one run ended. Every ending of ``run_agent`` is one of these.

    In Jupyter a result shows itself as a picture of the run (see
    ``agentlab/__init__.py``); ``print(result.answer)`` shows only the answer.
    """

    task_id: str
    status: str
    """Run status: ``completed`` or ``failed``."""
    outcome: str
    """One of :data:`OUTCOMES`."""
    stop_reason: str
    """One of :data:`STOP_REASONS`."""
    phase: str | None
    """For deadline stops: decide, tool or complete."""
    steps: int
    model_requests: int
    tool_calls: int
    """Tool calls that ran (executions)."""
    tool_errors: int
    """Executions that failed (logic errors are not failures)."""
    answer: str | None
    elapsed_s: float
    tokens: int
    tool_results: list[ToolRecord]
    messages: list[dict[str, Any]]
    warnings: list[str]
    trace_path: str | None = None
    partial_answer: str | None = None
    """Not an answer: what the model summed up when a budget ran out (wrap-up)."""
    calls_not_run: int = 0
    """Calls the model asked for that a guard refused or the stop left unrun."""
    events: list[dict[str, Any]] = field(default_factory=list, repr=False)
    """The trace events of the run, in order (also in ``trace_path`` when there is a file)."""
    reasoning: list[str | None] = field(default_factory=list, repr=False)
    """A thinking model's reasoning before each of its replies: one entry per
    assistant message in ``messages`` (``None`` where it showed none)."""

    def __repr__(self) -> str:
        return (
            f"RunResult(status={self.status!r}, outcome={self.outcome!r}, "
            f"stop_reason={self.stop_reason!r}, steps={self.steps}, "
            f"model_requests={self.model_requests}, tool_calls={self.tool_calls}, "
            f"calls_not_run={self.calls_not_run}, tool_errors={self.tool_errors})"
        )

    def to_dict(self) -> dict[str, Any]:
        """The seed's result shape, plus ``outcome`` and ``stop_reason``.

        ``report_path`` is part of the seed's shape; these runs write no
        report file, so it is always ``None``.
        """
        return {
            "task_id": self.task_id,
            "status": self.status,
            "report_path": None,
            "summary": {
                "answer": self.answer,
                "partial_answer": self.partial_answer,
                "steps": self.steps,
                "model_requests": self.model_requests,
                "tool_calls_used": self.tool_calls,
                "calls_not_run": self.calls_not_run,
                "tool_errors": self.tool_errors,
                "tokens": self.tokens,
                "tool_results": [
                    {"tool": r["tool"], "result": r["result"]} for r in self.tool_results
                ],
            },
            "warnings": list(self.warnings),
            "outcome": self.outcome,
            "stop_reason": self.stop_reason,
        }

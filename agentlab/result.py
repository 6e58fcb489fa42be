"""What a run did (``RunState``) and how it ended (``RunResult``).

Words used exactly as in the course brief:

- **tool status** ``ok``/``error`` belongs to one tool execution;
- **run status** ``completed``/``failed`` belongs to the whole run;
- **stop reason** says why the loop ended (:data:`STOP_REASONS`);
- **outcome** is the headline class a table groups by (:data:`OUTCOMES`).

Only the outcome ``completed`` has run status ``completed``. A run whose
tools all said ``ok`` can still fail (for example by running out of steps).

This module only records and classifies; it never decides when to stop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .deadline import Deadline
from .trace import Trace

STOP_REASONS = (
    "answered",
    "policy_denied",
    "max_steps",
    "deadline",
    "repeat_call",
    "no_progress",
    "max_tokens",
    "model_error",
    "invalid_task",
)
BUDGET_STOPS = frozenset({"max_steps", "deadline", "repeat_call", "no_progress", "max_tokens"})
OUTCOMES = ("completed", "tool_error", "budget_exhausted", "model_error", "invalid_task")


def classify(stop_reason: str, tool_results: list[dict[str, Any]]) -> str:
    """The outcome of a run from why it stopped and what its tools returned.

    An answer counts as ``completed`` only if the most recent batch of tool
    results (the last step that called tools) holds no error: a model that
    answers right after a failed tool call is reporting a failure.
    """
    if stop_reason == "answered":
        return "tool_error" if last_batch_failed(tool_results) else "completed"
    if stop_reason == "policy_denied":
        return "tool_error"
    if stop_reason in BUDGET_STOPS:
        return "budget_exhausted"
    if stop_reason == "model_error":
        return "model_error"
    if stop_reason == "invalid_task":
        return "invalid_task"
    raise ValueError(f"unknown stop reason {stop_reason!r}")


def is_tool_failure(record: dict[str, Any]) -> bool:
    """An error result that counts as a tool failure. Logic errors are feedback,
    and calls left unrun because the run stopped (``NOT_RUN``) did not fail."""
    if record["status"] != "error" or record.get("error_class") == "logic":
        return False
    return (record["result"].get("error") or {}).get("code") != "NOT_RUN"


def last_batch_failed(tool_results: list[dict[str, Any]]) -> bool:
    if not tool_results:
        return False
    last_step = tool_results[-1]["step"]
    return any(is_tool_failure(r) for r in tool_results if r["step"] == last_step)


@dataclass
class RunState:
    """The mutable record the loop keeps while a run is going on."""

    task_id: str
    deadline: Deadline = field(default_factory=lambda: Deadline(None))
    trace: Trace = field(default_factory=lambda: Trace(None))
    messages: list[dict[str, Any]] = field(default_factory=list)
    steps: int = 0
    model_requests: int = 0
    tokens: int = 0
    tool_results: list[dict[str, Any]] = field(default_factory=list)
    fingerprints: set[str] = field(default_factory=set)
    call_ids: set[str] = field(default_factory=set)  # every tool call id so far
    warnings: list[str] = field(default_factory=list)
    verified: bool = False  # an independent completion check said "done"

    @property
    def tool_calls(self) -> int:
        return len(self.tool_results)

    @property
    def tool_errors(self) -> int:
        return sum(1 for r in self.tool_results if is_tool_failure(r))

    def elapsed(self) -> float:
        return self.deadline.elapsed()

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def record_tool(self, record: dict[str, Any], content: str) -> bool:
        """Keep a tool call's record and put its ``role: tool`` message in history.

        ``content`` is the result as the model receives it (JSON, maybe
        truncated). Returns whether the result's fingerprint is new in this run.
        """
        record = {"step": self.steps, **record}
        self.tool_results.append(record)
        self.messages.append(
            {"role": "tool", "tool_call_id": record["call_id"], "content": content}
        )
        fingerprint = record.get("fingerprint")
        is_new = fingerprint is not None and fingerprint not in self.fingerprints
        if fingerprint is not None:
            self.fingerprints.add(fingerprint)
        return is_new

    def finish(
        self,
        stop_reason: str,
        *,
        answer: str | None = None,
        warning: str | None = None,
        phase: str | None = None,
    ) -> RunResult:
        outcome = "completed" if self.verified else classify(stop_reason, self.tool_results)
        warnings = list(self.warnings)
        if warning:
            warnings.append(warning)
        if stop_reason == "answered" and outcome == "tool_error":
            last_step = self.tool_results[-1]["step"]
            codes = ", ".join(
                f"{r['tool']}: {r['result']['error']['code']}"
                for r in self.tool_results
                if r["step"] == last_step and is_tool_failure(r)
            )
            warnings.append(f"the model answered right after a tool error ({codes})")
        result = RunResult(
            task_id=self.task_id,
            status="completed" if outcome == "completed" else "failed",
            outcome=outcome,
            stop_reason=stop_reason,
            phase=phase,
            steps=self.steps,
            model_requests=self.model_requests,
            tool_calls=self.tool_calls,
            tool_errors=self.tool_errors,
            answer=answer,
            elapsed_s=self.elapsed(),
            tokens=self.tokens,
            tool_results=list(self.tool_results),
            messages=list(self.messages),
            warnings=warnings,
            trace_path=self.trace.path,
        )
        self.trace.event(
            event="stop",
            step=self.steps,
            phase=phase,
            stop_reason=stop_reason,
            outcome=outcome,
            status=result.status,
            model_requests=self.model_requests,
            tokens=self.tokens,
            elapsed_s=round(result.elapsed_s, 4),
            warnings=warnings,
        )
        self.trace.close()
        return result


@dataclass
class RunResult:
    """How one run ended. Every ending of ``run_agent`` is one of these."""

    task_id: str
    status: str  # run status: "completed" | "failed"
    outcome: str  # see OUTCOMES
    stop_reason: str  # see STOP_REASONS
    phase: str | None  # decide / tool / complete, for deadline stops
    steps: int
    model_requests: int
    tool_calls: int
    tool_errors: int
    answer: str | None
    elapsed_s: float
    tokens: int
    tool_results: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    warnings: list[str]
    trace_path: str | None = None

    def __repr__(self) -> str:
        return (
            f"RunResult(status={self.status!r}, outcome={self.outcome!r}, "
            f"stop_reason={self.stop_reason!r}, steps={self.steps}, "
            f"model_requests={self.model_requests}, tool_calls={self.tool_calls}, "
            f"tool_errors={self.tool_errors})"
        )

    def to_dict(self) -> dict[str, Any]:
        """The seed's result shape, plus ``outcome`` and ``stop_reason``."""
        return {
            "task_id": self.task_id,
            "status": self.status,
            "report_path": None,  # this chapter writes no report file
            "summary": {
                "answer": self.answer,
                "steps": self.steps,
                "model_requests": self.model_requests,
                "tool_calls_used": self.tool_calls,
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

"""What a run did and how it ended: the records, the endings, the result.

Words used as in the course brief, plus one stop reason and outcome of our
own, ``invalid_task``, for a task that is empty before any request is made:

- **tool status** ``ok``/``error`` belongs to one tool execution;
- **run status** ``completed``/``failed`` belongs to the whole run;
- **stop reason** says why the loop ended (:data:`STOP_REASONS`);
- **outcome** is the headline class a table groups by (:data:`OUTCOMES`).

Only the outcome ``completed`` has run status ``completed``. A run whose
tools all said ``ok`` can still fail (for example by running out of steps).

The pieces:

- :class:`Stop` and :class:`Refuse`: the run's ending vocabulary. Whatever
  ends a run (a guard, the deadline, a failed model request, an answer)
  says so with a ``Stop``; a guard that blocks one tool call says ``Refuse``.
- :class:`ToolRecord`: one tool call of a run, as a typed dict.
- :class:`RunState`: the record the loop keeps while it runs; it puts each
  tool result in the history (as the model will read it) and in the trace.
- :class:`RunResult`: how the run ended; :func:`classify` gives its outcome.

This module records and classifies; it never decides when to stop.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from ..deadline import Deadline
from ..i18n import tr
from ..model.failures import SECRET_MIN_CHARS, without_secret_in
from ..tools.registry import RESULT_JSON, ToolResult, canonical_arguments
from ..tools.result import tool_error_class
from .context import fit_result
from .trace import Trace

if TYPE_CHECKING:  # only for annotations: budget.py imports this module
    from ..model.request import CallRequest
    from .budget import Budget, Guard

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

# Made once (json.dumps with options builds a new encoder per call); its
# spelling fixes every fingerprint a chapter shows, so it stays as it is.
FINGERPRINT_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str)


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
    error_class: str | None  # transient / invalid_input / permission / logic
    fingerprint: str | None  # what the model learned; None for calls not run
    truncated_chars: int  # characters cut before the model saw the result
    saved_to: str | None  # the full output, when it was truncated
    process: dict[str, Any] | None  # isolated tools: pid, exit code, killed
    result: ToolResult  # the whole structured result


def is_tool_failure(record: ToolRecord) -> bool:
    """An error that counts as a tool failure. Logic errors are feedback, and
    calls left unrun because the run stopped (``NOT_RUN``) did not fail."""
    if record["status"] != "error" or record["error_class"] == "logic":
        return False
    return (record["result"].get("error") or {}).get("code") != "NOT_RUN"


def records_of_step(records: list[ToolRecord], step: int) -> list[ToolRecord]:
    """The records of one step, read from the end: records come in step order,
    so a guard asking after every step never walks the whole run."""
    found: list[ToolRecord] = []
    for record in reversed(records):
        if record["step"] != step:
            break
        found.append(record)
    return found[::-1]


def last_batch_failures(records: list[ToolRecord]) -> list[ToolRecord]:
    """The failed calls of the last step that called tools (empty if none failed).

    Example: steps 1 (error), 2 (ok) -> ``[]``; steps 1 (ok), 2 (error, ok) ->
    ``[the step-2 error]``.
    """
    if not records:
        return []
    return [r for r in records_of_step(records, records[-1]["step"]) if is_tool_failure(r)]


def classify(stop_reason: str, records: list[ToolRecord]) -> str:
    """The outcome of a run from why it stopped and what its tools returned.

    An answer counts as ``completed`` only if the most recent batch of tool
    results (the last step that called tools) holds no failure: a model that
    answers right after a failed tool call is reporting a failure.
    """
    if stop_reason == "answered":
        return "tool_error" if last_batch_failures(records) else "completed"
    if stop_reason == "policy_denied":
        return "tool_error"
    if stop_reason in BUDGET_STOPS:
        return "budget_exhausted"
    if stop_reason in ("model_error", "invalid_task"):
        return stop_reason
    raise ValueError(f"unknown stop reason {stop_reason!r}")


def fingerprint(result: ToolResult) -> str:
    """What the model learns from a result, as a short hash: its data or its
    error, not where it came from (``source``). A tool may supply its own
    ``"fingerprint"`` (e.g. a job's state, to ignore a timestamp)."""
    if result.get("fingerprint"):
        return str(result["fingerprint"])
    learned = {"data": result.get("data"), "error": result.get("error")}
    try:
        text = FINGERPRINT_JSON.encode(learned)
    except TypeError:  # keys of mixed kinds ({2024: 5, "total": 5}) do not sort:
        # take them as the model reads them, as JSON text
        text = FINGERPRINT_JSON.encode(json.loads(json.dumps(learned, default=str)))
    # surrogatepass: a lone surrogate from a model's JSON still has one hash
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def real_key(client: object) -> str | None:
    """The client's API key if it is a real one, else None: placeholders such as
    the scripted client's are shorter than ``failures.SECRET_MIN_CHARS``. A key
    given as a function is known only once the SDK asked it, at the first request."""
    key = getattr(client, "api_key", None)
    # failures.is_secret's rule, written out: calling it would take every run into failures.py
    return key if isinstance(key, str) and len(key) >= SECRET_MIN_CHARS else None


@dataclass
class RunState:
    """The record the loop keeps while a run is going on."""

    task_id: str
    budget: Budget
    deadline: Deadline
    trace: Trace
    guards: list[Guard] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    steps: int = 0
    model_requests: int = 0
    tokens: int = 0
    last_turn_tokens: int = 0
    """Tokens of the most recent model request (the next one, carrying a longer
    history, costs about as much or more, unless old steps were folded)."""
    tool_results: list[ToolRecord] = field(default_factory=list)
    call_ids: set[str] = field(default_factory=set)
    """Every tool call id so far: a repeated one would make the history ambiguous."""
    warnings: list[str] = field(default_factory=list)
    verified: bool = False
    """An independent completion check said "done"."""
    on_reasoning: Callable[[str], None] | None = None
    """Shows a thinking model's reasoning as it streams in (``run_agent(on_reasoning=...)``)."""
    secret: str | None = field(default=None, repr=False)
    """The client's API key when it is a real one (``failures.is_secret``). Text enters
    a run by two doors, the model's turns (``request.py``) and the tools' results
    (:meth:`record_tool`); both clean it out there, so nothing the run keeps holds it."""

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)
            self.trace.event(event="warning", step=self.steps, message=message)

    def record_tool(
        self,
        call: CallRequest,
        result: ToolResult,
        *,
        ran: bool = True,
        elapsed: float = 0.0,
        process: dict[str, Any] | None = None,
        refused_by: str | None = None,
        as_json: str | None = None,
    ) -> ToolRecord:
        """Keep a call's result and put its ``role: tool`` message in the history.

        The model receives the result as JSON, cut down to the budget's
        ``max_tool_output_chars`` if it is longer (the full result is saved
        beside the trace). ``ran=False``: the call was refused or never run,
        so it taught the model nothing (no fingerprint). ``as_json``: the
        result as JSON, if the registry has already written it out. With a real
        key (``secret``) the result is cleaned of it first.
        """
        if self.secret:  # a tool may have read the key (a settings file): keep none of it
            result, as_json = without_secret_in(result, self.secret), None
        content = as_json if as_json is not None else RESULT_JSON.encode(result)
        removed, saved_to = 0, None
        limit = self.budget.max_tool_output_chars
        if limit and len(content) > limit:
            # named by step and position: a provider's call id may hold "/" or NUL
            position = len(records_of_step(self.tool_results, self.steps))
            saved_to = self.trace.save_output(f"step{self.steps}-{position + 1}", result)
            # The model is told where the full output is relative to the trace
            # folder, so what it reads does not depend on where runs are kept.
            shown_as = f"outputs/{Path(saved_to).name}" if saved_to else None
            content, removed = fit_result(result, limit, shown_as)
        code = (result.get("error") or {}).get("code")
        record = ToolRecord(
            step=self.steps,
            call_id=call.id,
            tool=call.name,
            arguments=call.arguments,
            normalized_args=canonical_arguments(call.arguments),
            status=result["status"],
            error_class=tool_error_class(code) if result["status"] == "error" else None,
            fingerprint=fingerprint(result) if ran else None,
            truncated_chars=removed,
            saved_to=saved_to,
            process=process,
            result=result,
        )
        self.tool_results.append(record)
        self.messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        self.trace.event(
            event="phase",
            phase="tool",
            step=self.steps,
            call_id=call.id,
            tool=call.name,
            args=record["normalized_args"],
            status=record["status"],
            error_code=code,
            error_class=record["error_class"],
            fingerprint=record["fingerprint"],
            truncated_chars=removed,
            elapsed_s=round(elapsed, 4),
            refused_by=refused_by,
            content=content,
        )
        return record

    def finish(
        self, stop: Stop, answer: str | None = None, partial_answer: str | None = None
    ) -> RunResult:
        """End the run: classify it, write the stop event, close the trace.

        The warnings are those raised along the way, then a trace that could
        not be written or a listener that broke, then the stop message, then
        (for an answer given right after a failed tool call) which calls
        failed, then (after a wrap-up) that the partial answer is no answer.
        ``partial_answer`` is what the model summed up when the budget ran
        out (``Budget(wrap_up=True)``).
        """
        outcome = "completed" if self.verified else classify(stop.reason, self.tool_results)
        warnings = list(self.warnings)
        # before the stop message, which people read last (warnings[-1] in the chapters)
        warnings += [note for note in (self.trace.failure, self.trace.listener_failure) if note]
        if stop.message:
            warnings.append(stop.message)
        if stop.reason == "answered" and outcome == "tool_error":
            failed = last_batch_failures(self.tool_results)
            codes = ", ".join(f"{r['tool']}: {r['result']['error']['code']}" for r in failed)
            warnings.append(tr("result.answered_after_error", codes=codes))
        if partial_answer is not None:
            warnings.append(tr("result.partial_answer"))
        ending = {
            "stop_reason": stop.reason,
            "outcome": outcome,
            "status": "completed" if outcome == "completed" else "failed",
            "phase": stop.phase,
            "steps": self.steps,
            "model_requests": self.model_requests,
            "tokens": self.tokens,
            "elapsed_s": self.deadline.elapsed(),
            "warnings": warnings,
            "answer": answer,
            "partial_answer": partial_answer,
        }
        elapsed = round(ending["elapsed_s"], 4)
        self.trace.event(event="stop", step=self.steps, **{**ending, "elapsed_s": elapsed})
        self.trace.close()
        return RunResult(
            task_id=self.task_id,
            tool_calls=len(self.tool_results),
            tool_errors=sum(1 for r in self.tool_results if is_tool_failure(r)),
            tool_results=list(self.tool_results),
            messages=list(self.messages),
            trace_path=self.trace.path,
            events=list(self.trace.events),
            reasoning=[
                event.get("reasoning")
                for event in self.trace.events
                if event.get("phase") == "decide" and event.get("status") == "ok"
            ],
            **ending,
        )


@dataclass
class RunResult:
    """How one run ended. Every ending of ``run_agent`` is one of these."""

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
    tool_errors: int
    answer: str | None
    elapsed_s: float
    tokens: int
    tool_results: list[ToolRecord]
    messages: list[dict[str, Any]]
    warnings: list[str]
    trace_path: str | None = None
    partial_answer: str | None = None
    """Not an answer: what the model summed up when a budget ran out (wrap-up)."""
    events: list[dict[str, Any]] = field(default_factory=list, repr=False)
    """The trace events of the run, in order (also in ``trace_path`` when there is a file)."""
    reasoning: list[str | None] = field(default_factory=list, repr=False)
    """What a thinking model reasoned before each of its replies, in order: one
    entry per assistant message in ``messages`` (``None`` where it showed none)."""

    def __repr__(self) -> str:
        return (
            f"RunResult(status={self.status!r}, outcome={self.outcome!r}, "
            f"stop_reason={self.stop_reason!r}, steps={self.steps}, "
            f"model_requests={self.model_requests}, tool_calls={self.tool_calls}, "
            f"tool_errors={self.tool_errors})"
        )

    def _repr_html_(self) -> str:
        """Jupyter shows a run as a picture: badges, steps, tool calls, timeline."""
        from ..course.display import run_html  # only notebooks pay for the renderer

        return run_html(self)

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

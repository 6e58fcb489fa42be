"""What the loop keeps while a run goes on, and how it ends the run.

:class:`RunState` holds the history and the counters. It puts each tool
result into the history as the model will read it (cut to the budget's
``max_tool_output_chars``, cleaned of the API key) and into the trace; at
the end it classifies the run into a :class:`~agentlab.loop.result.RunResult`.
It never decides when to stop: the guards and the loop do.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..deadline import Deadline
from ..i18n import tr
from ..model.secrets import Secret
from ..tools.registry import RESULT_JSON, ToolResult, canonical_arguments
from ..tools.result import tool_error_class
from .budget import Budget
from .context import fit_result
from .result import (
    RunResult,
    Stop,
    ToolRecord,
    classify,
    is_tool_failure,
    last_batch_failures,
    records_of_step,
)
from .trace import Trace

if TYPE_CHECKING:
    from ..model.turn import CallRequest

# Made once (json.dumps with options builds a new encoder per call); its
# spelling fixes every fingerprint a chapter shows, so it stays as it is.
FINGERPRINT_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str)


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


@dataclass
class RunState:
    """The record the loop keeps while a run is going on."""

    task_id: str
    budget: Budget
    deadline: Deadline
    trace: Trace
    secret: Secret = field(default_factory=lambda: Secret(None), repr=False)
    """Cleans the key out of every reply and tool result as it enters the run."""
    messages: list[dict[str, Any]] = field(default_factory=list)
    steps: int = 0
    model_requests: int = 0
    tokens: int = 0
    last_turn_tokens: int = 0
    """Tokens of the latest model request: the next one costs about as much or more."""
    tool_results: list[ToolRecord] = field(default_factory=list)
    call_ids: set[str] = field(default_factory=set)
    """Every tool call id so far: a repeated one would make the history ambiguous."""
    warnings: list[str] = field(default_factory=list)
    verified: bool = False
    """An independent completion check said "done"."""

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
        so it taught the model nothing (no fingerprint). ``as_json``: the result
        as JSON, when the registry has already written it out.
        """
        cleaned = self.secret.cleaned(result, as_json)  # a tool may have read the key
        if cleaned is not result or as_json is None:
            as_json = RESULT_JSON.encode(cleaned)
        result, content = cleaned, as_json
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
            ran=ran,
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
            ran=ran,
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
            tool_calls=sum(1 for r in self.tool_results if r["ran"]),
            calls_not_run=sum(1 for r in self.tool_results if not r["ran"]),
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

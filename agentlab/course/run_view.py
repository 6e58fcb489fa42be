"""What a page about one run shows, gathered from a ``RunResult`` or from its trace.

Both sources, the ``RunResult`` the loop returned (its ``messages`` and
``tool_results``, enriched with its trace events) and a JSONL trace alone
(what an instructor gets from a student), become the same :class:`RunView`:
the header facts, one :class:`StepView` per step with its :class:`CallView`
tool calls, and the phase :class:`Span` s of the timeline. Whatever a trace
lacks is left out. This module only gathers; it draws and writes nothing.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from ..loop.trace import read_trace
from ..tools.registry import too_deep

MAX_STEPS_SHOWN = 10_000  # a trace claiming more steps shows only those it has events for
GUARD_CODES = ("REPEATED_CALL", "TOO_MANY_CALLS")
NOT_RUN = "NOT_RUN"
SAVED_TO = re.compile(r"\boutputs/[\w.\-]+\.json")  # where truncation says the full output went

# -- the view: what a page shows, whichever source it came from -------------------------


@dataclass
class CallView:
    """One tool call and what came back."""

    name: str
    arguments: str | None  # the raw JSON text the model sent (or the normalised one)
    status: str | None  # tool status ok/error; None when unknown
    code: str | None = None
    message: str | None = None
    content: str | None = None  # the tool message exactly as the model received it
    truncated_chars: int = 0
    saved_to: str | None = None  # relative to the trace folder
    refused_by: str | None = None
    process: dict[str, Any] | None = None
    elapsed_s: float | None = None

    @property
    def kind(self) -> str:
        """ok / error, or refused (a guard said no) / not_run (the run had stopped)."""
        if self.code == NOT_RUN:
            return "not_run"
        if self.code in GUARD_CODES:
            return "refused"
        return self.status or "unknown"


@dataclass
class StepView:
    number: int
    replied: bool = False
    content: str | None = None
    reasoning: str | None = None
    failures: list[dict[str, Any]] = field(default_factory=list)  # decide attempts that failed
    calls: list[CallView] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)  # completion checks
    feedback: list[str] = field(default_factory=list)  # user messages sent back mid-run
    wrap_up: str | None = None  # the reserved last step (Budget(wrap_up=True)): which budget
    warnings: list[str] = field(default_factory=list)
    elapsed_s: float | None = None


@dataclass
class Span:
    step: int
    phase: str
    start: float
    duration: float
    status: str


@dataclass
class RunView:
    task_id: str | None
    task: str | None
    model: str | None
    status: str | None
    outcome: str | None
    stop_reason: str | None
    phase: str | None
    counts: dict[str, int | None]
    elapsed_s: float | None
    answer: str | None
    warnings: list[str]
    steps: list[StepView]
    system_prompt: str | None = None
    partial_answer: str | None = None
    max_seconds: float | None = None
    spans: list[Span] = field(default_factory=list)
    end_s: float | None = None
    finished: bool = True  # False: a trace without its stop event
    answer_recorded: bool = True  # False: an older trace, whose stop event has no answer


# -- building the view from a RunResult ----------------------------------------------------


def events_of(result: Any) -> list[dict[str, Any]]:
    """The run's trace events: ``result.events`` if it has them, else its trace file.

    A trace file is trusted only if its stop event agrees with the result (a
    later run with the same ``task_id`` overwrites the file).
    """
    events = getattr(result, "events", None)
    if events is not None:
        return [e for e in events if isinstance(e, dict)]
    path = getattr(result, "trace_path", None)
    if not path:
        return []
    try:
        events = [e for e in read_trace(path) if isinstance(e, dict)]
    except (OSError, ValueError):
        return []
    stop = next((e for e in reversed(events) if e.get("event") == "stop"), {})
    ours = (stop.get("stop_reason"), stop.get("model_requests"))
    return events if ours == (result.stop_reason, result.model_requests) else []


def view_of_result(result: Any) -> RunView:
    index = EventIndex(events_of(result))
    messages = list(result.messages or [])
    system = next((m.get("content") for m in messages if m.get("role") == "system"), None)
    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    task = messages[users[0]].get("content") if users else index.start.get("task")
    steps = {n: StepView(n) for n in range(1, result.steps + 1)}
    contents = {
        m.get("tool_call_id"): m.get("content") for m in messages if m.get("role") == "tool"
    }

    # The k-th assistant message is the reply of step k: a step whose model
    # request failed ends the run, so no step is skipped.
    replies = 0
    for i, message in enumerate(messages):
        if message.get("role") == "assistant":
            replies += 1
            step = steps.setdefault(replies, StepView(replies))
            step.replied = True
            step.content = message.get("content")
            step.reasoning = message.get("reasoning") or message.get("reasoning_content")
        elif message.get("role") == "user" and users and i != users[0] and replies:
            if replies + 1 in index.wrap_ups:
                continue  # the wrap-up request, shown as the wrap-up step's note
            feedback = str(message.get("content"))
            steps.setdefault(replies, StepView(replies)).feedback.append(feedback)

    for position, record in enumerate(result.tool_results):
        event = index.tool_event(record.get("call_id"), position)
        error = (record.get("result") or {}).get("error") or {}
        # What the model received at the time: the trace has it; the history may
        # have been folded since (fold_after_steps), and then the untruncated
        # result is what it had received.
        content = event.get("content")
        if content is None:
            content = contents.get(record.get("call_id"))
            full = json.dumps(record.get("result"), ensure_ascii=False)
            if isinstance(content, str) and not record.get("truncated_chars") and content != full:
                content = full
        call = CallView(
            name=str(record.get("tool")),
            arguments=record.get("arguments"),
            status=record.get("status"),
            code=error.get("code"),
            message=error.get("message"),
            content=content,
            truncated_chars=record.get("truncated_chars") or 0,
            saved_to=relative_output(record.get("saved_to")),
            refused_by=event.get("refused_by"),
            process=record.get("process"),
            elapsed_s=event.get("elapsed_s"),
        )
        steps.setdefault(step_of(record), StepView(step_of(record))).calls.append(call)

    for step in steps.values():
        index.enrich(step)
    counts = {
        "steps": result.steps,
        "model_requests": result.model_requests,
        "tool_calls": result.tool_calls,
        "calls_not_run": result.calls_not_run,
        "tool_errors": result.tool_errors,
        "tokens": result.tokens,
    }
    budget = index.start.get("budget") or {}
    return RunView(
        task_id=result.task_id,
        task=task,
        model=index.start.get("model"),
        status=result.status,
        outcome=result.outcome,
        stop_reason=result.stop_reason,
        phase=result.phase,
        counts=counts,
        elapsed_s=result.elapsed_s,
        answer=result.answer,
        warnings=list(result.warnings or []),
        steps=[steps[n] for n in sorted(steps)],
        system_prompt=system,
        partial_answer=getattr(result, "partial_answer", None),
        max_seconds=seconds(budget.get("max_seconds")) or None,
        spans=index.spans,
        end_s=index.end_s(result.elapsed_s),
    )


def relative_output(path: str | None) -> str | None:
    """``…/runs/<task>/outputs/x.json`` -> ``outputs/x.json`` (where it is beside the trace)."""
    if not path:
        return None
    parts = PurePath(str(path)).parts
    return "/".join(parts[-2:])


# -- building the view from trace events --------------------------------------------------


def view_of_events(events: list[dict[str, Any]]) -> RunView:
    index = EventIndex([e for e in events if isinstance(e, dict)])
    start, stop = index.start, index.stop
    numbers = {step_of(e) for e in index.phases + index.warning_events} | set(index.wrap_ups)
    last = step_of(stop) or max(numbers, default=0)
    known = numbers | set(range(1, last + 1) if last <= MAX_STEPS_SHOWN else ())
    steps = {n: StepView(n) for n in sorted(known - {0})}

    calls_asked: dict[str, dict[str, Any]] = {}
    for event in index.decides:
        step = steps.setdefault(step_of(event), StepView(step_of(event)))
        if event.get("status") == "ok":
            step.replied = True
            step.content = event.get("content")
            step.reasoning = event.get("reasoning")
            for asked in event.get("calls") or []:
                if isinstance(asked, dict) and asked.get("id"):
                    calls_asked[asked["id"]] = asked

    for event in index.tools:
        content = event.get("content")
        parsed = parse_json(content) if isinstance(content, str) else None
        error = (parsed.get("error") if isinstance(parsed, dict) else None) or {}
        asked = calls_asked.get(event.get("call_id") or "", {})
        saved = event.get("saved_to")
        if not saved and isinstance(content, str) and (found := SAVED_TO.search(content)):
            saved = found.group(0)
        call = CallView(
            name=str(event.get("tool")),
            arguments=asked.get("arguments", event.get("args")),
            status=event.get("status"),
            code=event.get("error_code"),
            message=error.get("message") if isinstance(error, dict) else None,
            content=content,
            truncated_chars=event.get("truncated_chars") or 0,
            saved_to=relative_output(saved),
            refused_by=event.get("refused_by"),
            process=event.get("process"),
            elapsed_s=event.get("elapsed_s"),
        )
        steps.setdefault(step_of(event), StepView(step_of(event))).calls.append(call)

    for step in steps.values():
        index.enrich(step)
    tools = index.tools
    counts = {
        "steps": step_of(stop) or last,
        "model_requests": stop.get("model_requests", len(index.decides)),
        "tool_calls": sum(1 for e in tools if ran(e)),
        "calls_not_run": sum(1 for e in tools if not ran(e)),
        "tool_errors": sum(1 for e in tools if is_tool_failure(e)),
        "tokens": stop.get("tokens"),
    }
    answer = stop.get("answer")
    if answer is None and stop.get("stop_reason") == "answered":
        replied = [s for s in steps.values() if s.replied]
        answer = replied[-1].content if replied else None  # older traces: the last reply
    budget = start.get("budget") or {}
    return RunView(
        task_id=start.get("task_id"),
        task=start.get("task"),
        model=start.get("model"),
        status=stop.get("status"),
        outcome=stop.get("outcome"),
        stop_reason=stop.get("stop_reason"),
        phase=stop.get("phase"),
        counts=counts,
        elapsed_s=stop.get("elapsed_s"),
        answer=answer,
        warnings=list(stop.get("warnings") or []),
        steps=[steps[n] for n in sorted(steps)],
        system_prompt=start.get("system_prompt"),
        partial_answer=stop.get("partial_answer"),
        max_seconds=seconds(budget.get("max_seconds")) or None,
        spans=index.spans,
        end_s=index.end_s(stop.get("elapsed_s")),
        finished=bool(stop),
        answer_recorded=answer is not None or "answer" in stop or not stop,
    )


def ran(event: dict[str, Any]) -> bool:
    """Did the call of this trace event execute? (Traces written before ``ran`` was
    recorded: a call refused by a guard or answered NOT_RUN did not.)"""
    if "ran" in event:
        return bool(event["ran"])
    return event.get("refused_by") is None and event.get("error_code") != NOT_RUN


def is_tool_failure(event: dict[str, Any]) -> bool:
    """As the run counts ``tool_errors``: an execution that failed, logic errors aside.

    The rule of :func:`agentlab.loop.result.is_tool_failure`, read off a trace event."""
    return ran(event) and event.get("status") == "error" and event.get("error_class") != "logic"


def parse_json(text: str) -> Any:
    """``text`` read as JSON, or ``None`` when it is not JSON or is nested too
    deep to lay out (the page then shows the text as it was sent)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return None if too_deep(value) else value


class EventIndex:
    """The events of one run, sorted by kind (any of them may be missing)."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        events = [clean(e) for e in events if isinstance(e, dict)]
        self.events = events
        self.start = next((e for e in events if e.get("event") == "start"), {})
        self.stop = next((e for e in reversed(events) if e.get("event") == "stop"), {})
        self.phases = [e for e in events if e.get("event") == "phase"]
        self.decides = [e for e in self.phases if e.get("phase") == "decide"]
        self.tools = [e for e in self.phases if e.get("phase") == "tool"]
        self.completes = [e for e in self.phases if e.get("phase") == "complete"]
        self.warning_events = [e for e in events if e.get("event") == "warning"]
        self.wrap_ups = {step_of(e): e.get("reason") for e in events if e.get("event") == "wrap_up"}
        self._by_call = {e["call_id"]: e for e in self.tools if e.get("call_id")}
        self.spans = phase_spans(self.phases)

    def tool_event(self, call_id: str | None, position: int) -> dict[str, Any]:
        """The tool event of a call: by its id, or else by position (same order)."""
        if call_id in self._by_call:
            return self._by_call[call_id]
        if not self._by_call and position < len(self.tools):
            return self.tools[position]
        return {}

    def enrich(self, step: StepView) -> None:
        """Add what only the events know: failed attempts, checks, warnings, time."""
        n = step.number
        if n in self.wrap_ups:
            step.wrap_up = self.wrap_ups[n] or "?"
        for event in self.decides:
            if event.get("step") == n and event.get("status") in ("error", "timeout"):
                step.failures.append(event)
            elif event.get("step") == n and step.reasoning is None:
                step.reasoning = event.get("reasoning")
        checks = [e for e in self.completes if e.get("step") == n]
        if checks:
            step.checks = checks
            step.feedback = []  # the feedback messages are what the checks said
        step.warnings = [str(e.get("message")) for e in self.warning_events if e.get("step") == n]
        spent = [s.duration for s in self.spans if s.step == n]
        step.elapsed_s = sum(spent) if spent else None

    def end_s(self, fallback: float | None) -> float | None:
        """When the run ended, in seconds from its start (the latest thing known)."""
        known = [s.start + s.duration for s in self.spans] + [self.stop.get("t"), fallback]
        return max((number(k) for k in known if k is not None), default=None)


def phase_spans(phases: list[dict[str, Any]]) -> list[Span]:
    """Each phase event as a bar on the run's time axis (seconds from the start)."""
    spans, clock = [], 0.0
    for event in phases:
        duration = number(event.get("elapsed_s"))
        t = event.get("t")
        # ``t`` is when the phase ended; old traces lack it: lay phases end to end
        start = max(0.0, number(t) - duration) if isinstance(t, (int, float)) else clock
        clock = start + duration
        spans.append(
            Span(
                step=step_of(event),
                phase=str(event.get("phase")),
                start=start,
                duration=duration,
                status=str(event.get("status")),
            )
        )
    return spans


def step_of(event: dict[str, Any]) -> int:
    """The step an event or record belongs to (0 when it says none, or nonsense)."""
    return count(event.get("step")) or 0


# A trace file may come from anywhere: every field is read as the type it should
# have, or as missing, so that nothing later trips over a list where text was due.
TEXT_FIELDS = (
    "event", "phase", "status", "task_id", "task", "model", "content", "reasoning", "tool",
    "args", "error_code", "error_class", "call_id", "refused_by", "message", "reason",
    "stop_reason", "outcome", "answer", "partial_answer", "system_prompt", "saved_to",
)  # fmt: skip
SECONDS_FIELDS = ("t", "elapsed_s")
COUNT_FIELDS = ("step", "attempt", "tokens", "model_requests", "truncated_chars")


def clean(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` with each known field of its expected type (or ``None``)."""
    out = dict(event)
    for fields, read in ((TEXT_FIELDS, text), (SECONDS_FIELDS, seconds), (COUNT_FIELDS, count)):
        for key in fields:
            if key in out:
                out[key] = read(out[key])
    if "calls" in out:
        calls = out["calls"] if isinstance(out["calls"], list) else []
        out["calls"] = [
            {key: text(c.get(key)) for key in ("id", "name", "arguments")}
            if isinstance(c, dict)
            else text(c)
            for c in calls
        ]
    if "warnings" in out:
        warnings = out["warnings"] if isinstance(out["warnings"], list) else []
        out["warnings"] = [text(w) for w in warnings]
    for key in ("budget", "process"):
        if key in out and not isinstance(out[key], dict):
            out[key] = None
    return out


def text(value: Any) -> str | None:
    """Text as it is; anything else (a number, a list) as its JSON."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def seconds(value: Any) -> float | None:
    """A finite, non-negative number of seconds, or ``None``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if math.isfinite(value) and value >= 0 else None  # 480 stays "480", not "480.0"


def count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def number(value: Any) -> float:
    return seconds(value) or 0.0

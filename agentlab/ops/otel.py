"""Export a run's trace as OpenTelemetry spans (GenAI semantic conventions).

A run already leaves a JSONL trace behind (``trace.py``). :func:`export_trace`
turns that trace, after the fact, into spans any OTLP tool (Jaeger, Phoenix,
Grafana Tempo, ...) can show on a timeline:

==================================  ==========  =====================================
span                                kind        one per
==================================  ==========  =====================================
``invoke_agent agentlab``           INTERNAL    run (the root; stop reason, outcome)
``chat {model}``                    CLIENT      model request (every attempt, retries too)
``execute_tool {tool}``             INTERNAL    tool record (refused and unrun calls too)
``completion_check``                INTERNAL    completion check (``done_when``)
==================================  ==========  =====================================

Names and attributes follow the conventions at :data:`SEMCONV_VERSION` (still
in development, so pinned; the tracer carries that version's schema URL).
Course facts with no convention of their own go under ``agentlab.``. A call a
guard refused or the stop left unrun was no execution: its span carries its code
in ``agentlab.tool.not_run`` and no ``error.type``. A phase
spans ``[t - elapsed_s, t]`` after the run's ``started_at``; a trace without
those times is laid out phase after phase, ending when its file was last
written (or from :data:`FALLBACK_ORIGIN`).

No message content is exported unless ``include_content=True``: no task,
answer, tool arguments or results, warning texts (a stop message can quote a
call) or a service's error text (some echo what was sent).

It neither instruments the loop live nor ships spans anywhere: the tracer
provider you pass (or the global one) decides. ``opentelemetry`` is the
optional extra ``agentlab[otel]``, imported only when :func:`export_trace` runs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from .. import __version__
from ..course.run_view import ran
from ..i18n import tr
from ..loop.trace import read_trace

SEMCONV_VERSION = "1.41.1"  # the last release with GenAI in the main semconv repository
SCHEMA_URL = f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}"
FALLBACK_ORIGIN = datetime(2000, 1, 1, tzinfo=UTC)  # for traces without started_at
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass
class Timed:
    """One phase of a run placed on the timeline, in seconds after the run started."""

    event: dict[str, Any]
    start: float
    end: float


@dataclass
class Timeline:
    """A trace laid out in time: the run, its phases in order, the moments in between."""

    start: dict[str, Any]  # the start event ({} if the trace has none)
    stop: dict[str, Any]  # the stop event ({} if the run never got that far)
    origin: datetime  # wall clock of t = 0
    phases: list[Timed]
    marks: list[tuple[float, str, dict[str, str]]]  # (when, name, attributes): warnings, wrap-up
    end: float  # when the run ended


def lay_out(events: Sequence[dict[str, Any]]) -> Timeline:
    """Place every phase of a trace on one timeline (plain Python, no OpenTelemetry).

    A start is never put before the previous phase's end: both are rounded to
    0.1 ms, so they can overlap by that much, while the loop runs phases one at
    a time. Without ``t`` the phases are laid end to end.
    """
    start = next((e for e in events if e.get("event") == "start"), {})
    stop = next((e for e in reversed(events) if e.get("event") == "stop"), {})
    started_at = start.get("started_at")
    origin = datetime.fromisoformat(started_at) if started_at else FALLBACK_ORIGIN
    timed = all("t" in e for e in events if e.get("event") in ("phase", "stop", "warning"))
    cursor, phases, marks = 0.0, [], []
    for event in events:
        kind = event.get("event")
        at = event.get("t", 0.0) if timed else cursor
        if kind == "phase":
            elapsed = event.get("elapsed_s", 0.0)
            end = max(at, cursor) if timed else cursor + elapsed
            phases.append(Timed(event, max(end - elapsed, cursor), end))
            cursor = end
        elif kind == "warning":
            marks.append((at, "agentlab.warning", {"agentlab.message": str(event["message"])}))
        elif kind == "wrap_up":  # the reserved last step begins (Budget(wrap_up=True))
            marks.append((at, "agentlab.wrap_up", {"agentlab.reason": str(event["reason"])}))
    ended = max(stop.get("t" if timed else "elapsed_s", 0.0), cursor)
    # The stop event lists every warning; those without an event of their own go at the stop.
    seen = {m[2].get("agentlab.message") for m in marks}
    for message in stop.get("warnings") or []:
        if str(message) not in seen:
            marks.append((ended, "agentlab.warning", {"agentlab.message": str(message)}))
    return Timeline(start, stop, origin, phases, marks, ended)


def export_trace(source: Any, tracer_provider: Any = None, *, include_content: bool = False) -> str:
    """Create the spans of one run at its real times; return its trace id (32 hex digits).

    ``source`` is a list of trace events, the path of a ``trace.jsonl``, or a
    :class:`~agentlab.RunResult`. ``tracer_provider`` defaults to OpenTelemetry's
    global one. ``include_content=True`` adds the opt-in content attributes.
    """
    try:
        from opentelemetry import trace
        from opentelemetry.semconv.schemas import Schemas
        from opentelemetry.trace import SpanKind, Status, StatusCode
    except ImportError as exc:
        raise ImportError(tr("otel.missing", module=exc.name or "opentelemetry")) from exc

    def failed(span: Any, error_type: str, description: str | None = None) -> None:
        span.set_attribute("error.type", error_type)  # successful spans stay UNSET
        span.set_status(Status(StatusCode.ERROR, description))

    events, task_id, written_at = _read_source(source)
    timeline = lay_out(events)
    if not timeline.start.get("started_at") and written_at:  # the file was last written at the stop
        timeline.origin = written_at - timedelta(seconds=timeline.end)
    model = timeline.start.get("model")
    common = _clean(  # every agentlab client speaks the OpenAI chat-completions API
        {
            "gen_ai.provider.name": "openai",
            "gen_ai.request.model": model,
            "gen_ai.conversation.id": timeline.start.get("task_id") or task_id,
        }
    )
    provider = tracer_provider or trace.get_tracer_provider()
    tracer = provider.get_tracer("agentlab", __version__, schema_url=Schemas(SCHEMA_URL).value)
    base = (timeline.origin - EPOCH) // timedelta(microseconds=1) * 1000  # exact, unlike a float

    def at(seconds: float) -> int:  # nanoseconds since the epoch, what the SDK takes
        return base + round(seconds * 1e9)

    root_facts = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "agentlab"}
    root = tracer.start_span(
        "invoke_agent agentlab",
        kind=SpanKind.INTERNAL,
        attributes={**root_facts, **common, **_run_attributes(timeline, include_content)},
        start_time=at(0.0),
    )
    inside = trace.set_span_in_context(root)
    for phase in timeline.phases:
        name, attributes, error = _phase_span(phase.event, model, common, include_content)
        kind = SpanKind.CLIENT if phase.event.get("phase") == "decide" else SpanKind.INTERNAL
        span = tracer.start_span(
            name, context=inside, kind=kind, attributes=attributes, start_time=at(phase.start)
        )
        if error:
            failed(span, *error)
        span.end(end_time=at(phase.end))
    for when, name, attributes in timeline.marks:
        if not include_content:  # a warning can quote a call (RepeatGuard's stop message)
            attributes = {k: v for k, v in attributes.items() if k != "agentlab.message"}
        root.add_event(name, attributes, timestamp=at(when))
    stop = timeline.stop
    if stop.get("status") == "failed":
        failed(root, str(stop.get("outcome")), f"stop_reason={stop.get('stop_reason')}")
    root.end(end_time=at(timeline.end))
    if hasattr(provider, "force_flush"):  # a batching exporter sends now, not at exit
        provider.force_flush()
    return format(root.get_span_context().trace_id, "032x")


def _run_attributes(timeline: Timeline, include_content: bool) -> dict[str, Any]:
    """The ``agentlab.*`` facts of the whole run, on the root span."""
    stop, start = timeline.stop, timeline.start
    facts = {
        "agentlab.stop_reason": stop.get("stop_reason"),
        "agentlab.outcome": stop.get("outcome"),
        "agentlab.status": stop.get("status"),
        "agentlab.phase": stop.get("phase"),  # where a deadline hit
        "agentlab.steps": stop.get("step"),
        "agentlab.model_requests": stop.get("model_requests"),
        "agentlab.tool_calls": sum(  # executions: a refused or unrun call is none
            p.event.get("phase") == "tool" and ran(p.event) for p in timeline.phases
        ),
        "agentlab.tokens": stop.get("tokens"),
        "agentlab.stream": start.get("stream"),
    }
    for key, value in (start.get("budget") or {}).items():
        facts[f"agentlab.loop.budget.{key}"] = value
    if include_content:
        facts["agentlab.task"] = start.get("task")
        facts["agentlab.answer"] = stop.get("answer")
        facts["agentlab.partial_answer"] = stop.get("partial_answer")
    return _clean(facts)


def _phase_span(
    event: dict[str, Any], model: str | None, common: dict[str, Any], include_content: bool
) -> tuple[str, dict[str, Any], tuple[str, str | None] | None]:
    """(name, attributes, error type and description or None) of one phase's span."""
    phase, status = event.get("phase"), event.get("status")
    facts: dict[str, Any] = {"agentlab.step": event.get("step")}
    error = ("timeout", None) if status == "timeout" else None
    if phase == "decide":
        calls, tokens = event.get("calls") or [], event.get("tokens")
        facts |= common | {
            "gen_ai.operation.name": "chat",
            "agentlab.attempt": event.get("attempt"),
        }
        if calls:  # call dicts, or names in older traces
            names = [str(c["name"] if isinstance(c, dict) else c) for c in calls]
            facts["agentlab.requested_tools"] = names
        if event.get("finish_reason"):
            facts["gen_ai.response.finish_reasons"] = [str(event["finish_reason"])]
        if isinstance(tokens, dict):  # a trace with the input/output split
            facts["gen_ai.usage.input_tokens"] = tokens.get("input_tokens")
            facts["gen_ai.usage.output_tokens"] = tokens.get("output_tokens")
        elif isinstance(tokens, int):
            facts["agentlab.usage.total_tokens"] = tokens
        if status == "error":  # a service's error text may echo what was sent
            text = event.get("message") if include_content else None
            error = (str(event.get("error_class") or "_OTHER"), text)
        if include_content and status == "ok":
            parts = [{"type": "text", "content": event["content"]}] if event.get("content") else []
            parts += [{"type": "tool_call", **c} for c in calls if isinstance(c, dict)]
            reason = event.get("finish_reason")
            message = {"role": "assistant", "parts": parts, "finish_reason": reason}
            facts["gen_ai.output.messages"] = json.dumps([message], ensure_ascii=False)
        return (f"chat {model}" if model else "chat"), _clean(facts), error
    if phase == "tool":
        tool = str(event.get("tool"))
        facts.update(
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": tool,
                "gen_ai.tool.call.id": event.get("call_id"),
                "gen_ai.tool.type": "function",  # run by the application, not by the provider
                "agentlab.tool.status": status,
                "agentlab.error_class": event.get("error_class"),
                "agentlab.refused_by": event.get("refused_by"),
                "agentlab.truncated_chars": event.get("truncated_chars"),
                "agentlab.tool.not_run": None if ran(event) else event.get("error_code"),
            }
        )
        if status == "error" and ran(event):  # a call that never ran did not fail
            error = (str(event.get("error_code") or "_OTHER"), None)
        if include_content:
            facts["gen_ai.tool.call.arguments"] = event.get("args")
            if status == "ok":  # the conventions record a result only for a successful call
                facts["gen_ai.tool.call.result"] = event.get("content")
        return f"execute_tool {tool}", _clean(facts), error
    # The completion check (no GenAI convention covers it): verdict done / not_done.
    facts.update({"agentlab.phase": phase, "agentlab.verdict": status})
    if include_content:
        facts["agentlab.reason"] = event.get("reason")
    return "completion_check", _clean(facts), error


def _clean(facts: dict[str, Any]) -> dict[str, Any]:
    """Drop unknown facts (None): OpenTelemetry attributes cannot hold None."""
    return {k: v for k, v in facts.items() if v is not None}


def _read_source(source: Any) -> tuple[list[dict[str, Any]], str | None, datetime | None]:
    """(events, task id, when the trace file was last written) of a list, a path or a RunResult."""
    if isinstance(source, str | Path):
        path = Path(source)
        events = read_trace(path)
        return events, path.parent.name, datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    if isinstance(source, list | tuple):
        return list(source), None, None
    if hasattr(source, "events") and hasattr(source, "trace_path"):
        if not source.events and not source.trace_path:
            raise ValueError(tr("otel.no_trace", task_id=source.task_id))
        return list(source.events or read_trace(source.trace_path)), source.task_id, None
    raise TypeError(tr("otel.bad_source", kind=type(source).__name__))

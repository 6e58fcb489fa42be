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

Names and attributes follow the OpenTelemetry GenAI semantic conventions at
the version pinned in :data:`SEMCONV_VERSION` (they are still in
development, so a pin is the only way to say what we emit). The tracer
carries that version's schema URL. Course facts with no convention of their
own (stop reason, outcome, step, budget) go under the ``agentlab.`` prefix.

Times: a trace event is written when its phase *ends*, so a phase spans
``[t - elapsed_s, t]`` after the run's ``started_at``. Traces written before
events had ``t``/``started_at`` are laid out phase after phase, ending when
the trace file was last written (or from :data:`FALLBACK_ORIGIN` for a bare
list of events): the order and durations are right, the gaps between phases
are not known.

Privacy: no message content is exported unless ``include_content=True``
(the conventions make content opt-in): no task text, answers, assistant
text, tool arguments or tool results, and no warning texts either, since
those can quote a call (the repeat guard's stop message names the call it
stopped): the warnings are then events without their words. A failed model
request's span says what kind of error it was, not the service's error text,
which some services write with what was sent in it.

What this module does not do: instrument the loop live, or ship spans
anywhere by itself. The tracer provider you pass (or the global one) decides
where spans go. ``opentelemetry`` is an optional extra
(``pip install 'agentlab[otel]'``), imported only when :func:`export_trace` runs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from .. import __version__
from ..i18n import tr
from ..loop.trace import read_trace

SEMCONV_VERSION = "1.41.1"  # the last release with GenAI in the main semconv repository
SCHEMA_URL = f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}"
PROVIDER = "openai"  # every agentlab client speaks the OpenAI chat-completions API
AGENT_NAME = "agentlab"
COMPLETION_CHECK = "completion_check"  # no GenAI convention covers it: a plain internal span
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
    stop: dict[str, Any] | None  # the stop event (None if the run never got that far)
    origin: datetime  # wall clock of t = 0
    phases: list[Timed]
    marks: list[tuple[float, str, dict[str, Any]]]  # (when, name, attributes): warnings, wrap-up
    end: float  # when the run ended


def lay_out(events: Sequence[dict[str, Any]], origin: datetime | None = None) -> Timeline:
    """Place every phase of a trace on one timeline (plain Python, no OpenTelemetry).

    With ``t`` on the events a phase spans ``[t - elapsed_s, t]``; a start is
    never put before the previous phase's end (both are rounded to 0.1 ms, so
    they can overlap by that much, while the loop runs phases one at a time).
    Without ``t`` the phases are laid end to end.
    """
    start = next((e for e in events if e.get("event") == "start"), {})
    stop = next((e for e in reversed(events) if e.get("event") == "stop"), None)
    if origin is None:
        origin = _parse_time(start.get("started_at")) or FALLBACK_ORIGIN
    timed = all("t" in e for e in events if e.get("event") in ("phase", "stop", "warning"))
    cursor, phases, marks = 0.0, [], []
    for event in events:
        kind = event.get("event")
        at = _number(event.get("t")) if timed else cursor
        if kind == "phase":
            elapsed = max(0.0, _number(event.get("elapsed_s")))
            end = max(at, cursor) if timed else cursor + elapsed
            begin = max(end - elapsed, cursor)
            phases.append(Timed(event, begin, end))
            cursor = end
        elif kind == "warning":
            marks.append((at, "agentlab.warning", {"agentlab.message": str(event.get("message"))}))
        elif kind == "wrap_up":  # the reserved last step begins (Budget(wrap_up=True))
            marks.append((at, "agentlab.wrap_up", {"agentlab.reason": str(event.get("reason"))}))
    ended = _number(stop.get("t") if timed else stop.get("elapsed_s")) if stop else 0.0
    ended = max(ended, cursor)
    # The stop event lists every warning of the run, plus the stop's own message;
    # older traces have no warning events, so those not seen yet are placed at the stop.
    seen = {m[2].get("agentlab.message") for m in marks}
    for message in (stop or {}).get("warnings") or []:
        if str(message) not in seen:
            marks.append((ended, "agentlab.warning", {"agentlab.message": str(message)}))
    return Timeline(start, stop, origin, phases, marks, ended)


def export_trace(
    source: Any,
    tracer_provider: Any = None,
    *,
    include_content: bool = False,
    provider: str = PROVIDER,
    agent_name: str = AGENT_NAME,
    origin: datetime | None = None,
) -> str:
    """Create the spans of one run; return its trace id (32 hex digits).

    ``source`` is a list of trace events, the path of a ``trace.jsonl``, or a
    :class:`~agentlab.RunResult` (its ``events``, else its trace file).
    ``tracer_provider`` defaults to OpenTelemetry's global one. Spans get the
    run's real times (``origin`` overrides the wall clock of the run's start).
    ``include_content=True`` adds the opt-in content attributes.
    """
    otel = _import_otel()
    run = _read_source(source)
    timeline = lay_out(run.events, origin)
    if origin is None and not timeline.start.get("started_at") and run.written_at:
        # An older trace: its file was last written when the run stopped.
        timeline.origin = run.written_at - timedelta(seconds=timeline.end)
    model = timeline.start.get("model")
    task_id = timeline.start.get("task_id") or run.task_id
    common = {otel.PROVIDER_NAME: provider}
    if model:
        common[otel.REQUEST_MODEL] = str(model)
    if task_id:
        common[otel.CONVERSATION_ID] = str(task_id)

    tracer_provider = tracer_provider or otel.trace.get_tracer_provider()
    tracer = tracer_provider.get_tracer("agentlab", __version__, schema_url=otel.schema_url)
    at = _clock(timeline.origin)
    root = tracer.start_span(
        f"invoke_agent {agent_name}",
        kind=otel.SpanKind.INTERNAL,
        attributes={
            otel.OPERATION_NAME: "invoke_agent",
            otel.AGENT_NAME: agent_name,
            **common,
            **_run_attributes(timeline, include_content, run.answer),
        },
        start_time=at(0.0),
    )
    inside = otel.trace.set_span_in_context(root)
    record_ids = iter(run.call_ids)
    for phase in timeline.phases:
        call_id = next(record_ids, None) if phase.event.get("phase") == "tool" else None
        name, kind, attributes, error = _phase_span(
            otel, phase.event, model, common, include_content, call_id
        )
        span = tracer.start_span(
            name, context=inside, kind=kind, attributes=attributes, start_time=at(phase.start)
        )
        _set_error(otel, span, error)
        span.end(end_time=at(phase.end))
    for when, name, attributes in timeline.marks:
        if not include_content:  # a warning can quote a call (RepeatGuard's stop message)
            attributes = {k: v for k, v in attributes.items() if k != "agentlab.message"}
        root.add_event(name, attributes, timestamp=at(when))
    stop = timeline.stop or {}
    if stop.get("status") == "failed":
        _set_error(otel, root, (str(stop.get("outcome")), f"stop_reason={stop.get('stop_reason')}"))
    root.end(end_time=at(timeline.end))
    if hasattr(tracer_provider, "force_flush"):  # a batching exporter sends now, not at exit
        tracer_provider.force_flush()
    return format(root.get_span_context().trace_id, "032x")


# -- the spans' attributes ---------------------------------------------------------------


def _run_attributes(
    timeline: Timeline, include_content: bool, answer: str | None
) -> dict[str, Any]:
    """The ``agentlab.*`` facts of the whole run, on the root span."""
    stop, start = timeline.stop or {}, timeline.start
    facts = {
        "agentlab.stop_reason": stop.get("stop_reason"),
        "agentlab.outcome": stop.get("outcome"),
        "agentlab.status": stop.get("status"),
        "agentlab.phase": stop.get("phase"),  # where a deadline hit
        "agentlab.steps": stop.get("step"),
        "agentlab.model_requests": stop.get("model_requests"),
        "agentlab.tool_calls": sum(
            1
            for p in timeline.phases
            if p.event.get("phase") == "tool" and p.event.get("ran", True)
        ),
        "agentlab.tokens": stop.get("tokens"),
        "agentlab.stream": start.get("stream"),
    }
    for key, value in (start.get("budget") or {}).items():
        facts[f"agentlab.loop.budget.{key}"] = value
    if include_content:
        facts["agentlab.task"] = start.get("task")
        facts["agentlab.answer"] = stop.get("answer", answer)
        facts["agentlab.partial_answer"] = stop.get("partial_answer")
    return _clean(facts)


def _phase_span(
    otel: Any,
    event: dict[str, Any],
    model: str | None,
    common: dict[str, Any],
    include_content: bool,
    call_id: str | None,
) -> tuple[str, Any, dict[str, Any], tuple[str, str | None] | None]:
    """(name, kind, attributes, error) of the span for one phase event."""
    phase, status = event.get("phase"), event.get("status")
    facts: dict[str, Any] = {"agentlab.step": event.get("step")}
    error = None
    if phase == "decide":
        facts.update(
            {
                otel.OPERATION_NAME: "chat",
                **common,
                "agentlab.attempt": event.get("attempt"),
                "agentlab.requested_tools": _call_names(event.get("calls")),
            }
        )
        if event.get("finish_reason"):
            facts[otel.FINISH_REASONS] = [str(event["finish_reason"])]
        facts.update(_usage(otel, event.get("tokens")))
        if status == "timeout":
            error = ("timeout", None)
        elif status == "error":  # a service's error text may echo what was sent
            text = event.get("message") if include_content else None
            error = (str(event.get("error_class") or "_OTHER"), text)
        if include_content and status == "ok":
            facts[otel.OUTPUT_MESSAGES] = _output_messages(event)
        return (f"chat {model}" if model else "chat"), otel.SpanKind.CLIENT, _clean(facts), error
    if phase == "tool":
        tool = str(event.get("tool"))
        facts.update(
            {
                otel.OPERATION_NAME: "execute_tool",
                otel.TOOL_NAME: tool,
                otel.TOOL_CALL_ID: event.get("call_id") or call_id,
                otel.TOOL_TYPE: "function",  # run by the application, not by the provider
                "agentlab.tool.status": status,
                "agentlab.error_class": event.get("error_class"),
                "agentlab.refused_by": event.get("refused_by"),
                "agentlab.truncated_chars": event.get("truncated_chars"),
            }
        )
        if status == "error":
            error = (str(event.get("error_code") or "_OTHER"), None)
        if include_content:
            facts[otel.TOOL_CALL_ARGUMENTS] = event.get("args")
            if status == "ok":  # the conventions record a result only for a successful call
                facts[otel.TOOL_CALL_RESULT] = event.get("content")
        return f"execute_tool {tool}", otel.SpanKind.INTERNAL, _clean(facts), error
    # The completion check: the verdict is done / not_done; only a timeout is an error.
    facts.update({"agentlab.phase": phase, "agentlab.verdict": status})
    if status == "timeout":
        error = ("timeout", None)
    if include_content:
        facts["agentlab.reason"] = event.get("reason")
    return COMPLETION_CHECK, otel.SpanKind.INTERNAL, _clean(facts), error


def _usage(otel: Any, tokens: Any) -> dict[str, Any]:
    """Input/output tokens when the trace has the split; otherwise the total, as ours."""
    if isinstance(tokens, dict):
        found = {
            otel.INPUT_TOKENS: tokens.get("input_tokens", tokens.get("prompt_tokens")),
            otel.OUTPUT_TOKENS: tokens.get("output_tokens", tokens.get("completion_tokens")),
        }
        return {k: int(v) for k, v in found.items() if v is not None}
    return {"agentlab.usage.total_tokens": tokens} if isinstance(tokens, int) else {}


def _call_names(calls: Any) -> list[str] | None:
    """Tool names a reply asked for: ``calls`` is names (older traces) or call dicts."""
    if not calls:
        return None
    return [str(c.get("name") if isinstance(c, dict) else c) for c in calls]


def _output_messages(event: dict[str, Any]) -> str:
    """The reply as the conventions' output-messages JSON (content is opt-in)."""
    parts: list[dict[str, Any]] = []
    if event.get("content"):
        parts.append({"type": "text", "content": event["content"]})
    for call in event.get("calls") or []:
        if isinstance(call, dict):
            parts.append({"type": "tool_call", **call})
    message = {"role": "assistant", "parts": parts, "finish_reason": event.get("finish_reason")}
    return json.dumps([message], ensure_ascii=False)


def _set_error(otel: Any, span: Any, error: tuple[str, str | None] | None) -> None:
    """Recording Errors: status ERROR, ``error.type``, a description when there is one."""
    if error is None:
        return  # status stays UNSET: the conventions leave successful spans alone
    kind, description = error
    span.set_attribute(otel.ERROR_TYPE, kind)
    span.set_status(otel.Status(otel.StatusCode.ERROR, description))


def _clean(facts: dict[str, Any]) -> dict[str, Any]:
    """Drop unknown facts (None): OpenTelemetry attributes cannot hold None."""
    return {k: v for k, v in facts.items() if v is not None}


# -- reading the source ------------------------------------------------------------------


@dataclass
class Source:
    """What an export reads: the events, plus what a RunResult knows that older traces lack."""

    events: list[dict[str, Any]]
    task_id: str | None = None
    call_ids: list[str] = field(default_factory=list)  # the tool records' ids, in order
    answer: str | None = None
    written_at: datetime | None = None  # when the trace file was last written (the stop)


def _read_source(source: Any) -> Source:
    """The events of a run, from a list of events, a trace file or a RunResult."""
    if isinstance(source, str | Path):
        path = Path(source)
        return Source(read_trace(path), task_id=path.parent.name, written_at=_modified(path))
    if isinstance(source, list | tuple):
        return Source(list(source))
    if hasattr(source, "tool_results") and hasattr(source, "trace_path"):
        events = getattr(source, "events", None)  # in memory, even with trace_dir=False
        written_at = _modified(Path(source.trace_path)) if source.trace_path else None
        if not events:
            if not source.trace_path:
                raise ValueError(tr("otel.no_trace", task_id=source.task_id))
            events = read_trace(source.trace_path)
        # Older traces name no call id on tool events; the records have them, in order.
        ids = [r.get("call_id") for r in source.tool_results]
        return Source(list(events), source.task_id, ids, source.answer, written_at)
    raise TypeError(tr("otel.bad_source", kind=type(source).__name__))


def _modified(path: Path) -> datetime | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    except OSError:
        return None


def _parse_time(value: Any) -> datetime | None:
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def _clock(origin: datetime):
    """Seconds after the run started -> nanoseconds since the epoch (what the SDK takes)."""
    base = (origin - EPOCH) // timedelta(microseconds=1) * 1000  # exact, unlike a float
    return lambda seconds: base + round(seconds * 1e9)


# -- the optional dependency -------------------------------------------------------------


@dataclass(frozen=True)
class _OTel:
    """The OpenTelemetry names we use, looked up once ``opentelemetry`` is importable."""

    trace: Any
    SpanKind: Any
    Status: Any
    StatusCode: Any
    schema_url: str
    ERROR_TYPE: str
    OPERATION_NAME: str
    PROVIDER_NAME: str
    REQUEST_MODEL: str
    CONVERSATION_ID: str
    AGENT_NAME: str
    FINISH_REASONS: str
    INPUT_TOKENS: str
    OUTPUT_TOKENS: str
    OUTPUT_MESSAGES: str
    TOOL_NAME: str
    TOOL_CALL_ID: str
    TOOL_TYPE: str
    TOOL_CALL_ARGUMENTS: str
    TOOL_CALL_RESULT: str


def _import_otel() -> _OTel:
    """Import OpenTelemetry now (not with agentlab), or say how to install it."""
    try:
        from opentelemetry import trace
        from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
        from opentelemetry.semconv.attributes.error_attributes import ERROR_TYPE
        from opentelemetry.semconv.schemas import Schemas
        from opentelemetry.trace import SpanKind, Status, StatusCode
    except ImportError as exc:
        raise ImportError(tr("otel.missing", module=exc.name or "opentelemetry")) from exc
    # The installed conventions package must know the pinned version.
    schema_url = Schemas(SCHEMA_URL).value
    return _OTel(
        trace=trace,
        SpanKind=SpanKind,
        Status=Status,
        StatusCode=StatusCode,
        schema_url=schema_url,
        ERROR_TYPE=ERROR_TYPE,
        OPERATION_NAME=gen_ai.GEN_AI_OPERATION_NAME,
        PROVIDER_NAME=gen_ai.GEN_AI_PROVIDER_NAME,
        REQUEST_MODEL=gen_ai.GEN_AI_REQUEST_MODEL,
        CONVERSATION_ID=gen_ai.GEN_AI_CONVERSATION_ID,
        AGENT_NAME=gen_ai.GEN_AI_AGENT_NAME,
        FINISH_REASONS=gen_ai.GEN_AI_RESPONSE_FINISH_REASONS,
        INPUT_TOKENS=gen_ai.GEN_AI_USAGE_INPUT_TOKENS,
        OUTPUT_TOKENS=gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS,
        OUTPUT_MESSAGES=gen_ai.GEN_AI_OUTPUT_MESSAGES,
        TOOL_NAME=gen_ai.GEN_AI_TOOL_NAME,
        TOOL_CALL_ID=gen_ai.GEN_AI_TOOL_CALL_ID,
        TOOL_TYPE=gen_ai.GEN_AI_TOOL_TYPE,
        TOOL_CALL_ARGUMENTS=gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS,
        TOOL_CALL_RESULT=gen_ai.GEN_AI_TOOL_CALL_RESULT,
    )

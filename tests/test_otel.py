"""OpenTelemetry export: every fault scenario of chapters 03 and 04 becomes spans that
follow the GenAI semantic conventions at the pinned version.

Each scenario is a run of ``tests/display_scenarios.py`` (the chapters' fault
tables, with shorter budgets, and the runs they show besides: token budget,
alternating polls, a tool's own timeout, truncation, the per-turn cap, an
unknown tool), played for real, exported into the SDK's in-memory exporter,
and checked: one ``invoke_agent`` root carrying the stop
reason; one ``chat`` span per model request and one ``execute_tool`` span per
tool record, all children of the root, in the run's order; names, kinds and
``gen_ai.operation.name`` as the conventions say; ``error.type`` with status
ERROR on exactly the spans that failed; every child inside the root, phases
one after another.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes
from opentelemetry.semconv.schemas import Schemas
from opentelemetry.trace import SpanKind, StatusCode

from agentlab import Budget, RunResult, run_agent
from agentlab.clients import ScriptedClient, say
from agentlab.course.faults import fault_tools, keeps_calling
from agentlab.loop.trace import read_trace
from agentlab.ops.otel import FALLBACK_ORIGIN, SCHEMA_URL, SEMCONV_VERSION, export_trace, lay_out
from agentlab.tools import ToolRegistry

from .display_scenarios import scenarios as course_scenarios

HANG_S = 1.0  # hung things outlive the run by this much at most


# -- the scenarios of the fault chapters (03 and 04) ----------------------------------------


def course_run(name: str):
    """A run of ``tests/display_scenarios.py``, played into ``tmp_path``."""
    return lambda tmp_path: course_scenarios()[name](task_id=name, trace_dir=tmp_path)


# Each scenario: how it is run, and the spans it must give, in order, after the root.
# "tool:NAME!CODE" is a failed tool call, "tool:NAME~CODE" one refused or never run
# (no execution, so no error), "chat!TYPE" a failed model request,
# "check" / "check!timeout" the completion check.
SCENARIOS = {
    "repeated call": (
        course_run("repeat"),
        "chat tool:same_result chat tool:same_result chat tool:same_result~REPEATED_CALL "
        "chat tool:same_result~NOT_RUN",
    ),
    "strict policy": (course_run("strict"), "chat tool:same_result chat tool:same_result~NOT_RUN"),
    "no progress": (course_run("wander"), " ".join(["chat tool:always_fails!UNAVAILABLE"] * 5)),
    "model hangs": (course_run("hung-decide"), "chat!timeout"),
    "tool hangs": (course_run("hung-tool"), "chat tool:hang!TOOL_ABANDONED"),
    "slow completion check": (course_run("hung-complete"), "chat check!timeout"),
    "shared deadline": (course_run("shared"), "chat tool:hang!TOOL_ABANDONED"),
    "isolated tool killed": (course_run("isolated"), "chat tool:hang_isolated!TOOL_KILLED"),
    "429 without retry": (course_run("flaky-0"), "chat!transient"),
    "429 retried twice": (course_run("flaky-2"), "chat!transient chat tool:analyze_csv chat"),
    "permission denied (stop)": (
        course_run("denied"),
        "chat tool:permission_denied!PERMISSION_DENIED",
    ),
    "permission denied (fed back)": (
        course_run("denied-fb"),
        "chat tool:permission_denied!PERMISSION_DENIED chat",
    ),
    "logic error": (
        course_run("logic"),
        "chat tool:run_tests!TESTS_FAILED chat tool:run_tests chat",
    ),
    "completion check": (course_run("done-when"), "chat check chat tool:write_text chat check"),
    "token budget": (course_run("tokens"), " ".join(["chat tool:analyze_csv"] * 5)),
    "alternating polls": (
        course_run("alternate"),
        " ".join(["chat tool:same_result"] * 4)
        + " chat tool:same_result~REPEATED_CALL chat tool:same_result~REPEATED_CALL",
    ),
    "a tool's own timeout": (course_run("tool-timeout"), "chat tool:check_status!TIMEOUT chat"),
    "truncated output": (course_run("huge"), "chat tool:huge_output chat"),
    "unknown tool": (course_run("unknown-tool"), "chat tool:delete_file!UNKNOWN_TOOL chat"),
    "per-turn cap": (
        course_run("per-turn"),
        "chat tool:analyze_csv " + "tool:analyze_csv~TOO_MANY_CALLS " * 2 + "chat",
    ),
}


@pytest.fixture
def exporter():
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    memory.provider = provider
    return memory


def export(source, exporter, **options) -> tuple[ReadableSpan, list[ReadableSpan]]:
    """Export ``source``; return the root span and the others in time order."""
    exporter.clear()
    trace_id = export_trace(source, exporter.provider, **options)
    spans = exporter.get_finished_spans()
    assert {format(s.context.trace_id, "032x") for s in spans} == {trace_id}
    roots = [s for s in spans if s.parent is None]
    assert len(roots) == 1
    children = sorted((s for s in spans if s.parent is not None), key=lambda s: s.start_time)
    return roots[0], children


def signature(span: ReadableSpan) -> str:
    """A span in the notation of SCENARIOS."""
    operation = span.attributes.get("gen_ai.operation.name")
    if operation == "chat":
        word = "chat"
    elif operation == "execute_tool":
        word = f"tool:{span.attributes['gen_ai.tool.name']}"
    else:
        word = "check"
    error_type = span.attributes.get("error.type")
    not_run = span.attributes.get("agentlab.tool.not_run")
    return f"{word}!{error_type}" if error_type else f"{word}~{not_run}" if not_run else word


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_fault_scenario_exports_spans_that_follow_the_conventions(name, exporter, tmp_path):
    build, expected = SCENARIOS[name]
    result: RunResult = build(tmp_path)
    root, children = export(result, exporter)
    model = "agentlab-scripted"

    # The root: one invoke_agent span for the run, with how the run ended.
    assert root.name == "invoke_agent agentlab"
    assert root.kind is SpanKind.INTERNAL  # an in-process agent
    assert root.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert root.attributes["gen_ai.provider.name"] == "openai"
    assert root.attributes["gen_ai.agent.name"] == "agentlab"
    assert root.attributes["gen_ai.conversation.id"] == result.task_id
    assert root.attributes["agentlab.stop_reason"] == result.stop_reason
    assert root.attributes["agentlab.outcome"] == result.outcome
    assert root.attributes["agentlab.status"] == result.status
    assert root.attributes["agentlab.steps"] == result.steps
    assert root.attributes["agentlab.model_requests"] == result.model_requests
    assert root.attributes["agentlab.tool_calls"] == result.tool_calls  # executions only
    if result.status == "failed":
        assert root.status.status_code is StatusCode.ERROR
        assert root.attributes["error.type"] == result.outcome
    else:
        assert root.status.status_code is StatusCode.UNSET
        assert "error.type" not in root.attributes
    assert root.instrumentation_scope.schema_url == SCHEMA_URL

    # The children, in the run's order, each failed exactly where it should.
    assert " ".join(signature(s) for s in children) == expected
    assert all(s.parent.span_id == root.context.span_id for s in children)
    for span in children:
        failed = span.status.status_code is StatusCode.ERROR
        assert failed == ("error.type" in span.attributes), span.name
        assert span.status.status_code in (StatusCode.ERROR, StatusCode.UNSET)

    chats = [s for s in children if s.attributes.get("gen_ai.operation.name") == "chat"]
    assert len(chats) == result.model_requests
    for span in chats:
        assert span.name == f"chat {model}"
        assert span.kind is SpanKind.CLIENT
        assert span.attributes["gen_ai.provider.name"] == "openai"
        assert span.attributes["gen_ai.request.model"] == model

    tools = [s for s in children if s.attributes.get("gen_ai.operation.name") == "execute_tool"]
    assert len(tools) == len(result.tool_results)
    for span, record in zip(tools, result.tool_results, strict=True):
        assert span.name == f"execute_tool {record['tool']}"
        assert span.kind is SpanKind.INTERNAL
        assert span.attributes["gen_ai.tool.name"] == record["tool"]
        assert span.attributes["gen_ai.tool.call.id"] == record["call_id"]
        assert span.attributes["gen_ai.tool.type"] == "function"
        assert span.attributes["agentlab.step"] == record["step"]
        code = (record["result"].get("error") or {}).get("code")
        failed = record["status"] == "error" and record["ran"]
        assert span.attributes.get("error.type") == (code if failed else None)
        assert span.attributes.get("agentlab.tool.not_run") == (None if record["ran"] else code)

    checks = [s for s in children if "gen_ai.operation.name" not in s.attributes]
    assert all(s.name == "completion_check" and s.kind is SpanKind.INTERNAL for s in checks)

    # Time: children inside the root, phases one after another, as long as they took,
    # each ending when its trace event was written (t after the run's started_at).
    assert all(root.start_time <= s.start_time <= s.end_time <= root.end_time for s in children)
    for before, after in zip(children, children[1:], strict=False):
        assert before.end_time <= after.start_time
    events = result.events
    start, stop = events[0], events[-1]
    origin = datetime.fromisoformat(start["started_at"].replace("Z", "+00:00"))
    assert (root.start_time, root.end_time) == (ns(0, origin), ns(stop["t"], origin))
    phases = [e for e in events if e["event"] == "phase"]
    for span, event in zip(children, phases, strict=True):
        assert span.end_time == ns(event["t"], origin)
        # a start is never put before the previous end: rounding to 0.1 ms may trim that much
        assert -1e-6 < event["elapsed_s"] - (span.end_time - span.start_time) / 1e9 < 1.01e-4
        if event["phase"] == "decide" and event.get("finish_reason"):
            assert span.attributes["gen_ai.response.finish_reasons"] == (event["finish_reason"],)


def test_the_pinned_convention_version_is_known_to_the_installed_package():
    assert SCHEMA_URL == f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}"
    assert Schemas(SCHEMA_URL).value == SCHEMA_URL


def test_every_gen_ai_attribute_used_is_a_convention_attribute(exporter, tmp_path):
    known = {v for k, v in vars(gen_ai_attributes).items() if k.startswith("GEN_AI_")}
    used = set()
    for build, _ in (SCENARIOS["completion check"], SCENARIOS["429 retried twice"]):
        root, children = export(build(tmp_path / build.__name__), exporter, include_content=True)
        for span in [root, *children]:
            used |= {k for k in span.attributes if k.startswith("gen_ai.")}
    assert used and used <= known
    # gen_ai.system was replaced by gen_ai.provider.name before the pinned version
    assert "gen_ai.system" not in used and "gen_ai.provider.name" in used


def test_no_message_content_is_exported_unless_asked(exporter, tmp_path):
    result = course_run("done-when")(tmp_path)
    texts = ["写销售报告", "报告写好了", "这次真的写好了", "总销售额", "report.md"]

    def everything(spans):
        values = [json.dumps(dict(s.attributes), ensure_ascii=False) for s in spans]
        values += [
            json.dumps(dict(e.attributes), ensure_ascii=False) for s in spans for e in s.events
        ]
        return " ".join(values + [s.status.description or "" for s in spans])

    root, children = export(result, exporter)
    shown = everything([root, *children])
    assert not [t for t in texts if t in shown]

    root, children = export(result, exporter, include_content=True)
    assert root.attributes["agentlab.task"] == "写销售报告"
    assert root.attributes["agentlab.answer"] == "这次真的写好了"


def _argument_texts(result: RunResult) -> set[str]:
    """Every text value of the run's tool arguments (three characters or more)."""
    found: set[str] = set()
    for record in result.tool_results:
        for value in json.loads(record["normalized_args"]).values():
            if isinstance(value, str) and len(value) >= 3:
                found.add(value)
    return found


@pytest.mark.parametrize("name", ["repeat", "wander", "strict", "unknown-tool", "flaky-2"])
def test_no_tool_argument_escapes_through_warnings_or_statuses(name, exporter, tmp_path):
    # A stop message can quote the call it stopped (RepeatGuard: "identical call
    # number 4: tool({...})"): without include_content it is not exported.
    result = course_run(name)(tmp_path)
    arguments = _argument_texts(result)
    assert arguments, "the scenario must call a tool with a text argument"
    root, children = export(result, exporter)
    spans = [root, *children]
    shown = json.dumps(
        [dict(s.attributes) for s in spans]
        + [dict(e.attributes) for s in spans for e in s.events]
        + [s.status.description for s in spans],
        ensure_ascii=False,
    )
    assert not [a for a in arguments if a in shown]
    assert [e.name for e in root.events].count("agentlab.warning") == len(result.warnings)


# -- the trace schema: with and without wall-clock times -------------------------------------

STARTED = datetime(2026, 3, 1, 8, 30, tzinfo=UTC)
TARGET_TRACE = [
    {"event": "start", "t": 0.0, "task_id": "demo", "task": "分析 sales.csv", "model": "qwen-plus",
     "stream": False, "budget": {"max_steps": 4, "max_seconds": None},
     "started_at": STARTED.isoformat().replace("+00:00", "Z")},
    {"event": "phase", "phase": "decide", "t": 0.25, "step": 1, "status": "error", "attempt": 1,
     "elapsed_s": 0.05, "error_class": "transient", "message": "429 too many requests"},
    {"event": "phase", "phase": "decide", "t": 0.9, "step": 1, "status": "ok", "attempt": 2,
     "elapsed_s": 0.4, "tokens": {"input_tokens": 120, "output_tokens": 30},
     "content": None, "reasoning": None, "finish_reason": "tool_calls",
     "calls": [{"id": "call_a", "name": "analyze_csv", "arguments": '{"relative_path": "s.csv"}'}]},
    {"event": "phase", "phase": "tool", "t": 1.0, "step": 1, "call_id": "call_a",
     "tool": "analyze_csv", "args": '{"relative_path":"s.csv"}', "status": "ok",
     "error_code": None, "error_class": None, "fingerprint": "f1", "truncated_chars": 0,
     "elapsed_s": 0.08, "content": '{"status": "ok", "data": {"top": "显示器"}}',
     "refused_by": None},
    {"event": "warning", "t": 1.0, "step": 1, "message": "a reply was cut off"},
    {"event": "phase", "phase": "decide", "t": 1.5, "step": 2, "status": "ok", "attempt": 1,
     "elapsed_s": 0.45, "tokens": 180, "content": "显示器最高", "reasoning": None,
     "finish_reason": "stop", "calls": []},
    {"event": "phase", "phase": "complete", "t": 1.6, "step": 2, "status": "done", "reason": None,
     "elapsed_s": 0.05},
    {"event": "stop", "t": 1.61, "step": 2, "phase": None, "stop_reason": "answered",
     "outcome": "completed", "status": "completed", "model_requests": 3, "tokens": 330,
     "elapsed_s": 1.61, "warnings": ["a reply was cut off", "the usage was estimated"],
     "answer": "显示器最高"},
]  # fmt: skip


def ns(seconds: float, origin: datetime = STARTED) -> int:
    """Nanoseconds since the epoch, ``seconds`` after ``origin``."""
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    return (origin - epoch) // timedelta(microseconds=1) * 1000 + round(seconds * 1e9)


def test_a_trace_with_wall_clock_times_gives_spans_at_those_times(exporter):
    root, children = export(TARGET_TRACE, exporter)
    assert (root.start_time, root.end_time) == (ns(0), ns(1.61))
    assert [(s.name, s.start_time, s.end_time) for s in children] == [
        ("chat qwen-plus", ns(0.2), ns(0.25)),
        ("chat qwen-plus", ns(0.5), ns(0.9)),
        ("execute_tool analyze_csv", ns(0.92), ns(1.0)),
        ("chat qwen-plus", ns(1.05), ns(1.5)),
        ("completion_check", ns(1.55), ns(1.6)),
    ]
    first, second, tool, third, check = children
    assert first.attributes["error.type"] == "transient"
    assert not first.status.description  # a provider's error text is content
    assert second.attributes["gen_ai.response.finish_reasons"] == ("tool_calls",)
    assert second.attributes["gen_ai.usage.input_tokens"] == 120
    assert second.attributes["gen_ai.usage.output_tokens"] == 30
    assert third.attributes["agentlab.usage.total_tokens"] == 180
    assert tool.attributes["gen_ai.tool.call.id"] == "call_a"
    assert check.attributes["agentlab.verdict"] == "done"
    assert root.status.status_code is StatusCode.UNSET  # answered after a handled retry
    assert root.attributes["gen_ai.conversation.id"] == "demo"
    # a warning event where it happened; one the stop event alone lists, at the stop
    assert [(e.name, e.timestamp) for e in root.events] == [
        ("agentlab.warning", ns(1.0)),
        ("agentlab.warning", ns(1.61)),
    ]
    assert not [e.attributes for e in root.events if e.attributes]  # their words are content
    contents = {"gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"}
    assert not contents & {k for s in children for k in s.attributes}
    root, _ = export(TARGET_TRACE, exporter, include_content=True)
    assert [e.attributes["agentlab.message"] for e in root.events] == [
        "a reply was cut off",
        "the usage was estimated",
    ]


def test_a_provider_error_text_is_content_too(exporter):
    """Some services echo what was sent in their error text: it is exported only when asked."""
    _, children = export(TARGET_TRACE, exporter)
    failed = children[0]
    assert failed.attributes["error.type"] == "transient"
    assert failed.status.status_code is StatusCode.ERROR and not failed.status.description
    _, children = export(TARGET_TRACE, exporter, include_content=True)
    assert children[0].status.description == "429 too many requests"


def test_content_is_exported_in_the_conventions_shape_when_asked(exporter):
    root, children = export(TARGET_TRACE, exporter, include_content=True)
    _, second, tool, third, _ = children
    [message] = json.loads(second.attributes["gen_ai.output.messages"])
    assert message == {
        "role": "assistant",
        "parts": [
            {"type": "tool_call", "id": "call_a", "name": "analyze_csv",
             "arguments": '{"relative_path": "s.csv"}'},
        ],
        "finish_reason": "tool_calls",
    }  # fmt: skip
    assert json.loads(third.attributes["gen_ai.output.messages"])[0]["parts"] == [
        {"type": "text", "content": "显示器最高"}
    ]
    assert tool.attributes["gen_ai.tool.call.arguments"] == '{"relative_path":"s.csv"}'
    assert "显示器" in tool.attributes["gen_ai.tool.call.result"]


def test_an_older_trace_without_times_is_laid_end_to_end_from_a_fixed_origin(exporter):
    old = [{k: v for k, v in e.items() if k not in ("t", "started_at")} for e in TARGET_TRACE]
    timeline = lay_out(old)
    assert timeline.origin == FALLBACK_ORIGIN
    assert [(round(p.start, 6), round(p.end, 6)) for p in timeline.phases] == [
        (0.0, 0.05),
        (0.05, 0.45),
        (0.45, 0.53),
        (0.53, 0.98),
        (0.98, 1.03),
    ]
    root, children = export(old, exporter)
    assert root.start_time == ns(0, FALLBACK_ORIGIN)
    assert root.end_time == ns(1.61, FALLBACK_ORIGIN)  # the stop event's elapsed_s
    assert len(children) == 5


def test_a_trace_file_puts_the_run_at_its_wall_clock_time(exporter, tmp_path):
    result = course_run("denied-fb")(tmp_path)
    start = read_trace(result.trace_path)[0]
    root, _ = export(result.trace_path, exporter)
    if start.get("started_at"):
        assert root.start_time == ns(0, datetime.fromisoformat(start["started_at"]))
    else:  # an older trace: the file was last written when the run stopped
        written = Path(result.trace_path).stat().st_mtime
        assert abs(root.end_time - ns(0, datetime.fromtimestamp(written, tz=UTC))) <= 1000


def test_rounded_times_never_make_phases_overlap():
    events = [
        {"event": "phase", "phase": "decide", "t": 0.1, "elapsed_s": 0.1},
        {"event": "phase", "phase": "tool", "t": 0.1999, "elapsed_s": 0.1},  # starts at 0.0999
    ]
    first, second = lay_out(events).phases
    assert second.start == first.end == 0.1


def test_a_trace_file_a_run_result_and_its_events_give_the_same_spans(exporter, tmp_path):
    result = course_run("denied-fb")(tmp_path)
    events = read_trace(result.trace_path)
    # A RunResult knows its tool call ids; a trace file knows them only once its
    # tool events carry call_id (the target schema), a bare event list the same.
    ids_in_trace = all("call_id" in e for e in events if e.get("phase") == "tool")

    def shape(source, drop=() if ids_in_trace else ("gen_ai.tool.call.id",)):
        root, children = export(source, exporter)
        return [
            (
                s.name,
                s.end_time - s.start_time,
                {k: v for k, v in s.attributes.items() if k not in drop},
            )
            for s in [root, *children]
        ]

    from_result = shape(result)
    assert shape(result.trace_path) == from_result
    plain = shape(events)  # a bare list of events does not know the folder's task id
    assert [(name, took) for name, took, _ in plain] == [(n, t) for n, t, _ in from_result]


def test_bad_sources_get_clear_errors(tmp_path):
    with pytest.raises(TypeError, match="RunResult"):
        export_trace(42)
    untraced = run_agent(
        "x", client=ScriptedClient([say("好")]), tools=ToolRegistry([]), trace_dir=False
    )
    if untraced.events:  # kept in memory: exported without a file
        assert len(export_trace(untraced, TracerProvider())) == 32
    with pytest.raises(ValueError, match=untraced.task_id):
        export_trace(replace(untraced, events=[]))


# -- the optional extra ---------------------------------------------------------------------


def test_importing_agentlab_and_its_otel_module_does_not_import_opentelemetry():
    code = "import sys, agentlab, agentlab.ops.otel; print('opentelemetry' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("lang, words", [("zh", "可选依赖"), ("en", "optional extra")])
def test_without_opentelemetry_export_says_how_to_install_it(lang, words):
    code = (
        "import sys; sys.modules['opentelemetry'] = None\n"  # as if it were not installed
        "from agentlab.ops.otel import export_trace\n"
        "try:\n    export_trace([])\nexcept ImportError as exc:\n    print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"AGENTLAB_LANG": lang, "PATH": "/usr/bin:/bin"},
        cwd=Path(__file__).resolve().parents[1],
    )
    assert "pip install 'agentlab[otel]'" in out.stdout
    assert words in out.stdout


def test_a_wrap_up_step_is_marked_on_the_root_and_its_request_is_a_chat_span(exporter):
    client = ScriptedClient(keeps_calling("same_result", {"job": "nightly"}))
    tools, _ = fault_tools(HANG_S)
    result = run_agent("x", client=client, tools=tools, budget=Budget(max_steps=3, wrap_up=True))
    root, children = export(result, exporter, include_content=True)
    assert root.attributes["agentlab.stop_reason"] == "max_steps"
    chats = [s for s in children if s.attributes.get("gen_ai.operation.name") == "chat"]
    assert len(chats) == result.model_requests == 3  # two steps, then the wrap-up (the 3rd)
    [mark] = [e for e in root.events if e.name == "agentlab.wrap_up"]
    assert mark.attributes["agentlab.reason"] == "max_steps"
    rounding = 200_000  # ns: trace times are rounded to 0.1 ms (see lay_out)
    assert chats[1].end_time - rounding <= mark.timestamp <= chats[2].start_time + rounding
    assert root.attributes.get("agentlab.partial_answer") == result.partial_answer

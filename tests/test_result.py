"""result.py: what a run records about its tool calls, warnings and replies.

Each test states one rule of the run record as a reader of ``RunResult``
would meet it; a mutation audit (review 8) found these rules unpinned.
"""

from __future__ import annotations

from pathlib import Path

from agentlab import Budget, run_agent
from agentlab.clients import HttpError, Reply, ScriptedClient, ToolCall, call, say
from agentlab.course.faults import fault_tools, keeps_calling
from agentlab.loop.trace import read_trace
from agentlab.tools import Tool, ToolRegistry, error, ok


def echo_tools() -> ToolRegistry:
    """``echo`` gives back its text; ``down`` always fails (a transient error)."""
    return ToolRegistry(
        [
            Tool(
                "echo",
                "原样返回文本。",
                {"properties": {"text": {"type": "string"}}, "required": ["text"]},
                lambda text: ok({"text": text}),
            ),
            Tool("down", "服务已宕机。", {"properties": {}}, lambda: error("UNAVAILABLE", "宕机")),
        ]
    )


def run(script, budget=None, tools=None, tmp_path=None, **options):
    client = script if isinstance(script, ScriptedClient) else ScriptedClient(script)
    if tmp_path is not None:
        options.setdefault("trace_dir", tmp_path)
    return run_agent(
        "回显一下", client=client, tools=tools or echo_tools(), budget=budget or Budget(), **options
    )


def tool_events(result):
    events = result.events or read_trace(result.trace_path)
    return [e for e in events if e.get("event") == "phase" and e.get("phase") == "tool"]


# -- the outcome reads the last batch of tool results ------------------------------------


def test_an_answer_right_after_a_later_step_failed_is_a_tool_error(tmp_path):
    """The outcome looks at the last step that called tools, not the first one."""
    script = [call("echo", text="一"), call("down"), say("好了")]
    result = run(script, tmp_path=tmp_path)
    assert (result.stop_reason, result.outcome) == ("answered", "tool_error")
    assert any("down: UNAVAILABLE" in warning for warning in result.warnings)


# -- what the model receives: cut only when longer than the limit ----------------------


def echo_json_size(text: str) -> int:
    """How long the tool message of ``echo(text)`` is, as the registry writes it."""
    ran = echo_tools().run("echo", f'{{"text": "{text}"}}', None)
    return len(ran.as_json)


def test_a_result_exactly_as_long_as_the_limit_is_neither_cut_nor_saved(tmp_path):
    """max_tool_output_chars is the longest result the model gets whole."""
    text = "x" * 300
    limit = echo_json_size(text)
    result = run(
        [call("echo", text=text), say("好了")],
        Budget(max_tool_output_chars=limit),
        tmp_path=tmp_path,
    )
    (record,) = result.tool_results
    assert (record["truncated_chars"], record["saved_to"]) == (0, None)
    assert len(result.messages[3]["content"]) == limit
    assert not (Path(result.trace_path).parent / "outputs").exists()


def test_a_result_one_character_over_the_limit_is_cut_to_the_limit(tmp_path):
    """One character more than max_tool_output_chars and the result is cut and saved."""
    text = "x" * 300
    limit = echo_json_size(text) - 1
    result = run(
        [call("echo", text=text), say("好了")],
        Budget(max_tool_output_chars=limit),
        tmp_path=tmp_path,
    )
    (record,) = result.tool_results
    assert record["truncated_chars"] > 0 and record["saved_to"]
    assert len(result.messages[3]["content"]) <= limit


def test_the_cut_outputs_of_one_step_are_saved_one_file_each_numbered_from_1(tmp_path):
    """A step's cut outputs go to outputs/step<N>-<k>.json, k counting its calls from 1."""
    big = Reply(
        tool_calls=(ToolCall("echo", {"text": "a" * 500}), ToolCall("echo", {"text": "b" * 500}))
    )
    result = run([big, say("好了")], Budget(max_tool_output_chars=300), tmp_path=tmp_path)
    saved = [Path(r["saved_to"]) for r in result.tool_results]
    assert [p.name for p in saved] == ["step1-1.json", "step1-2.json"]
    assert "a" * 500 in saved[0].read_text(encoding="utf-8")  # the full output, each its own
    assert "b" * 500 in saved[1].read_text(encoding="utf-8")
    assert "outputs/step1-2.json" in result.messages[-2]["content"]  # the model is told where


# -- fingerprint and error_class ----------------------------------------------------------


def test_a_refused_call_teaches_nothing_so_refusals_count_towards_no_progress(tmp_path):
    """A call a guard refused has no fingerprint: repeating it is no progress."""
    tools, _ = fault_tools(hang_seconds=3.0)
    client = ScriptedClient(keeps_calling("same_result", {"job": "nightly"}))
    budget = Budget(max_steps=8, repeat_hint_at=2, max_no_progress=2)
    result = run(client, budget, tools, tmp_path=tmp_path)
    assert (result.stop_reason, result.steps) == ("no_progress", 3)
    fingerprints = [r["fingerprint"] for r in result.tool_results]
    assert fingerprints[0] is not None and fingerprints[1:] == [None, None]
    assert [e["fingerprint"] for e in tool_events(result)] == fingerprints


def test_only_failed_calls_have_an_error_class(tmp_path):
    """error_class classifies tool errors; an ok result has none (None)."""
    script = [call("echo", text="一"), call("down"), say("好了")]
    result = run(script, tmp_path=tmp_path)
    assert [(r["status"], r["error_class"]) for r in result.tool_results] == [
        ("ok", None),
        ("error", "transient"),
    ]
    assert [e["error_class"] for e in tool_events(result)] == [None, "transient"]


# -- reasoning and warnings ---------------------------------------------------------------


def test_reasoning_has_one_entry_per_reply_not_per_failed_attempt(tmp_path):
    """A retried request adds no reasoning entry: one per assistant message."""
    script = [HttpError(429), call("echo", text="一"), HttpError(503), say("好了")]
    result = run(script, Budget(max_retries=1, retry_backoff_s=0.01), tmp_path=tmp_path)
    assert result.outcome == "completed" and result.model_requests == 4
    assistant = [m for m in result.messages if m["role"] == "assistant"]
    assert len(result.reasoning) == len(assistant) == 2


def test_a_warning_raised_again_is_kept_once(tmp_path):
    """The same warning on every step appears once in warnings and once in the trace."""
    odd = Reply(tool_calls=(ToolCall("echo", {"text": "一"}),), finish_reason="weird")
    result = run([odd, odd, say("好了")], tmp_path=tmp_path)
    events = result.events or read_trace(result.trace_path)
    warned = [e["message"] for e in events if e.get("event") == "warning"]
    assert len(warned) == 1 and "weird" in warned[0]
    assert result.warnings.count(warned[0]) == 1

"""The ladder of loops: each rung ends its runs as the next one does.

The minbpe move: ``minimal.py`` (chapter 01) -> ``capped.py`` (chapter 02) ->
``guarded.py`` (chapters 03-04) -> ``run_agent``. On every scenario where
their features overlap, a rung must send the model exactly the messages the
next rung sends and end the same way. Where they part ways on purpose (a
refused path stops ``run_agent`` by default), the test says so.
"""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentlab import STOP_REASONS, Budget, run_agent
from agentlab.clients import HttpError, Reply, ScriptedClient, ToolCall, call, say, scripted
from agentlab.loop.capped import capped_loop
from agentlab.loop.guarded import guarded_loop, repeat_key
from agentlab.loop.minimal import minimal_loop
from agentlab.tools import Tool, ToolRegistry, error, file_tools, ok, sales_tools, sandbox_copy

from ..conftest import SEED_QUESTION, assert_well_formed

TODO_TASK = "读一下 meeting.md，把里面所有以 TODO 开头的行抽出来，汇总写进 todo-list.md，然后汇报。"


def both(make_client, make_tools, task, max_steps, stream):
    """(reference run, run_agent run) on fresh clients and tools."""
    reference = minimal_loop(task, make_client(), make_tools(), max_steps)
    result = run_agent(
        task,
        client=make_client(),
        tools=make_tools(),
        budget=Budget(max_steps=max_steps),
        stream=stream,
        on_text=None,
        trace_dir=False,
    )
    return reference, result


def two_reads(conversation):
    if conversation.request_number == 1:
        return Reply(
            content="我先读两个文件。",
            tool_calls=(ToolCall("read_text", {"rel_path": "meeting.md"}), ToolCall("list_dir")),
        )
    return say(f"读到了 {len(conversation.tool_results())} 个结果。")


SCENARIOS = {
    "honest_analyst": (lambda: scripted("honest_analyst"), sales_tools, SEED_QUESTION, 4),
    "todo_clerk": (
        lambda: scripted("todo_clerk"),
        lambda: file_tools(sandbox_copy()),
        TODO_TASK,
        24,
    ),
    "missing_file": (
        lambda: scripted("todo_clerk"),
        lambda: file_tools(sandbox_copy()),
        TODO_TASK.replace("meeting.md", "meeting-notes.md"),
        24,
    ),
    "never_stops": (lambda: scripted("never_stops"), sales_tools, SEED_QUESTION, 4),
    "two_calls_in_one_reply": (
        lambda: ScriptedClient(two_reads),
        lambda: file_tools(sandbox_copy()),
        "读两个文件",
        24,
    ),
}


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_run_agent_sends_what_the_minimal_loop_sends(name, stream):
    make_client, make_tools, task, max_steps = SCENARIOS[name]
    reference, result = both(make_client, make_tools, task, max_steps, stream)
    assert result.messages == reference.messages
    assert_well_formed(reference.messages)
    ending = "answered" if result.stop_reason == "answered" else result.stop_reason
    assert ending == reference.ending
    assert result.steps == sum(1 for m in reference.messages if m["role"] == "assistant")


def test_the_scenarios_cover_what_they_claim():
    """Guard against a scenario that silently stopped testing anything."""
    runs = {name: both(*SCENARIOS[name], stream=False)[0] for name in SCENARIOS}
    assert runs["never_stops"].ending == "max_steps"
    assert [m["role"] for m in runs["never_stops"].messages].count("assistant") == 4
    codes = [
        json.loads(m["content"])["error"]["code"]
        for m in runs["missing_file"].messages
        if m["role"] == "tool" and json.loads(m["content"])["status"] == "error"
    ]
    assert codes == ["FILE_NOT_FOUND"]
    parallel = [m for m in runs["two_calls_in_one_reply"].messages if m.get("tool_calls")]
    assert len(parallel) == 1 and len(parallel[0]["tool_calls"]) == 2
    assert all(run.ending == "answered" for n, run in runs.items() if n != "never_stops")


def test_where_they_differ_on_purpose_a_refused_path():
    """A ``PATH_NOT_ALLOWED`` refusal is a permission error: ``run_agent`` stops
    (``policy_denied``) unless told to feed it back; the minimal loop has no
    error classes and always feeds it back. With ``feed_back`` they agree."""
    task = "读一下 ../mini_agent.py"
    reference = minimal_loop(task, scripted("todo_clerk"), file_tools(sandbox_copy()))
    stopped = run_agent(
        task, client=scripted("todo_clerk"), tools=file_tools(sandbox_copy()), trace_dir=False
    )
    fed_back = run_agent(
        task,
        client=scripted("todo_clerk"),
        tools=file_tools(sandbox_copy()),
        permission_errors="feed_back",
        trace_dir=False,
    )
    assert fed_back.messages == reference.messages
    assert stopped.stop_reason == "policy_denied"
    assert stopped.messages == reference.messages[:-1]  # everything but the model's answer


# -- rung 2: capped_loop ends as run_agent does, and sends what the minimal loop sends --


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_capped_loop_sends_what_the_minimal_loop_sends_and_ends_as_run_agent(name):
    make_client, make_tools, task, max_steps = SCENARIOS[name]
    reference, result = both(make_client, make_tools, task, max_steps, stream=False)
    capped = capped_loop(task, make_client(), make_tools(), max_steps)
    assert capped.messages == reference.messages
    assert capped.stop_reason == reference.ending == result.stop_reason
    assert (capped.outcome, capped.steps, capped.answer) == (
        result.outcome,
        result.steps,
        result.answer,
    )


def test_the_capped_loop_reports_an_answer_after_a_failed_tool_as_tool_error():
    client = ScriptedClient([call("analyze_csv", relative_path="missing.csv"), say("没找到")])
    capped = capped_loop(SEED_QUESTION, client, sales_tools(), 4)
    result = run_agent(
        SEED_QUESTION,
        client=ScriptedClient([call("analyze_csv", relative_path="missing.csv"), say("没找到")]),
        tools=sales_tools(),
        trace_dir=False,
    )
    assert (
        (capped.stop_reason, capped.outcome)
        == ("answered", "tool_error")
        == (
            result.stop_reason,
            result.outcome,
        )
    )


@pytest.mark.parametrize("cap", [1, 2, 3])
def test_the_cap_holds_exactly(cap):
    client = scripted("never_stops")
    capped = capped_loop(SEED_QUESTION, client, sales_tools(), cap)
    assert len(client.requests) == capped.steps == cap
    assert (capped.stop_reason, capped.outcome, capped.answer) == (
        "max_steps",
        "budget_exhausted",
        None,
    )


# -- rung 3: guarded_loop ends as run_agent does on generated runs --------------------------


def echo(text: str) -> dict:
    return ok({"echo": text})


def flaky(n: int) -> dict:
    return ok({"n": n}) if n % 2 else error("UNAVAILABLE", "try later")


def schema(**properties: str) -> dict:
    return {
        "type": "object",
        "properties": {k: {"type": v} for k, v in properties.items()},
        "required": list(properties),
    }


def tools() -> ToolRegistry:
    return ToolRegistry(
        [
            Tool("echo", "Echo text.", schema(text="string"), echo),
            Tool("flaky", "Fails on even n.", schema(n="integer"), flaky),
        ]
    )


tool_calls = st.one_of(
    st.builds(lambda t: ToolCall("echo", {"text": t}), st.sampled_from(["a", "b", "数据"])),
    st.builds(lambda n: ToolCall("flaky", {"n": n}), st.integers(0, 3)),
    st.just(ToolCall("no_such_tool", {})),
    st.sampled_from([ToolCall("echo", '{"text": '), ToolCall("echo", "[1]")]),
)
replies = st.one_of(
    st.builds(lambda cs: Reply(tool_calls=tuple(cs)), st.lists(tool_calls, min_size=1, max_size=3)),
    st.builds(Reply, content=st.sampled_from(["done", "完成", ""])),
)
turns = st.one_of(replies, replies, replies, st.builds(HttpError, st.sampled_from([429, 500, 401])))
scripts = st.one_of(
    st.lists(turns, min_size=1, max_size=8),
    st.builds(lambda r, n: [r] * n, replies, st.integers(2, 8)),  # one reply, again and again
)
limits = st.fixed_dictionaries(
    {
        "max_steps": st.integers(1, 8),
        "max_repeats": st.sampled_from([None, 2, 3]),
        "repeat_hint_at": st.sampled_from([None, 2]),
        "max_no_progress": st.sampled_from([None, 1, 3]),
        "max_retries": st.integers(0, 2),
    }
)


def by_rung_3_and_4(script: list, limit: dict):
    guarded = guarded_loop("任务", ScriptedClient(list(script)), tools(), backoff_s=0.0, **limit)
    result = run_agent(
        "任务",
        client=ScriptedClient(list(script)),
        tools=tools(),
        budget=Budget(retry_backoff_s=0.0, **limit),
        permission_errors="feed_back",
        on_text=None,
        trace_dir=False,
    )
    return guarded, result


def what_ran(messages: list[dict]) -> list:
    """The history, with the texts of calls never run left out (their wording
    differs), an empty reply read as ``run_agent`` reads it (no text), and
    arguments that are no JSON object as ``run_agent`` sends them back: ``{}``
    (a strict server re-parses the history; ``tests/providers/test_reply_shapes.py``)."""
    shown = []
    for m in messages:
        if m["role"] == "tool" and '"NOT_RUN"' in m["content"]:
            shown.append(("tool", m["tool_call_id"], "NOT_RUN"))
        elif m["role"] == "assistant":
            calls = [sent_back(c) for c in m.get("tool_calls") or []]
            shown.append(
                {**m, "content": m["content"] or None, **({"tool_calls": calls} if calls else {})}
            )
        else:
            shown.append(m)
    return shown


def sent_back(call: dict) -> dict:
    try:
        whole = isinstance(json.loads(call["function"]["arguments"]), dict)
    except ValueError:
        whole = False
    return call if whole else {**call, "function": {**call["function"], "arguments": "{}"}}


@settings(max_examples=80, deadline=None, database=None)
@given(scripts, limits)
def test_the_guarded_loop_ends_every_generated_run_as_run_agent_does(script, limit):
    guarded, result = by_rung_3_and_4(script, limit)
    assert (guarded.stop_reason, guarded.outcome, guarded.steps, guarded.model_requests) == (
        result.stop_reason,
        result.outcome,
        result.steps,
        result.model_requests,
    )
    assert what_ran(guarded.messages) == what_ran(result.messages)
    assert_well_formed(guarded.messages)


ECHO_A = Reply(tool_calls=(ToolCall("echo", {"text": "a"}),))
EVERY_GUARD = {
    "answered": ([ECHO_A, say("好")], {}),
    "max_steps": ([ECHO_A, Reply(tool_calls=(ToolCall("flaky", {"n": 1}),))] * 2, {}),
    "repeat_call": ([ECHO_A] * 4, {"max_repeats": 3}),
    "refused_then_answered": ([ECHO_A, ECHO_A, say("好")], {"repeat_hint_at": 2}),
    "no_progress": ([ECHO_A] * 4, {"max_no_progress": 2}),
    "model_error": ([HttpError(401)], {}),
    "retried": ([HttpError(429), HttpError(500), say("好")], {"max_retries": 2}),
    "retries_used_up": ([HttpError(429)] * 3, {"max_retries": 1}),
}


@pytest.mark.parametrize("name", list(EVERY_GUARD))
def test_each_guard_ends_a_run_of_the_guarded_loop_as_it_ends_run_agent(name):
    script, limit = EVERY_GUARD[name]
    guarded, result = by_rung_3_and_4(script, {"max_steps": 4, **limit})
    expected = name if name in STOP_REASONS else None
    assert guarded.stop_reason == result.stop_reason == (expected or guarded.stop_reason)
    assert (guarded.outcome, guarded.steps, guarded.model_requests) == (
        result.outcome,
        result.steps,
        result.model_requests,
    )
    assert what_ran(guarded.messages) == what_ran(result.messages)


def test_the_guarded_loop_shares_one_deadline_with_the_model_and_the_tools():
    nap = ToolRegistry([Tool("nap", "Sleep.", schema(), lambda: (time.sleep(0.3), ok(1))[1])])
    client = ScriptedClient([call("nap")] * 5)
    started = time.monotonic()
    guarded = guarded_loop("任务", client, nap, max_seconds=0.5)
    assert guarded.stop_reason == "deadline" and guarded.outcome == "budget_exhausted"
    assert time.monotonic() - started < 0.5 + 0.2
    assert_well_formed(guarded.messages)


def test_the_guarded_loop_cuts_long_results_to_their_room():
    big = ToolRegistry([Tool("big", "Big.", schema(), lambda: ok("x" * 5000))])
    guarded = guarded_loop(
        "任务", ScriptedClient([call("big"), say("好")]), big, max_output_chars=300
    )
    content = [m["content"] for m in guarded.messages if m["role"] == "tool"][0]
    assert len(content) == 300 and content.endswith("characters in all]")


def test_a_repeat_key_is_the_same_however_the_arguments_are_spelled():
    assert repeat_key("f", '{"a": 1, "b": [2]}') == repeat_key("f", '{"b":[2],"a":1}')
    assert repeat_key("f", '{"a": 1}') != repeat_key("g", '{"a": 1}')
    assert repeat_key("f", "A.md") != repeat_key("f", "a.md")  # case matters
    assert repeat_key("f", "null") == "f:null" and repeat_key("f", '{"a": ') == 'f:{"a": '


def test_each_rung_is_a_file_read_on_its_own():
    """Rung 1 imports nothing of agentlab; rung 2 only rung 1's defaults; rung 3 the
    deadline, the messages and the tools' result shape, not the machinery of run_agent."""
    import ast
    from pathlib import Path

    import agentlab

    loop = Path(agentlab.__file__).parent / "loop"

    def package_imports(name: str) -> set[str]:
        tree = ast.parse((loop / name).read_text(encoding="utf-8"))
        return {
            "." * node.level + (node.module or "")
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and (node.level or "agentlab" in node.module)
        }

    assert package_imports("minimal.py") == set()
    assert package_imports("capped.py") == {".minimal"}
    assert package_imports("guarded.py") == {"..deadline", "..i18n", "..tools.registry", ".minimal"}

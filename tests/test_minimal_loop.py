"""The one-screen loop students read and ``run_agent`` build the same history.

The minbpe move: ``agentlab.loop.minimal`` is the reference, and on every
honest scenario ``run_agent`` (streamed or not) must send the model exactly
the messages the reference sends — same roles, order, tool_call_ids and
contents, compared as whole message dicts. Where they part ways on purpose
(a refused path stops ``run_agent`` by default), the test says so.
"""

from __future__ import annotations

import json

import pytest

from agentlab import Budget, run_agent
from agentlab.clients import Reply, ScriptedClient, ToolCall, say, scripted
from agentlab.loop.minimal import minimal_loop
from agentlab.tools import file_tools, sales_tools, sandbox_copy

from .conftest import SEED_QUESTION, assert_well_formed

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


def test_the_minimal_loop_is_one_file_to_read():
    """Beside the model client and the tool itself, a run enters only the loop's own file,
    the registry that dispatches the calls, and deadline.py (the registry runs every call
    through its time limit, which is "none" here); run_agent enters seven."""
    from .test_reading_path import files_entered

    client, tools = scripted("honest_analyst"), sales_tools()
    result = {}

    def run():
        result["run"] = minimal_loop(SEED_QUESTION, client, tools, 4)

    assert files_entered(run) == {"loop/minimal.py", "tools/registry.py", "deadline.py"}
    assert result["run"].ending == "answered"

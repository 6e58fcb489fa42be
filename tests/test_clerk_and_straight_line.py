"""Chapter 01: the straight line leaves the task half done; the loop finishes it,
and the clerk's output follows the file it read."""

from __future__ import annotations

import json

import pytest

from agentlab import Budget, run_agent
from agentlab.clients import Reply, ScriptedClient, ToolCall, say, scripted
from agentlab.course.straight_line import straight_line
from agentlab.tools import file_tools

TASK = "读一下 meeting.md，把里面所有以 TODO 开头的行抽出来，汇总写进 todo-list.md，然后汇报。"


@pytest.fixture
def sandbox(tmp_path):
    root = tmp_path / "sandbox"
    root.mkdir()
    (root / "meeting.md").write_text(
        "# 周会\nTODO 修复登录超时\n结论：下周发布\n  TODO 补充监控告警\n不是 TODO 的行\n",
        encoding="utf-8",
    )
    return root


def test_straight_line_stops_half_way(sandbox):
    result = straight_line(TASK, client=scripted("todo_clerk"), tools=file_tools(sandbox))
    assert result.tools_run == ["read_text"]
    assert result.unfinished_calls == ["write_text"]
    assert result.answer is None
    assert not (sandbox / "todo-list.md").exists()


def test_the_loop_finishes_the_same_task(sandbox):
    client = scripted("todo_clerk")
    result = run_agent(TASK, client=client, tools=file_tools(sandbox))
    assert result.outcome == "completed" and result.steps == 3
    assert [r["tool"] for r in result.tool_results] == ["read_text", "write_text"]
    written = (sandbox / "todo-list.md").read_text(encoding="utf-8")
    assert written == "TODO 修复登录超时\nTODO 补充监控告警\n"
    assert "2 条 TODO" in result.answer and "TODO 补充监控告警" in result.answer
    # history grows by an assistant message and a tool message per tool step
    assert [len(r.messages) for r in client.requests] == [2, 4, 6]


def test_output_follows_the_file(sandbox):
    (sandbox / "meeting.md").write_text("TODO 只有这一条\n", encoding="utf-8")
    run_agent(TASK, client=scripted("todo_clerk"), tools=file_tools(sandbox))
    assert (sandbox / "todo-list.md").read_text(encoding="utf-8") == "TODO 只有这一条\n"


def test_no_todo_lines_gives_an_empty_list_and_says_so(sandbox):
    (sandbox / "meeting.md").write_text("只有结论\n", encoding="utf-8")
    result = run_agent(TASK, client=scripted("todo_clerk"), tools=file_tools(sandbox))
    assert (sandbox / "todo-list.md").read_text(encoding="utf-8") == ""
    assert "0 条" in result.answer


def test_a_missing_file_is_found_by_listing_and_retrying(sandbox):
    task = TASK.replace("meeting.md", "meeting-notes.md")
    result = run_agent(task, client=scripted("todo_clerk"), tools=file_tools(sandbox))
    calls = [(r["tool"], r["status"]) for r in result.tool_results]
    assert calls == [
        ("read_text", "error"),
        ("list_dir", "ok"),
        ("read_text", "ok"),
        ("write_text", "ok"),
    ]
    assert result.tool_results[2]["arguments"] == '{"rel_path": "meeting.md"}'
    assert result.outcome == "completed"
    assert (sandbox / "todo-list.md").exists()


def test_nothing_similar_to_list_ends_honestly(sandbox):
    (sandbox / "meeting.md").unlink()
    (sandbox / "zzz.bin").write_text("x", encoding="utf-8")
    result = run_agent(TASK, client=scripted("todo_clerk"), tools=file_tools(sandbox))
    assert "没有和 meeting.md 相近的文件" in result.answer
    assert not (sandbox / "todo-list.md").exists()


def test_a_path_outside_the_sandbox_is_refused_and_reported(sandbox):
    result = run_agent(
        "读一下 ../mini_agent.py",
        client=scripted("todo_clerk"),
        tools=file_tools(sandbox),
        permission_errors="feed_back",
    )
    assert result.tool_results[0]["result"]["error"]["code"] == "PATH_NOT_ALLOWED"
    assert "PATH_NOT_ALLOWED" in result.answer
    assert result.outcome == "tool_error"


def test_by_default_a_refused_path_stops_the_run(sandbox):
    client = scripted("todo_clerk")
    result = run_agent("读一下 ../mini_agent.py", client=client, tools=file_tools(sandbox))
    assert (result.stop_reason, result.outcome, result.status) == (
        "policy_denied",
        "tool_error",
        "failed",
    )
    assert len(client.requests) == 1 and result.answer is None
    assert result.messages[-1]["role"] == "tool"  # the refusal is kept in history


def test_two_steps_are_not_enough_for_a_three_step_task(sandbox):
    result = run_agent(
        TASK, client=scripted("todo_clerk"), tools=file_tools(sandbox), budget=Budget(2)
    )
    assert (result.outcome, result.stop_reason, result.steps) == (
        "budget_exhausted",
        "max_steps",
        2,
    )
    assert (sandbox / "todo-list.md").exists()  # the work was done, the report never came
    assert result.answer is None


# -- straight_line's own rules (mutation audit review9/mut4) -------------------------------
# The chapter's case (one read, then a write it never runs) left these unpinned: what a
# reply without tools gives, which of two calls runs, and the history it kept.


def test_a_first_reply_without_tools_is_the_straight_lines_answer(sandbox):
    """No tool call in the first reply: its text is the answer and nothing ran."""
    client = ScriptedClient([say("不用工具也能回答。")])
    result = straight_line(TASK, client=client, tools=file_tools(sandbox))
    assert (result.answer, result.tools_run, result.unfinished_calls) == (
        "不用工具也能回答。",
        [],
        [],
    )
    assert len(client.requests) == 1


def test_straight_line_runs_only_the_first_call_and_answers_with_the_second_reply(sandbox):
    """Of two calls in one reply only the first runs; the answer is the second reply's
    text, and the history holds the assistant's text, that call and its result."""
    first = Reply(
        content="先读文件。",
        tool_calls=(ToolCall("read_text", {"rel_path": "meeting.md"}), ToolCall("list_dir")),
    )
    client = ScriptedClient([first, say("读完了。")])
    result = straight_line(TASK, client=client, tools=file_tools(sandbox))
    assert result.tools_run == ["read_text"]
    assert result.answer == "读完了。" and result.unfinished_calls == []
    assert [m["role"] for m in result.messages] == ["system", "user", "assistant", "tool"]
    assistant, tool = result.messages[2:]
    assert assistant["content"] == "先读文件。"
    assert [c["function"]["name"] for c in assistant["tool_calls"]] == ["read_text"]
    assert json.loads(tool["content"])["data"]["text"].startswith("# 周会")
    assert client.requests[1].messages == result.messages


# -- todo_clerk and never_stops: rules the mutation audit found unpinned --------------------


def test_a_task_naming_one_file_only_reads_it_and_never_writes(sandbox):
    """With no second file named there is no target: the clerk shows what it read and
    the source file is left as it was."""
    before = (sandbox / "meeting.md").read_text(encoding="utf-8")
    result = run_agent(
        "读一下 meeting.md 然后汇报。", client=scripted("todo_clerk"), tools=file_tools(sandbox)
    )
    assert [r["tool"] for r in result.tool_results] == ["read_text"]
    assert result.outcome == "completed" and "结论：下周发布" in result.answer
    assert (sandbox / "meeting.md").read_text(encoding="utf-8") == before


def test_a_refused_write_is_reported_not_claimed(sandbox):
    """If writing the list fails, the clerk reports the error; it never says it wrote."""
    task = TASK.replace("todo-list.md", "../todo-list.md")
    result = run_agent(
        task,
        client=scripted("todo_clerk"),
        tools=file_tools(sandbox),
        permission_errors="feed_back",
    )
    assert [(r["tool"], r["status"]) for r in result.tool_results] == [
        ("read_text", "ok"),
        ("write_text", "error"),
    ]
    assert "PATH_NOT_ALLOWED" in result.answer and "已把" not in result.answer


def _clerk_after(task, *steps):
    """todo_clerk's next turn after the given (tool, arguments, result) steps."""
    from agentlab.clients import Conversation, todo_clerk

    messages = [{"role": "user", "content": task}]
    for number, (tool, arguments, result) in enumerate(steps):
        call_id = f"c{number}"
        function = {"name": tool, "arguments": json.dumps(arguments, ensure_ascii=False)}
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": call_id, "function": function}],
            }
        )
        messages.append({"role": "tool", "tool_call_id": call_id, "content": json.dumps(result)})
    return todo_clerk(Conversation(messages, [{"type": "function"}], len(steps) + 1))


def test_the_clerk_lists_the_folder_once_only():
    """A second missing file after a listing is reported; the clerk does not list again."""
    missing = {"status": "error", "error": {"code": "FILE_NOT_FOUND", "message": "没有"}}
    listing = {"status": "ok", "data": {"files": ["meeting.md", "todo-list.md"]}}
    turn = _clerk_after(
        TASK.replace("meeting.md", "meeting-notes.md"),
        ("read_text", {"rel_path": "meeting-notes.md"}, missing),
        ("list_dir", {}, listing),
        ("read_text", {"rel_path": "meeting.md"}, missing),
    )
    assert not turn.tool_calls and "FILE_NOT_FOUND" in turn.content


def test_never_stops_asks_for_the_file_the_task_names():
    """never_stops analyses the CSV the task names (sales.csv only when none is named)."""
    from agentlab.clients import Conversation, never_stops

    def first_call(task):
        turn = never_stops(Conversation([{"role": "user", "content": task}], [{}], 1))
        return turn.tool_calls[0].arguments

    assert first_call("分析 data/input/q3.csv") == {"relative_path": "q3.csv"}
    assert first_call("分析销售数据") == {"relative_path": "sales.csv"}


def test_the_clerk_never_takes_its_target_for_the_missing_source():
    """After a listing, the file it is to write is no candidate for the file to read."""
    task = "读一下 notes.md，把里面所有以 TODO 开头的行抽出来，汇总写进 notes-todo.md，然后汇报。"
    missing = {"status": "error", "error": {"code": "FILE_NOT_FOUND", "message": "没有"}}
    turn = _clerk_after(
        task,
        ("read_text", {"rel_path": "notes.md"}, missing),
        ("list_dir", {}, {"status": "ok", "data": {"files": ["notes-todo.md"]}}),
    )
    assert not turn.tool_calls and "没有和 notes.md 相近的文件" in turn.content


def test_a_byte_order_mark_does_not_hide_the_first_todo(sandbox):
    """Windows Notepad may save UTF-8 with a BOM: it is not part of the first line."""
    (sandbox / "meeting.md").write_text(
        "TODO 第一行\n结论：无\nTODO 第三行\n", encoding="utf-8-sig"
    )
    read = file_tools(sandbox).call("read_text", '{"rel_path": "meeting.md"}')
    assert read["data"]["text"].startswith("TODO 第一行")
    run_agent(TASK, client=scripted("todo_clerk"), tools=file_tools(sandbox), trace_dir=False)
    assert (sandbox / "todo-list.md").read_text(encoding="utf-8") == "TODO 第一行\nTODO 第三行\n"


def test_a_source_cut_short_is_said_in_the_report_not_passed_off_as_all(sandbox):
    lines = [f"TODO 第 {n} 件事" for n in range(2000)]
    (sandbox / "meeting.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run_agent(
        TASK, client=scripted("todo_clerk"), tools=file_tools(sandbox), trace_dir=False
    )
    written = (sandbox / "todo-list.md").read_text(encoding="utf-8").splitlines()
    assert 0 < len(written) < len(lines)  # it saw only part of the file
    total = len("\n".join(lines) + "\n")
    assert f"meeting.md 只读到了一部分（共 {total} 个字符）" in result.answer

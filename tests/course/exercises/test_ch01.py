"""Chapter 01's checks (agentlab/course/exercises/ch01.py): the words each mistake gets, and
right answers in other styles."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

import agentlab.course.exercises as api
import agentlab.tools.files as library_module
from agentlab.course.exercises import ch01
from agentlab.course.exercises.core import NOT_DONE, PASSED, WRONG
from agentlab.tools import Tool, error, ok, resolve_inside

from .conftest import ask, mistake, recursive_loop, tool_message, verdict


def sdk_message_loop(task, client, tools, max_steps):
    """The SDK's own message object put back into the history, as many tutorials do."""
    messages = [{"role": "system", "content": "助手"}, {"role": "user", "content": task}]
    for _ in range(max_steps):
        reply = ask(client, messages, tools)
        messages.append(reply)
        if not reply.tool_calls:
            break
        messages += [tool_message(tools, tc) for tc in reply.tool_calls]
    return messages


@pytest.mark.parametrize("answer", [recursive_loop, sdk_message_loop])
def test_right_loops_written_another_way_pass(answer):
    found = verdict("01-loop", answer)
    assert found.status == PASSED, found.detail


def test_the_loop_check_names_the_missing_tool_call_id():
    """The example from issue 15, word for word."""
    detail = verdict("01-loop", mistake("01-loop", "only the first of two")).detail
    assert "第 2 次请求的历史里，tool_call_id=call_1_1 没有对应的 role=tool 消息" in detail


def test_a_loop_that_swallows_the_checkers_stop_is_told_it_has_no_cap():
    found = verdict("01-loop", mistake("01-loop", "no step cap, and a bare except"))
    assert found.status == WRONG and "没有步数上限" in found.detail, found.detail


def test_a_later_request_without_tools_is_named():
    found = verdict("01-loop", mistake("01-loop", "tools offered on the first request only"))
    assert found.status == WRONG and "第 2 次请求没有带 tools=" in found.detail, found.detail


def test_arguments_sent_back_as_a_dict_are_named_not_a_scripted_model_error():
    found = verdict("01-loop", mistake("01-loop", "function.arguments sent back as a dict"))
    assert found.status == WRONG and "arguments 是 dict" in found.detail, found.detail
    assert "脚本化模型" not in found.detail and "500" not in found.detail


def test_a_loop_that_returns_a_pair_is_told_to_return_the_messages():
    found = verdict("01-loop", mistake("01-loop", "returns (messages, ending)"))
    assert found.status == WRONG and "一对" in found.detail, found.detail
    assert "'answered'" in found.detail and "role=user" not in found.detail


def test_the_prompt_says_how_many_scenarios_the_loop_check_runs(monkeypatch):
    n = len(ch01.LOOP_SCENARIOS)
    assert f"{n} 个场景" in api.get("01-loop").prompt
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    assert f"{n} scripted scenarios" in api.get("01-loop").prompt


def test_a_history_from_a_client_of_its_own_is_told_to_use_the_one_given():
    found = verdict("01-history", mistake("01-history", "runs a client of its own"))
    assert found.status == WRONG and "传进来的 client" in found.detail, found.detail


# -- 01-append-text ----------------------------------------------------------------------

TEXT = {"type": "string"}
SCHEMA = {"properties": {"rel_path": TEXT, "text": TEXT}, "required": ["rel_path", "text"]}


def test_a_registered_tool_whose_body_is_the_starter_is_told_which_part_is_left():
    def add_append_text(registry, box):
        def append_text(rel_path, text):
            raise NotImplementedError("在这里写函数")

        registry.register(Tool("append_text", "追加文字", SCHEMA, append_text))

    found = verdict("01-append-text", add_append_text)
    assert found.status == NOT_DONE
    assert "已经注册好了，但函数体还是起始代码" in found.detail


def test_an_absolute_path_that_got_through_is_shown():
    def add_append_text(registry, box):
        def append_text(rel_path, text):
            if ".." in rel_path:  # absolute paths get through
                return error("PATH_NOT_ALLOWED", "outside")
            with open(box / rel_path, "a", encoding="utf-8") as handle:
                handle.write(text)
            return ok({"path": rel_path})

        registry.register(Tool("append_text", "追加", SCHEMA, append_text))

    found = verdict("01-append-text", add_append_text)
    assert found.status == WRONG and "'/…/absolute.md'" in found.detail, found.detail


def test_a_tool_that_forgets_the_box_is_told_so_and_writes_nothing_here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the notebook's folder
    found = verdict("01-append-text", mistake("01-append-text", "opens rel_path as it is"))
    assert found.status == WRONG and "当前目录" in found.detail, found.detail
    assert list(tmp_path.iterdir()) == []


def test_a_student_tool_that_never_returns_is_a_timeout_not_a_tool_exception():
    def endless(rel_path, text):
        while True:
            pass

    def add_append_text(registry, box):  # the reference's tool, with a body that never ends
        made: list[Tool] = []
        ch01.add_append_text(SimpleNamespace(register=made.append), box)
        registry.register(dataclasses.replace(made[0], function=endless))

    found = verdict("01-append-text", add_append_text, time_limit_s=0.5)
    assert found.status == WRONG and "TOOL_EXCEPTION" not in found.detail, found.detail
    assert "死循环" in found.detail, found.detail


def _through_the_module(registry, box):
    def append_text(rel_path, text):
        return library_module.append_text(box, rel_path, text)

    return append_text


def _through_an_inner_import(registry, box):
    from agentlab.tools.files import append_text as library

    def append_text(rel_path, text):
        return library(box, rel_path, text)

    return append_text


def _own_code_with_write_text(registry, box):
    def append_text(rel_path, text):
        path = resolve_inside(box, rel_path)
        path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")

    return append_text


@pytest.mark.parametrize(
    "answer, flagged",
    [
        (_through_the_module, True),
        (_through_an_inner_import, True),
        (_own_code_with_write_text, False),
        (mistake("01-append-text", "wraps the library's append_text"), True),  # a global name
    ],
)
def test_the_librarys_writer_is_found_however_it_is_reached(answer, flagged):
    assert bool(ch01._library_functions_used(answer)) is flagged


# -- 01-fragments ------------------------------------------------------------------------


def test_fragments_joined_in_the_api_shape_are_told_the_shape_asked_for():
    found = verdict("01-fragments", mistake("01-fragments", "the API's nested shape"))
    assert found.status == WRONG and "最外层" in found.detail, found.detail

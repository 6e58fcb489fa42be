"""A student's loop against the reference on scripted scenarios, and the words for what is off
(agentlab/course/exercises/loops.py), as chapters 01 and 02 use it."""

from __future__ import annotations

import pytest

import agentlab.course.exercises as api
from agentlab.course.exercises.core import PASSED, WRONG, Judged
from agentlab.course.exercises.loops import (
    HONEST,
    _history_problem,
    check_returned_messages,
    normalise,
    reference_run,
)

from .conftest import ask, assistant_message, mistake, tool_message, verdict


@pytest.mark.parametrize("exercise_id", ["01-loop", "02-capped-loop"])
def test_a_right_loop_still_passes_after_switching_language(exercise_id, monkeypatch):
    """The reference loop's run is cached; its tool messages are in the language of the
    moment, so a cache made in Chinese must not judge a run made in English."""
    for lang in ("zh", "en", "zh"):
        monkeypatch.setenv("AGENTLAB_LANG", lang)
        found = verdict(exercise_id, api.get(exercise_id).reference)
        assert found.status == PASSED, (lang, api.render(found))


@pytest.mark.parametrize("exercise_id", ["01-loop", "02-capped-loop"])
def test_a_loop_one_request_short_of_its_cap_is_told_about_range(exercise_id):
    """range(1, max_steps) is the off-by-one students write; the feedback names it."""
    one_short = mistake("02-capped-loop", "range(1, max_steps)")
    answer = one_short if exercise_id == "02-capped-loop" else lambda *a: one_short(*a)[0]
    assert "range(1, max_steps)" in verdict(exercise_id, answer).detail


@pytest.mark.parametrize("exercise_id", ["01-loop", "02-capped-loop"])
def test_a_loop_that_counts_tool_calls_is_not_told_about_range(exercise_id):
    """Two tool calls a reply and a cap of 3 also stop it one request short; the
    range(1, max_steps) hint would send the student after the wrong bug."""
    counts_calls = mistake(exercise_id, "counts tool calls")
    assert "range(1, max_steps)" not in verdict(exercise_id, counts_calls).detail


def test_history_left_over_from_an_earlier_run_is_named_as_such():
    kept = [{"role": "system", "content": "助手"}]  # outlives one call, like a global

    def my_loop(task, client, tools, max_steps):
        messages = kept
        messages.append({"role": "user", "content": task})
        for _ in range(max_steps):
            reply = ask(client, messages, tools)
            messages.append(assistant_message(reply))
            if not reply.tool_calls:
                return messages
            messages += [tool_message(tools, tc) for tc in reply.tool_calls]
        return messages

    found = verdict("01-loop", my_loop)
    assert found.status == WRONG
    assert "上一次运行留下的历史" in found.detail and "别用全局变量或默认参数" in found.detail


def _loop_whose_calls_are(convert):
    """Chapter 01's loop, with each tool call of the history written as ``convert(tc)``."""

    def my_loop(task, client, tools, max_steps):
        messages = [{"role": "system", "content": "助手"}, {"role": "user", "content": task}]
        for _ in range(max_steps):
            reply = ask(client, messages, tools)
            assistant = {"role": "assistant", "content": reply.content}
            if reply.tool_calls:
                assistant["tool_calls"] = [convert(tc) for tc in reply.tool_calls]
            messages.append(assistant)
            if not reply.tool_calls:
                return messages
            messages += [tool_message(tools, tc) for tc in reply.tool_calls]
        return messages

    return my_loop


@pytest.mark.parametrize(
    ("convert", "kind"),
    [
        (lambda tc: tc.model_dump_json(), "str"),
        (lambda tc: [tc.id, tc.function.name, tc.function.arguments], "list"),
    ],
    ids=["str", "list"],
)
def test_a_tool_call_that_is_not_a_dict_is_named_as_such(convert, kind, monkeypatch):
    found = verdict("01-loop", _loop_whose_calls_are(convert))
    assert found.status == WRONG
    assert f"不是字典，而是 {kind}" in found.detail, found.detail
    assert '"type" 是 None' not in found.detail and "500" not in found.detail
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    detail = verdict("01-loop", _loop_whose_calls_are(convert)).detail
    assert f"not a dict but a {kind}" in detail, detail


def test_a_tool_call_that_is_not_a_dict_gets_its_own_words_in_any_history():
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    expected = normalise({"role": "assistant", "content": None, "tool_calls": [call]})
    got = normalise({"role": "assistant", "content": None, "tool_calls": ["call_1"]})
    key, fields = _history_problem(2, [got], [expected])
    assert key == "exercise.loop.call_not_dict" and fields["kind"] == "str", (key, fields)


def test_sdk_tool_call_objects_in_the_returned_messages_count_as_their_dicts():
    """The SDK sends them as the same JSON, as it does a whole SDK message object."""
    found = verdict("01-loop", _loop_whose_calls_are(lambda tc: tc))
    assert found.status == PASSED, found.detail


def test_returned_messages_with_a_tool_call_that_is_not_a_dict_are_named_as_such():
    ref, _ = reference_run(HONEST)
    returned = [dict(m) for m in ref.returned]
    second = next(m for m in returned if m.get("tool_calls"))
    second["tool_calls"] = [c["id"] for c in second["tool_calls"]]
    with pytest.raises(Judged) as judged:
        check_returned_messages(returned, ref, HONEST, "my_loop")
    assert "tool_call 不是字典，而是 str" in judged.value.verdict.detail
    assert "返回的 messages 里" in judged.value.verdict.detail

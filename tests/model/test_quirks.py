"""quirks.py: the rules that read what real providers send beyond the plain shape.

Each rule on its own, on the turn the decide phase hands it. The replies these rules
were written for, replayed through the SDK into ``run_agent``, are in
``tests/providers/test_reply_shapes.py`` (with the report each one comes from).
"""

from __future__ import annotations

import json

import pytest

from agentlab.i18n import tr
from agentlab.model import quirks
from agentlab.model.failures import ModelFailure, model_failure_class
from agentlab.model.quirks import calls_in_text, second_look, sent_back, split_content
from agentlab.model.turn import CallRequest, ModelTurn

CALL = '{"name": "analyze_csv", "arguments": {"path": "sales.csv"}}'
ARGS = '{"path": "sales.csv"}'
ONE = [("analyze_csv", ARGS)]


def look(**fields) -> ModelTurn | ModelFailure:
    """The second look at a turn made of ``fields``."""
    return second_look(ModelTurn(**{"content": None, **fields}), CallRequest)


# -- calls written as text ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text, rest, calls",
    [
        (f"<tool_call>{CALL}</tool_call>", None, ONE),
        (f"我先看一下数据。\n<tool_call>\n{CALL}\n</tool_call>", "我先看一下数据。", ONE),
        (f"<tool_call>\n{CALL}", None, ONE),  # closing tag left off
        (f"<tool_call>{CALL}</tool_call>\n<tool_call>{CALL}</tool_call>", None, ONE * 2),
        (f"[TOOL_CALLS][{CALL}, {CALL}]", None, ONE * 2),
        (f"[{CALL}]", None, ONE),
        (CALL, None, ONE),
        ('{"name": "analyze_csv", "parameters": {"path": "sales.csv"}}', None, ONE),
        ('{"type": "function", "function": {"name": "f", "parameters": {}}}', None, [("f", "{}")]),
        ('{"name": "f", "arguments": "{\\"a\\": 1}"}', None, [("f", '{"a": 1}')]),
        ('  {"name": "f"}  ', None, [("f", "{}")]),
    ],
    ids=[
        "hermes", "hermes-after-a-sentence", "hermes-unclosed", "hermes-two", "mistral-tagged",
        "mistral-bare", "bare-object", "llama-parameters", "llama-nested", "arguments-as-text",
        "no-arguments",
    ],
)  # fmt: skip
def test_the_three_formats_are_read_as_calls(text, rest, calls):
    assert calls_in_text(text) == (rest, calls)


@pytest.mark.parametrize(
    "text",
    [
        "销售额最高的是显示器。",
        '{"total": 9692, "top": "显示器"}',  # an answer that is JSON
        "[1, 2, 3]",
        '结果是 {"name": "x", "arguments": {}}，请看。',  # a call shown, not made
        '{"name": "x", "arguments": {}, "note": "an extra key"}',
        '{"name": "", "arguments": {}}',
        "[]",
    ],
)
def test_text_that_is_not_a_call_stays_an_answer(text):
    assert calls_in_text(text) is None


@pytest.mark.parametrize(
    "text",
    ['<tool_call>{"name": "f", "arguments": {</tool_call>', "[TOOL_CALLS] sorry", "<tool_call>[1]"],
)
def test_call_markers_without_a_readable_call_are_an_error(text):
    with pytest.raises(ValueError):
        calls_in_text(text)


def test_calls_read_from_text_get_no_id_and_a_warning_naming_the_fix():
    turn = look(content=f"我先看一下数据。<tool_call>{CALL}</tool_call>")
    assert [(c.id, c.name, json.loads(c.arguments)) for c in turn.calls] == [
        ("", "analyze_csv", {"path": "sales.csv"})
    ]
    assert turn.content == "我先看一下数据。"
    assert turn.notes == (tr("provider.calls_from_text", n=1),)


def test_an_unreadable_call_is_a_failure_that_names_the_servers_fix():
    failure = look(content="<tool_call>{oops</tool_call>", tokens=7)
    assert isinstance(failure, ModelFailure) and failure.tokens == 7
    assert failure.message == tr("model.call_as_text") and "--tool-call-parser" in failure.message
    assert model_failure_class(failure) == "invalid_input"  # the same server writes it again


# -- endings that are no answer -------------------------------------------------------------


@pytest.mark.parametrize("content", [None, "我来查一下销售数据。"], ids=["empty", "preamble"])
def test_a_call_announced_but_missing_is_a_transient_failure(content):
    failure = look(content=content, finish_reason="tool_calls")
    key = "provider.call_announced_text" if content else "provider.call_announced"
    assert failure.message == tr(key, reason="tool_calls")
    assert model_failure_class(failure) == "transient"


@pytest.mark.parametrize("reason", ["MALFORMED_FUNCTION_CALL", "malformed_function_call"])
def test_geminis_malformed_call_is_a_transient_failure(reason):
    failure = look(finish_reason=reason)
    assert failure.kind == "call_lost" and reason in failure.message
    assert model_failure_class(failure) == "transient"


def test_a_refusal_is_a_failure_that_keeps_its_words():
    failure = look(refusal="I'm sorry, I cannot assist with that request.", tokens=12)
    assert failure.kind == "refused" and failure.tokens == 12
    assert "I'm sorry, I cannot assist with that request." in failure.message
    assert model_failure_class(failure) == "invalid_input"  # not retried


def test_a_moderated_ending_is_still_named():
    failure = look(content="销售额是", finish_reason="content_filter")
    assert failure.message == tr("model.finish_blocked", reason="content_filter")


def test_a_call_announced_with_calls_is_a_call():
    turn = look(finish_reason="function_call", calls=[CallRequest("", "f", "{}")])
    assert isinstance(turn, ModelTurn) and [c.name for c in turn.calls] == ["f"]


# -- reasoning in the text ------------------------------------------------------------------


@pytest.mark.parametrize(
    "content, expected",
    [
        ("<think>plan</think>\n\nAnswer", ("Answer", "plan")),
        ("plan, then check.\n</think>\n\nAnswer", ("Answer", "plan, then check.")),
        ("\n</think>\n\nAnswer", ("Answer", None)),
        ("模型用 <think> 标签包住思考。", ("模型用 <think> 标签包住思考。", None)),
        ("plain", ("plain", None)),
    ],
    ids=["both-tags", "closing-tag-only", "empty-thought", "a-tag-mentioned", "none"],
)  # fmt: skip
def test_reasoning_is_split_from_the_answer(content, expected):
    assert split_content(content) == expected


def test_reasoning_found_in_the_text_joins_what_came_in_its_field():
    turn = look(content="second thought</think>Answer", reasoning="first thought")
    assert (turn.content, turn.reasoning) == ("Answer", "first thought\nsecond thought")


# -- what goes back ---------------------------------------------------------------------------


def test_only_fields_a_provider_wants_back_are_sent_back():
    fields = {
        "reasoning_content": "DeepSeek wants this back",
        "reasoning_details": [{"type": "reasoning.text", "text": "OpenRouter too"}],
        "extra_content": {"google": {"thought_signature": "c2ln"}},
        "reasoning": "Groq answers 400 if this comes back",
        "note": "Hunyuan's note on every chunk",
    }
    assert set(sent_back(fields)) == {"reasoning_content", "reasoning_details", "extra_content"}


def test_null_arguments_are_an_empty_object():
    turn = look(calls=[CallRequest("c1", "list_files", "null")], finish_reason="tool_calls")
    assert [c.arguments for c in turn.calls] == ["{}"]
    assert "function" not in (turn.call_fields or ({},))[0]  # "{}" goes back as it is


@pytest.mark.parametrize("arguments", ['{"path": "a.md"', "[1, 2]", '"text"', "{'a': 1}"])
def test_arguments_that_are_no_json_object_run_as_they_came_but_go_back_as_an_empty_one(arguments):
    """The tool gets them as sent (and says INVALID_ARGUMENTS); the history a strict
    server re-parses gets ``{}`` (vLLM answered the echoed text with HTTP 400)."""
    turn = look(calls=[CallRequest("c1", "read_text", arguments)], finish_reason="tool_calls")
    assert turn.calls[0].arguments == arguments
    message = turn.as_message()
    assert message["tool_calls"][0]["function"] == {"name": "read_text", "arguments": "{}"}
    assert message["tool_calls"][0]["id"] == "c1"


def test_a_providers_own_call_fields_stay_beside_the_replaced_function():
    signature = {"extra_content": {"google": {"thought_signature": "c2ln"}}}
    turn = look(calls=[CallRequest("c1", "f", "{broken")], call_fields=(signature,))
    (sent,) = turn.as_message()["tool_calls"]
    assert sent["extra_content"] == signature["extra_content"]
    assert sent["function"]["arguments"] == "{}"


# -- text UTF-8 cannot carry -----------------------------------------------------------------


def test_a_lone_surrogate_becomes_a_replacement_character_and_a_pair_its_emoji():
    assert quirks.without_lone_surrogates("好的\ud83d") == "好的\ufffd"
    assert quirks.without_lone_surrogates("\ud83d\ude00") == "😀"
    assert quirks.without_lone_surrogates({"k\udc00": ["x\ud800"]}) == {"k\ufffd": ["x\ufffd"]}


def test_every_string_of_the_turn_is_cleaned_and_can_be_sent_again():
    turn = look(
        content="好的\ud83d",
        reasoning="想\udc00",
        calls=[
            CallRequest("c1", "f", '{"t": "\ud83d"}'),  # the character itself
            CallRequest("c2", "f", '{"t": "\\ud83d"}'),  # its JSON escape
        ],
        extra={"reasoning_content": "想\udc00"},
    )  # fmt: skip
    json.dumps(turn.as_message(), ensure_ascii=False).encode("utf-8")
    assert [json.loads(c.arguments) for c in turn.calls] == [{"t": "\ufffd"}, {"t": "\ufffd"}]
    assert (turn.content, turn.reasoning) == ("好的\ufffd", "想\ufffd")


# -- one reply split over choices -------------------------------------------------------------


def test_choices_that_split_one_reply_are_merged():
    from openai.types.chat import ChatCompletion

    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    body = ChatCompletion.model_validate(
        {
            "id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [
                {"index": 0, "finish_reason": "stop",
                 "message": {"role": "assistant", "content": "我查一下。"}},
                {"index": 1, "finish_reason": "tool_calls",
                 "message": {"role": "assistant", "content": None, "tool_calls": [call]}},
            ],
        }
    )  # fmt: skip
    message, finish = quirks.merged_choices(body.choices)
    assert (message.content, finish) == ("我查一下。", "tool_calls")
    assert [tc.id for tc in message.tool_calls] == ["c1"]

"""Scripted clients are real openai.OpenAI objects; the SDK parses what they send."""

from __future__ import annotations

import json
import math

import openai
import pytest

from agentlab.clients import (
    HttpError,
    Reply,
    ScriptedClient,
    ToolCall,
    call,
    estimate_tokens,
    say,
    scripted,
)

pytestmark = pytest.mark.usefixtures("english")  # these tests read messages

MESSAGES = [{"role": "user", "content": "hi"}]


def test_is_a_real_openai_client_and_parses_text():
    client = ScriptedClient([say("你好")])
    assert isinstance(client, openai.OpenAI)
    response = client.chat.completions.create(model="m", messages=MESSAGES)
    assert response.choices[0].message.content == "你好"
    assert response.choices[0].finish_reason == "stop"
    assert response.model == "m"


def test_tool_calls_come_back_as_sdk_objects():
    client = ScriptedClient([call("analyze_csv", relative_path="sales.csv")])
    response = client.chat.completions.create(model="m", messages=MESSAGES)
    tc = response.choices[0].message.tool_calls[0]
    assert tc.id == "call_1_0"
    assert tc.function.name == "analyze_csv"
    assert json.loads(tc.function.arguments) == {"relative_path": "sales.csv"}
    assert response.choices[0].finish_reason == "tool_calls"


def test_raw_string_arguments_are_sent_as_is():
    client = ScriptedClient([Reply(tool_calls=(ToolCall("x", '{"broken'),))])
    response = client.chat.completions.create(model="m", messages=MESSAGES)
    assert response.choices[0].message.tool_calls[0].function.arguments == '{"broken'


def test_http_error_turn_raises_the_sdk_error():
    client = ScriptedClient([HttpError(503, "overloaded")])
    with pytest.raises(openai.InternalServerError) as info:
        client.chat.completions.create(model="m", messages=MESSAGES)
    assert info.value.status_code == 503
    assert len(client.requests) == 1  # no hidden SDK retries


def test_a_list_script_that_runs_out_is_a_server_error():
    client = ScriptedClient([say("one")])
    client.chat.completions.create(model="m", messages=MESSAGES)
    with pytest.raises(openai.InternalServerError, match="only 1 turn"):
        client.chat.completions.create(model="m", messages=MESSAGES)


def test_a_raising_policy_is_a_server_error_not_a_crash():
    def policy(conversation):
        raise KeyError("oops")

    with pytest.raises(openai.InternalServerError, match="KeyError"):
        ScriptedClient(policy).chat.completions.create(model="m", messages=MESSAGES)


def test_requests_are_recorded_with_messages_and_tools():
    client = scripted("honest_analyst")
    tools = [{"type": "function", "function": {"name": "analyze_csv", "parameters": {}}}]
    client.chat.completions.create(model="m", messages=MESSAGES, tools=tools)
    (recorded,) = client.requests
    assert recorded.number == 1
    assert recorded.messages == MESSAGES
    assert recorded.tools == tools
    assert recorded.stream is False


def test_policy_sees_the_conversation():
    seen = []

    def policy(conversation):
        seen.append((conversation.task, conversation.request_number))
        return say("ok")

    client = ScriptedClient(policy)
    client.chat.completions.create(model="m", messages=[{"role": "user", "content": "任务"}])
    assert seen == [("任务", 1)]


def test_usage_follows_the_documented_estimate():
    client = ScriptedClient([say("abcdefgh")])
    response = client.chat.completions.create(model="m", messages=MESSAGES)
    # the prompt is the messages (and tools, none here) as compact JSON
    sent = json.dumps(MESSAGES, ensure_ascii=False, separators=(",", ":"))
    prompt = math.ceil(len(sent.encode()) / 4)
    assert response.usage.prompt_tokens == prompt
    assert response.usage.completion_tokens == 2
    assert response.usage.total_tokens == prompt + 2
    assert estimate_tokens("显示器") == 3  # 9 UTF-8 bytes


def test_unknown_behaviour_names_the_known_ones():
    with pytest.raises(ValueError, match="honest_analyst"):
        scripted("genius")


def test_repr_holds_no_key():
    client = ScriptedClient([say("x")], name="demo")
    assert repr(client) == "ScriptedClient('demo', requests=0)"


def test_with_options_and_copy_keep_the_script_and_the_record():
    client = ScriptedClient([say("一"), say("二"), say("三")])
    quick = client.with_options(timeout=5, max_retries=0)
    twin = client.copy()
    assert isinstance(quick, ScriptedClient) and quick.timeout == 5
    answers = [
        c.chat.completions.create(model="m", messages=MESSAGES).choices[0].message.content
        for c in (client, quick, twin)
    ]
    assert answers == ["一", "二", "三"]  # one script, played in order across the copies
    assert len(client.requests) == len(quick.requests) == 3

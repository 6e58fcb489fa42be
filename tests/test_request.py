"""post_chat sends exactly what client.chat.completions.create would send; at the end,
retries as run_agent makes them and the trace shows them."""

from __future__ import annotations

import json

import httpx2
import openai
import pytest

from agentlab import Budget, run_agent
from agentlab.clients import HttpError, ScriptedClient, say
from agentlab.model.request import post_chat, request_body
from agentlab.tools import ToolRegistry, file_tools, sales_tools

from .conftest import plain_client

HISTORY = [
    {"role": "system", "content": "你是助手"},
    {"role": "user", "content": "读一下 meeting.md，汇总 TODO"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "read_text", "arguments": '{"rel_path": "meeting.md"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"status": "ok", "data": "TODO 一"}'},
    {"role": "assistant", "content": "好的，写入了 1 条。"},
]


def capture() -> tuple[openai.OpenAI, list[httpx2.Request]]:
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(
            200,
            json={
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": "m",
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": "ok"},
                    }
                ],
            },
        )

    return plain_client(handler), seen


@pytest.mark.parametrize("tools", [[], sales_tools().schemas(), "files"])
def test_the_bytes_on_the_wire_are_those_of_create(tools, tmp_path):
    if tools == "files":
        tools = file_tools(tmp_path).schemas()
    body = request_body("m", HISTORY, tools)
    client, seen = capture()
    client.chat.completions.create(**body)
    post_chat(client, body)
    via_create, via_post = seen
    assert via_post.method == via_create.method == "POST"
    assert via_post.url == via_create.url
    assert via_post.content == via_create.content
    assert via_post.headers["content-type"] == via_create.headers["content-type"]


def test_a_timeout_is_passed_to_the_http_layer():
    client, seen = capture()
    post_chat(client, request_body("m", HISTORY, []), timeout=1.5)
    assert seen[0].extensions["timeout"]["read"] == 1.5


def test_streamed_bodies_ask_for_usage():
    body = request_body("m", HISTORY, [], stream=True)
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    client = ScriptedClient([say("你好")])
    chunks = list(post_chat(client, body))
    assert chunks[-1].usage.total_tokens > 0
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "你好"


def test_the_sdk_never_retries_behind_the_loops_back():
    """A client built with the SDK's default of 2 retries still sends one request."""
    seen = []

    def handler(request):
        seen.append(request)
        return httpx2.Response(503, json={"error": {"message": "busy"}})

    client = plain_client(handler, max_retries=2)  # the SDK's own default
    assert client.max_retries == 2
    with pytest.raises(openai.InternalServerError):
        post_chat(client, request_body("m", HISTORY, []))
    assert len(seen) == 1


# -- retries as the trace and the count of requests show them (mutation audit) -----------


def quiet_run(client: openai.OpenAI, max_retries: int = 2):
    return run_agent(
        "问一下",
        client=client,
        tools=ToolRegistry(),
        budget=Budget(max_retries=max_retries, retry_backoff_s=0.01),
        on_text=None,
        trace_dir=False,
    )


def decide_events(result) -> list[dict]:
    return [e for e in result.events if e["event"] == "phase" and e["phase"] == "decide"]


def test_the_attempts_of_a_step_are_numbered_from_one_in_the_trace():
    """Each decide event says which attempt of its step it was: 1, then 2 after a retry."""
    result = quiet_run(ScriptedClient([HttpError(503, "busy"), say("好了")]))
    assert result.outcome == "completed" and result.model_requests == 2
    assert [(e["step"], e["attempt"], e["status"]) for e in decide_events(result)] == [
        (1, 1, "error"),
        (1, 2, "ok"),
    ]


@pytest.mark.parametrize(
    "error, requests, error_class",
    [
        ({"code": 400, "message": "bad request"}, 1, "invalid_input"),  # its own code: not retried
        ({"code": 503, "message": "upstream down"}, 3, "transient"),
        ({"message": "upstream failed"}, 3, "transient"),  # no code: the reply had begun
    ],
    ids=["400", "503", "no-code"],
)
def test_an_error_in_a_200_body_is_retried_by_its_numeric_code(error, requests, error_class):
    """A 200 reply holding only {"error": ...} counts its numeric code as the HTTP status."""
    client = plain_client(lambda request: httpx2.Response(200, json={"error": error}))
    result = quiet_run(client, max_retries=2)
    assert (result.stop_reason, result.model_requests) == ("model_error", requests)
    assert {e["error_class"] for e in decide_events(result)} == {error_class}


# -- the cheap look at every reply: only odd shapes reach quirks.py -------------------------

PLAIN_REPLIES = {
    "text": {"role": "assistant", "content": "销售额最高的是显示器，4495 元。"},
    "calls": {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "analyze_csv", "arguments": '{"path": "sales.csv"}'},
            }
        ],
    },  # fmt: skip
}
ODD_REPLIES = {
    "call-as-text": ({"role": "assistant", "content": '{"name": "f", "arguments": {}}'}, "stop"),
    "hermes-tag": ({"role": "assistant", "content": "好\n<tool_call>{}</tool_call>"}, "stop"),
    "closing-think": ({"role": "assistant", "content": "plan</think>answer"}, "stop"),
    "announced-call": ({"role": "assistant", "content": None}, "tool_calls"),
    "malformed-call": ({"role": "assistant", "content": None}, "MALFORMED_FUNCTION_CALL"),
    "refusal": ({"role": "assistant", "content": None, "refusal": "no"}, "stop"),
    "null-arguments": (
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "null"}}]},
        "tool_calls",
    ),
    "lone-surrogate": ({"role": "assistant", "content": "好\ud83d"}, "stop"),
}  # fmt: skip


def reply_with(message: dict, finish: str) -> openai.OpenAI:
    body = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": finish, "message": message}]}  # fmt: skip
    content = json.dumps(body).encode()  # escapes: a lone surrogate travels as "\ud83d"
    return plain_client(lambda request: httpx2.Response(200, content=content))


@pytest.fixture
def second_looks(monkeypatch) -> list:
    from agentlab.model import quirks

    looked: list = []
    real = quirks.second_look
    monkeypatch.setattr(quirks, "second_look", lambda *a: looked.append(a[0]) or real(*a))
    return looked


@pytest.mark.parametrize("name", PLAIN_REPLIES)
def test_a_plain_reply_never_gets_a_second_look(name, second_looks):
    finish = "tool_calls" if name == "calls" else "stop"
    from agentlab.model.request import request_turn
    from agentlab.model.turn import ModelTurn

    turn = request_turn(reply_with(PLAIN_REPLIES[name], finish), "m", [], [])
    assert isinstance(turn, ModelTurn) and second_looks == []


@pytest.mark.parametrize("name", ODD_REPLIES)
def test_every_odd_shape_gets_one(name, second_looks):
    from agentlab.model.request import request_turn

    request_turn(reply_with(*ODD_REPLIES[name]), "m", [], [])
    assert len(second_looks) == 1

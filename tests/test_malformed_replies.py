"""Replies no well-behaved service would send: each ends in a structured
error fed back to the model or a structured stop, never an exception, and
the run keeps its history.

The "service" here is a plain handler behind the SDK's HTTP stack, so the
bytes are exactly what a broken provider could put on the wire.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx2
import pytest

from agentlab import Budget, run_agent
from agentlab.i18n import tr
from agentlab.loop.trace import read_trace
from agentlab.model.failures import MAX_MESSAGE_CHARS, shown_safely
from agentlab.tools import Tool, ToolRegistry, ok

from .conftest import assert_well_formed, plain_client


def echo(text: str) -> dict:
    return ok({"echo": text})


TOOLS = ToolRegistry(
    [
        Tool(
            "echo",
            "Echo the text.",
            {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
            echo,
        )
    ]
)


def completion(message: dict | None, finish_reason: str = "stop", **extra) -> dict:
    choice = {"index": 0, "message": message, "finish_reason": finish_reason}
    return {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [choice],
        **extra,
    }


def tool_turn(*calls: dict) -> dict:
    return completion(
        {"role": "assistant", "content": None, "tool_calls": list(calls)}, "tool_calls"
    )


def fn(name: str, arguments: str, id: str | None = "c1") -> dict:
    call = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if id is not None:
        call["id"] = id
    return call


ANSWER = completion({"role": "assistant", "content": "done"})


def serve(*bodies: dict | bytes) -> Callable[[httpx2.Request], httpx2.Response]:
    """A service answering each request with the next body (JSON or raw SSE bytes)."""
    queue = list(bodies)

    def handler(request: httpx2.Request) -> httpx2.Response:
        if not queue:
            return httpx2.Response(500, json={"error": {"message": "script ran out"}})
        body = queue.pop(0)
        if isinstance(body, bytes):
            return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)
        return httpx2.Response(200, json=body)

    return handler


def run(*bodies, stream: bool = False, steps: int = 4):
    client = plain_client(serve(*bodies))
    return run_agent(
        "do it",
        client=client,
        tools=TOOLS,
        budget=Budget(max_steps=steps),
        stream=stream,
        on_text=None,
        trace_dir=False,
    )


def first_tool_error(result) -> str:
    return result.tool_results[0]["result"]["error"]["code"]


def test_a_tool_call_without_an_id_gets_one_and_the_history_stays_paired():
    result = run(tool_turn(fn("echo", '{"text": "a"}', id=None)), ANSWER)
    assert result.outcome == "completed"
    assert_well_formed(result.messages)
    assert tr("model.call_id_renamed", id="None") in result.warnings


def test_a_service_that_reuses_ids_every_turn_is_renamed_apart():
    same = fn("echo", '{"text": "a"}', id="call_0")
    result = run(tool_turn(same), tool_turn(same), ANSWER)
    assert result.steps == 3 and result.tool_calls == 2
    assert_well_formed(result.messages)


def test_two_calls_with_one_id_in_one_turn_are_told_apart():
    """Each tool message must answer exactly one call, even when a service sends one
    id for both calls of a turn."""
    first, second = fn("echo", '{"text": "a"}', id="c1"), fn("echo", '{"text": "b"}', id="c1")
    result = run(tool_turn(first, second), ANSWER)
    ids = [r["call_id"] for r in result.tool_results]
    assert len(set(ids)) == 2 and ids[0] == "c1"
    assert tr("model.call_id_renamed", id="'c1'") in result.warnings
    assert_well_formed(result.messages)


def test_empty_choices_is_a_structured_model_error():
    result = run({**ANSWER, "choices": []})
    assert (result.stop_reason, result.outcome) == ("model_error", "model_error")
    assert tr("model.no_choices") in result.warnings[-1]
    assert result.messages[-1]["role"] == "user"  # the history is kept


def test_a_null_message_is_a_structured_model_error():
    result = run(completion(None))
    assert result.stop_reason == "model_error"
    assert tr("model.bad_reply", error="")[:4] in result.warnings[-1]


def test_an_unknown_role_is_read_as_the_assistant_turn():
    result = run(completion({"role": "robot", "content": "done"}))
    assert result.outcome == "completed" and result.answer == "done"


def test_a_call_to_an_unknown_tool_is_fed_back():
    result = run(tool_turn(fn("rm_rf", "{}")), ANSWER)
    assert first_tool_error(result) == "UNKNOWN_TOOL"
    assert "echo" in result.messages[3]["content"]  # the model is told what exists
    assert_well_formed(result.messages)


@pytest.mark.parametrize("arguments", ['{"text": "a"', "[1, 2]", '"text"', "null", "{'a': 1}"])
def test_arguments_that_are_not_a_json_object_are_fed_back(arguments):
    result = run(tool_turn(fn("echo", arguments)), ANSWER)
    assert first_tool_error(result) == "INVALID_ARGUMENTS"
    assert result.stop_reason == "answered"
    assert_well_formed(result.messages)


def test_a_cut_off_reply_is_flagged():
    result = run(completion({"role": "assistant", "content": "the answer is 4"}, "length"))
    assert result.answer == "the answer is 4"
    assert any("finish_reason=length" in w for w in result.warnings)


# -- streams ---------------------------------------------------------------------------


def sse(*chunks: dict, done: bool = True) -> bytes:
    base = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    lines = [f"data: {json.dumps({**base, **c})}\n\n" for c in chunks]
    return ("".join(lines) + ("data: [DONE]\n\n" if done else "")).encode()


def delta(finish: str | None = None, **fields) -> dict:
    return {"choices": [{"index": 0, "delta": fields, "finish_reason": finish}]}


def head(index: int, id: str, name: str) -> dict:
    return delta(
        tool_calls=[
            {
                "index": index,
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": ""},
            }
        ]
    )


def piece(index: int, text: str) -> dict:
    return delta(tool_calls=[{"index": index, "function": {"arguments": text}}])


STREAMED_ANSWER = sse(delta(role="assistant", content="done"), delta("stop"))


def test_a_stream_cut_mid_call_feeds_back_invalid_arguments():
    cut = sse(head(0, "c1", "echo"), piece(0, '{"te'), done=False)  # no finish, no [DONE]
    result = run(cut, STREAMED_ANSWER, stream=True)
    assert first_tool_error(result) == "INVALID_ARGUMENTS"
    assert result.outcome == "tool_error"  # the answer followed a failed call
    assert_well_formed(result.messages)


def test_fragments_out_of_order_are_still_assembled():
    # call 1's arguments arrive before call 1's head, and the calls interleave.
    body = sse(
        head(0, "c1", "echo"),
        piece(1, '{"text": '),
        piece(0, '{"text": "a"}'),
        head(1, "c2", "echo"),
        piece(1, '"b"}'),
        delta("tool_calls"),
    )
    result = run(body, STREAMED_ANSWER, stream=True)
    assert [r["status"] for r in result.tool_results] == ["ok", "ok"]
    assert [r["result"]["data"]["echo"] for r in result.tool_results] == ["a", "b"]
    assert_well_formed(result.messages)


def test_a_stream_that_breaks_off_is_a_structured_stop():
    def handler(request: httpx2.Request) -> httpx2.Response:
        def body():
            yield sse(head(0, "c1", "echo"), done=False)
            raise httpx2.ReadError("connection dropped")

        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    client = plain_client(handler)
    result = run_agent(
        "do it", client=client, tools=TOOLS, stream=True, on_text=None, trace_dir=False
    )
    assert result.stop_reason == "model_error"
    assert result.messages[-1]["role"] == "user"


def test_garbage_instead_of_json_is_a_structured_stop():
    client = plain_client(lambda request: httpx2.Response(200, content=b"<html>oops</html>"))
    result = run_agent("do it", client=client, tools=TOOLS, trace_dir=False)
    assert result.stop_reason == "model_error"
    assert len(result.messages) == 2


DEEP = "[" * 900 + "]" * 900  # the SDK reads it; walking it on Python's stack overflows


@pytest.mark.parametrize(
    "body",
    [
        '{"error": ' + DEEP + "}",
        json.dumps({"error": {"message": "up", "metadata": {"raw": "[" * 9999 + "]" * 9999}}}),
    ],
    ids=["deep-error", "deep-openrouter-raw"],
)
@pytest.mark.parametrize("stream", [False, True])
def test_an_error_body_nested_too_deep_is_a_structured_stop(body, stream):
    client = plain_client(lambda request: httpx2.Response(400, content=body.encode()))
    result = run_agent("do it", client=client, tools=TOOLS, stream=stream, trace_dir=False)
    assert result.stop_reason == "model_error" and len(result.messages) == 2
    assert tr("provider.json_too_deep") in result.warnings[0]


def test_a_lone_surrogate_in_the_reply_keeps_the_run_and_its_trace(tmp_path):
    """JSON may escape half an emoji ("\\ud83d"), which has no UTF-8 form: it is read
    as U+FFFD where the reply enters, so the answer, the trace and any later request
    (which would carry it back) can all be written."""
    body = json.dumps(completion({"role": "assistant", "content": "好的\ud83d"}))
    assert "\\ud83d" in body  # sent as the escape, as a service would
    client = plain_client(lambda request: httpx2.Response(200, content=body.encode()))
    result = run_agent("x", client=client, tools=TOOLS, on_text=None, trace_dir=tmp_path)
    assert (result.outcome, result.answer) == ("completed", "好的\ufffd")
    assert read_trace(result.trace_path)[-1]["answer"] == "好的\ufffd"
    json.dumps(result.messages, ensure_ascii=False).encode("utf-8")  # sendable again


def test_a_key_echoed_across_the_cut_of_a_long_message_is_still_blanked():
    """Messages are cut at MAX_MESSAGE_CHARS; the key is blanked before the cut, or a
    cut through it would leave its first half."""
    key = "sk-agentlab-echo-4f1e0c2b9a77"
    text = "x" * (MAX_MESSAGE_CHARS - 30) + " your key " + key + " is wrong"
    assert key[:8] not in shown_safely(text, key)
    client = plain_client(lambda r: httpx2.Response(400, json={"error": {"message": text}}))
    client = client.with_options(api_key=key)
    result = run_agent("x", client=client, tools=TOOLS, on_text=None, trace_dir=False)
    assert result.stop_reason == "model_error" and key[:8] not in " ".join(result.warnings)

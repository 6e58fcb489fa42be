"""Provider quirks with no public recording, on streams built by hand.

EVERYTHING IN THIS FILE IS CONSTRUCTED, not recorded. The corpus README lists
these quirks under "not found": each is described in a public issue or pull
request (named in the test's docstring), but no raw bytes could be found, so the
chunks below were written from those descriptions. Ids, names and arguments
are made up. The recorded corpus is replayed in ``test_providers_replayed.py``.

The last tests feed the loop arbitrary JSON in every field a provider fills:
``run_agent`` must end with a ``RunResult`` whatever arrives.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentlab import STOP_REASONS, Budget, RunResult, run_agent
from agentlab.i18n import tr
from agentlab.model.request import request_turn
from agentlab.model.turn import ModelTurn
from agentlab.tools import Tool, ToolRegistry, ok

from ..conftest import assert_well_formed, plain_client

# -- a hand-built service ---------------------------------------------------------------


def chunk(delta: dict | None = None, finish: str | None = None, **extra: Any) -> dict:
    choice = {"index": 0, "delta": delta or {}, "finish_reason": finish}
    base = {"id": "constructed", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    return {**base, "choices": [choice], **extra}


def calls(*fragments: dict) -> dict:
    """One chunk carrying tool-call fragments."""
    return chunk({"tool_calls": list(fragments)})


def fragment(index: int | None = None, id: str | None = None, name: str | None = None, args=None):
    piece: dict[str, Any] = {}
    if index is not None:
        piece["index"] = index
    if id is not None:
        piece["id"] = id
    function = {}
    if name is not None:
        function["name"] = name
    if args is not None:
        function["arguments"] = args
    if function:
        piece["function"] = function
    return piece


def sse(*chunks: dict) -> bytes:
    return "".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks).encode() + (
        b"data: [DONE]\n\n"
    )


def completion(message: Any, finish: Any = "stop", usage: Any = None) -> dict:
    body = {
        "id": "constructed",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }
    if usage is not None:
        body["usage"] = usage
    return body


ANSWER = completion({"role": "assistant", "content": "好了"})
STREAMED_ANSWER = sse(chunk({"role": "assistant", "content": "好了"}), chunk(finish="stop"))


Reply = dict | bytes | httpx2.Response
"""A JSON body, SSE bytes, or a response the test framed itself."""


def service(*replies: Reply) -> Callable[[httpx2.Request], httpx2.Response]:
    queue = list(replies)
    seen: list[dict] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(json.loads(request.content))
        if not queue:
            return httpx2.Response(500, json={"error": {"message": "no more"}})
        reply = queue.pop(0)
        if isinstance(reply, httpx2.Response):  # framed by the test itself
            return reply
        if isinstance(reply, bytes):
            return httpx2.Response(
                200, headers={"content-type": "text/event-stream"}, content=reply
            )
        return httpx2.Response(200, json=reply)

    handler.seen = seen  # type: ignore[attr-defined]
    return handler


class Recorder:
    """Tools that note every call they really ran."""

    def __init__(self) -> None:
        self.ran: list[tuple[str, dict]] = []

    def registry(self, *names: str) -> ToolRegistry:
        def make(name: str):
            def run(**arguments: Any) -> dict:
                self.ran.append((name, arguments))
                return ok({"echo": arguments})

            return run

        schema = {"type": "object", "additionalProperties": True}
        return ToolRegistry([Tool(n, n, schema, make(n)) for n in names])


def turn_of(body: bytes) -> ModelTurn:
    turn = request_turn(plain_client(service(body)), "m", [], [], stream=True, on_text=None)
    assert isinstance(turn, ModelTurn), turn
    return turn


def assembled(body: bytes) -> list[tuple[str, str, dict]]:
    return [(c.id, c.name, json.loads(c.arguments)) for c in turn_of(body).calls]


# -- the assembly rule ------------------------------------------------------------------


def test_a_fresh_id_on_every_fragment_does_not_split_the_call():
    """Kimi kimi-for-coding / K2.6 (described in NousResearch/hermes-agent PR 45164):
    ``index`` stays 0, every fragment has a new id, the name comes only first."""
    body = sse(
        calls(fragment(0, "tool_first", "skill_view", "")),
        calls(fragment(0, "tool_second", args='{"')),
        calls(fragment(0, "tool_third", args='name": "pdf')),
        calls(fragment(0, "tool_fourth", args='"}')),
        chunk(finish="tool_calls"),
    )
    assert assembled(body) == [("tool_first", "skill_view", {"name": "pdf"})]


@pytest.mark.parametrize("index", [0, None], ids=["with-index", "without-index"])
def test_empty_names_and_per_fragment_ids_continue_the_call(index):
    """LM Studio (described in NousResearch/hermes-agent issue 5254): continuations
    carry ``name: ""`` and their own ids."""
    body = sse(
        calls(fragment(index, "701601222", "shell", "")),
        calls(fragment(index, "tool-call-1", "", '{\n "command"')),
        calls(fragment(index, "tool-call-2", "", ': "ls"}')),
        chunk(finish="tool_calls"),
    )
    assert assembled(body) == [("701601222", "shell", {"command": "ls"})]


def test_two_ids_for_one_call_are_one_call():
    """A server sending a second id mid-call (described in poolsideai/pool issue 9)."""
    body = sse(
        calls(fragment(0, "call_a", "read_text", '{"rel_path": ')),
        calls(fragment(0, "call_b", args='"meeting.md"}')),
        chunk(finish="tool_calls"),
    )
    assert assembled(body) == [("call_a", "read_text", {"rel_path": "meeting.md"})]


def test_parallel_calls_with_neither_index_nor_id_are_told_apart_by_name():
    """Gemini's OpenAI-compatible stream (described in open-webui/computer issue 224):
    whole calls, no index, no id. The loop gives them ids of its own."""
    body = sse(
        calls(fragment(name="weather", args='{"city": "Paris"}')),
        calls(fragment(name="weather", args='{"city": "Rome"}')),
        chunk(finish="tool_calls"),
    )
    tools = Recorder()
    handler = service(body, STREAMED_ANSWER)
    result = run_agent(
        "x",
        client=plain_client(handler),
        tools=tools.registry("weather"),
        stream=True,
        on_text=None,
        trace_dir=False,
    )
    assert tools.ran == [("weather", {"city": "Paris"}), ("weather", {"city": "Rome"})]
    assert [r["call_id"] for r in result.tool_results] == ["call_1_0", "call_1_1"]
    assert result.outcome == "completed"
    assert_well_formed(handler.seen[1]["messages"])


def test_calls_opened_first_and_filled_later_without_index():
    """Two heads, then argument pieces with no index: each piece fills the call
    still waiting for whole arguments, not the call opened last."""
    body = sse(
        calls(fragment(0, "a", "read_text", "")),
        calls(fragment(1, "b", "list_dir", "")),
        calls(fragment(args='{"rel_path"')),
        calls(fragment(args=': "a.md"}')),
        calls(fragment(args='{"rel_path": "."}')),
        chunk(finish="tool_calls"),
    )
    assert assembled(body) == [
        ("a", "read_text", {"rel_path": "a.md"}),
        ("b", "list_dir", {"rel_path": "."}),
    ]


def test_the_name_repeated_on_every_fragment_is_not_doubled():
    """Fireworks / Kimi K2.5 (described in NousResearch/hermes-agent issue 8089)."""
    body = sse(
        calls(fragment(0, "functions.search:0", "search_files", '{"q": ')),
        calls(fragment(0, "functions.search:0", "search_files", '"todo"}')),
        chunk(finish="tool_calls"),
    )
    assert assembled(body) == [("functions.search:0", "search_files", {"q": "todo"})]


def test_the_name_and_a_fresh_id_on_every_fragment_is_still_one_call():
    """Both reports above at once (name repeated, a new id each time): while the
    arguments are unfinished JSON, the same name continues the call."""
    body = sse(
        calls(fragment(0, "id-1", "search_files", '{"q": ')),
        calls(fragment(0, "id-2", "search_files", '"to')),
        calls(fragment(0, "id-3", "search_files", 'do"}')),
        chunk(finish="tool_calls"),
    )
    assert assembled(body) == [("id-1", "search_files", {"q": "todo"})]


def test_another_name_starts_another_call_even_mid_arguments():
    """The rule's other half: a different function name is a new call, and the call
    it interrupts keeps its broken arguments (fed back as INVALID_ARGUMENTS)."""
    body = sse(
        calls(fragment(name="read_text", args='{"rel_path": ')),
        calls(fragment(name="list_dir", args="{}")),
        chunk(finish="tool_calls"),
    )
    turn = turn_of(body)
    assert [(c.name, c.arguments) for c in turn.calls] == [
        ("read_text", '{"rel_path": '),
        ("list_dir", "{}"),
    ]


def test_same_index_same_name_distinct_ids_are_two_calls():
    """All parallel calls at ``index: 0`` (described in su-kaka/gcli2api PR 406)."""
    body = sse(
        calls(fragment(0, "x1", "weather", '{"city": ')),
        calls(fragment(0, args='"Oslo"}')),
        calls(fragment(0, "x2", "weather", '{"city": "Lima"}')),
        chunk(finish="tool_calls"),
    )
    assert assembled(body) == [
        ("x1", "weather", {"city": "Oslo"}),
        ("x2", "weather", {"city": "Lima"}),
    ]


def test_the_signature_on_a_call_goes_back_with_it():
    """Gemini 3 parallel calls: only the first carries ``extra_content`` (pipecat PR 3420)."""
    signed = {**fragment(name="weather", args='{"city": "Oslo"}')}
    signed["extra_content"] = {"google": {"thought_signature": "c2lnbmF0dXJl"}}
    body = sse(calls(signed), calls(fragment(name="weather", args='{"city": "Lima"}')))
    handler = service(body, STREAMED_ANSWER)
    run_agent(
        "x",
        client=plain_client(handler),
        tools=Recorder().registry("weather"),
        stream=True,
        on_text=None,
        trace_dir=False,
    )
    sent = [m for m in handler.seen[1]["messages"] if m["role"] == "assistant"][0]["tool_calls"]
    assert sent[0]["extra_content"] == {"google": {"thought_signature": "c2lnbmF0dXJl"}}
    assert "extra_content" not in sent[1]


# -- a reply cut off inside its tool calls ----------------------------------------------

CUT_ARGS = '{"rel_path": "report.md", "text": "总销售额 96'


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_cut_off_tool_call_is_not_run_and_the_run_is_not_completed(stream):
    """``finish_reason: "length"`` inside the arguments (vLLM issues 53269, 9053
    describe it; no raw frames found)."""
    if stream:
        reply: dict | bytes = sse(
            calls(fragment(0, "c1", "write_text", "")),
            calls(fragment(0, args=CUT_ARGS)),
            chunk(finish="length"),
        )
    else:
        call = {"id": "c1", "type": "function", "function": {"name": "write_text"}}
        call["function"]["arguments"] = CUT_ARGS
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        reply = completion(message, "length")
    tools = Recorder()
    result = run_agent(
        "写报告",
        client=plain_client(service(reply)),
        tools=tools.registry("write_text"),
        stream=stream,
        on_text=None,
        trace_dir=False,
    )
    assert tools.ran == []
    assert (result.stop_reason, result.outcome, result.status) == (
        "max_tokens",
        "budget_exhausted",
        "failed",
    )
    assert result.warnings[-1] == tr("provider.cut_off_calls", n=1)
    assert [r["result"]["error"]["code"] for r in result.tool_results] == ["NOT_RUN"]
    assert_well_formed(result.messages)


def test_even_whole_arguments_are_not_run_from_a_cut_off_reply():
    """A cut may fall between two calls: the first looks whole, the second is lost."""
    whole = {"id": "c1", "type": "function", "function": {"name": "write_text"}}
    whole["function"]["arguments"] = '{"rel_path": "a.md", "text": "x"}'
    reply = completion({"role": "assistant", "tool_calls": [whole]}, "length")
    tools = Recorder()
    result = run_agent(
        "x", client=plain_client(service(reply)), tools=tools.registry("write_text"), on_text=None
    )
    assert tools.ran == [] and result.stop_reason == "max_tokens"


# -- reasoning where the answer usually is ----------------------------------------------


def test_a_streamed_think_block_goes_to_reasoning_even_when_its_tags_are_cut():
    """A ``<think>`` block streamed in ``content`` (vLLM without a reasoning parser; the
    corpus has it non-streamed only), tags cut across deltas."""
    pieces = ["\n<thi", "nk>\nplan", " more</th", "ink>\n\n", "Ans", "wer"]
    body = sse(*(chunk({"content": p}) for p in pieces), chunk(finish="stop"))
    shown: list[str] = []
    thought: list[str] = []
    client = plain_client(service(body))
    turn = request_turn(
        client, "m", [], [], stream=True, on_text=shown.append, on_reasoning=thought.append
    )
    assert (turn.content, turn.reasoning) == ("Answer", "plan more")
    assert "".join(shown) == "Answer\n"
    assert "".join(thought).strip() == "plan more"


def test_a_think_block_after_much_whitespace_is_still_reasoning():
    """However much whitespace comes first, a reply opening with ``<think>`` keeps its
    reasoning out of the answer (the quick plain-shape check once looked at 64 characters)."""
    message = {"role": "assistant", "content": " " * 70 + "<think>plan</think>Answer"}
    client = plain_client(service(completion(message)))
    turn = request_turn(client, "m", [], [])
    assert (turn.content, turn.reasoning) == ("Answer", "plan")


def test_text_that_only_looks_like_a_tag_is_the_answer():
    body = sse(chunk({"content": "<th"}), chunk({"content": "is> is fine"}), chunk(finish="stop"))
    assert turn_of(body).content == "<this> is fine"


def test_magistral_thinking_parts_with_a_tool_call():
    """Typed ``thinking`` parts beside a call (Magistral's shape, its call made up)."""
    message = {
        "role": "assistant",
        "content": [{"type": "thinking", "thinking": [{"type": "text", "text": "need data"}]}],
        "tool_calls": [
            {"id": "m1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    }
    tools = Recorder()
    handler = service(completion(message, "tool_calls"), ANSWER)
    result = run_agent(
        "x", client=plain_client(handler), tools=tools.registry("f"), on_text=None, trace_dir=False
    )
    assert tools.ran == [("f", {})] and result.outcome == "completed"
    assert result.reasoning == ["need data", None]
    assert handler.seen[1]["messages"][2]["content"] is None  # thinking is not the answer


def test_a_streamed_magistral_answer_prints_only_the_answer(capsys):
    """The recorded Magistral stream with the default ``on_text`` (printing)."""
    from .test_providers_replayed import CORPUS

    t = CORPUS["mistral/magistral-medium-typed-parts-stream"]
    client = plain_client(service(t["response"]["sse"].encode()))
    result = run_agent("2+2?", client=client, tools=Recorder().registry(), stream=True)
    assert capsys.readouterr().out == "2 + 2 = 4\n"
    assert result.answer == "2 + 2 = 4" and result.outcome == "completed"
    assert result.reasoning == [t["expect"]["reasoning"]]


# -- nothing a provider sends makes run_agent raise -------------------------------------

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False)
    | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
PLAIN_PLACES = [
    ("choices",),
    ("choices", 0),
    ("choices", 0, "message"),
    ("choices", 0, "message", "content"),
    ("choices", 0, "message", "tool_calls"),
    ("choices", 0, "message", "tool_calls", 0),
    ("choices", 0, "message", "tool_calls", 0, "id"),
    ("choices", 0, "message", "tool_calls", 0, "function"),
    ("choices", 0, "message", "tool_calls", 0, "function", "name"),
    ("choices", 0, "message", "tool_calls", 0, "function", "arguments"),
    ("choices", 0, "message", "tool_calls", 0, "extra_content"),
    ("choices", 0, "message", "reasoning_content"),
    ("choices", 0, "message", "reasoning_details"),
    ("choices", 0, "message", "function_call"),
    ("choices", 0, "finish_reason"),
    ("usage",),
    ("usage", "total_tokens"),
]
STREAM_PLACES = [
    (0, "choices"),
    (0, "choices", 0, "delta"),
    (0, "choices", 0, "delta", "content"),
    (0, "choices", 0, "delta", "reasoning_content"),
    (1, "choices", 0, "delta", "tool_calls"),
    (1, "choices", 0, "delta", "tool_calls", 0),
    (1, "choices", 0, "delta", "tool_calls", 0, "index"),
    (1, "choices", 0, "delta", "tool_calls", 0, "id"),
    (1, "choices", 0, "delta", "tool_calls", 0, "function"),
    (1, "choices", 0, "delta", "tool_calls", 0, "function", "arguments"),
    (1, "choices", 0, "delta", "function_call"),
    (2, "choices", 0, "finish_reason"),
    (2, "usage"),
]


def replaced(document: Any, place: tuple, value: Any) -> Any:
    document = json.loads(json.dumps(document))
    target = document
    for key in place[:-1]:
        target = target[key]
    target[place[-1]] = value
    return document


def a_call_turn() -> dict:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
    message = {"role": "assistant", "content": "x", "tool_calls": [call]}
    return completion(
        message, "tool_calls", {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    )


def a_call_stream() -> list[dict]:
    return [
        chunk({"role": "assistant", "content": "x"}),
        calls(fragment(0, "c1", "f", '{"a": 1}')),
        chunk(
            finish="tool_calls",
            usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        ),
    ]


def assert_a_run_result(result: Any) -> None:
    assert isinstance(result, RunResult)
    assert result.stop_reason in STOP_REASONS
    json.dumps(result.messages)  # the history could be sent again


def run_on_reply(reply: dict) -> RunResult:
    """A short run whose first model reply is ``reply`` (not streamed)."""
    return run_agent(
        "x",
        client=plain_client(service(reply, ANSWER)),
        tools=Recorder().registry("f"),
        on_text=None,
        trace_dir=False,
        budget=Budget(max_steps=3),
    )


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(place=st.sampled_from(PLAIN_PLACES), value=JSON)
def test_any_json_in_any_field_of_a_reply_ends_in_a_run_result(place, value):
    reply = replaced(a_call_turn(), place, value)
    assert_a_run_result(run_on_reply(reply))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(place=st.sampled_from(STREAM_PLACES), value=JSON)
def test_any_json_in_any_field_of_a_stream_ends_in_a_run_result(place, value):
    number, path = place[0], place[1:]
    chunks = a_call_stream()
    chunks[number] = replaced(chunks[number], path, value)
    result = run_agent(
        "x",
        client=plain_client(service(sse(*chunks), STREAMED_ANSWER)),
        tools=Recorder().registry("f"),
        stream=True,
        on_text=None,
        on_reasoning=lambda text: None,
        trace_dir=False,
        budget=Budget(max_steps=3),
    )
    assert_a_run_result(result)


def deeply_nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("depth", [500, 5000])
def test_arguments_nested_hundreds_deep_are_a_tool_error_not_a_crash(stream, depth):
    arguments = '{"cfg": ' + "[" * depth + "]" * depth + "}"  # too deep for json.dumps itself
    if stream:
        body = sse(calls(fragment(0, "c1", "f", arguments)), chunk(finish="tool_calls"))
    else:
        call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        body = completion(message, "tool_calls")
    recorder = Recorder()
    result = run_agent(
        "x",
        client=plain_client(service(body, STREAMED_ANSWER if stream else ANSWER)),
        tools=recorder.registry("f"),
        stream=stream,
        on_text=None,
        trace_dir=False,
    )
    assert_a_run_result(result)
    assert result.tool_results[0]["result"]["error"]["code"] == "INVALID_ARGUMENTS"


@pytest.mark.parametrize("place", PLAIN_PLACES)
def test_a_value_nested_thousands_deep_in_any_field_ends_in_a_run_result(place):
    reply = replaced(a_call_turn(), place, deeply_nested(3000))
    assert_a_run_result(run_on_reply(reply))


def test_kimi_usage_inside_the_finishing_choice_is_counted():
    """Moonshot (Kimi) streams its usage inside ``choices[0].usage``, beside
    ``finish_reason``, not at the top of the chunk (earendil-works/pi issue 2017; the
    same shape is kept in code comments the index could not tie to a repository).
    Ignored, a Kimi run would report 0 tokens and a budget on tokens never trips."""
    usage = {"prompt_tokens": 39, "completion_tokens": 211, "total_tokens": 250}
    body = sse(
        chunk({"role": "assistant", "content": "好了"}),
        {
            **chunk(finish="stop"),
            "choices": [{**chunk(finish="stop")["choices"][0], "usage": usage}],
        },
    )
    turn = turn_of(body)
    assert (turn.tokens, turn.usage_reported) == (250, True)


def test_a_finish_reason_in_a_chunk_without_delta_still_counts():
    final = chunk(finish="length")
    del final["choices"][0]["delta"]
    body = sse(chunk({"content": "the answer is"}), final)
    assert turn_of(body).finish_reason == "length"


# -- replies that end badly (documented values, constructed replies) -------------------


def run_with(*replies: Reply, stream: bool = False, retries: int = 0) -> RunResult:
    return run_agent(
        "说说销售额",
        client=plain_client(service(*replies)),
        tools=Recorder().registry("x"),
        stream=stream,
        on_text=None,
        trace_dir=False,
        budget=Budget(max_retries=retries, retry_backoff_s=0.01),
    )


def ending(finish: str, stream: bool) -> dict | bytes:
    """A text reply that ends with ``finish``, plain or streamed."""
    if stream:
        return sse(chunk({"role": "assistant", "content": "销售额是"}), chunk(finish=finish))
    return completion({"role": "assistant", "content": "销售额是"}, finish)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("finish", ["content_filter", "sensitive"])
def test_a_reply_the_providers_moderation_stopped_is_not_an_answer(finish, stream):
    """OpenAI's and Zhipu's API references (docs.bigmodel.cn, 推理终止原因: "'sensitive'
    表示内容被安全审核接口拦截"): the text is cut where the filter struck. Not retried:
    the same request would be blocked again."""
    result = run_with(ending(finish, stream), ANSWER, stream=stream, retries=2)
    assert (result.stop_reason, result.outcome, result.model_requests) == (
        "model_error",
        "model_error",
        1,
    )
    assert tr("model.finish_blocked", reason=finish) in result.warnings[-1]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("finish", ["insufficient_system_resource", "network_error", "error"])
def test_a_reply_the_service_failed_to_finish_is_retried(finish, stream):
    """DeepSeek's API reference (insufficient_system_resource), Zhipu's (network_error:
    模型推理异常), OpenRouter's (error): the service broke off; asking again may work."""
    answer = sse(chunk({"role": "assistant", "content": "好了"}), chunk(finish="stop"))
    then = answer if stream else ANSWER
    result = run_with(ending(finish, stream), then, stream=stream, retries=1)
    assert (result.outcome, result.answer, result.model_requests) == ("completed", "好了", 2)
    alone = run_with(ending(finish, stream), stream=stream)
    assert alone.stop_reason == "model_error" and "transient" in alone.warnings[-1]
    assert tr("model.finish_service_error", reason=finish) in alone.warnings[-1]


def test_an_unknown_finish_reason_is_an_answer_with_a_warning():
    result = run_with(completion({"role": "assistant", "content": "好了"}, "eos"))
    assert (result.outcome, result.answer) == ("completed", "好了")
    assert tr("model.unknown_finish_reason", reason="eos") in result.warnings


def test_a_stream_that_stops_without_a_finish_reason_is_flagged():
    """A proxy closing the stream cleanly after the upstream reset (tetsuo-ai/agenc-core
    PR 2492): text but no finish_reason, no [DONE]."""
    cut = "".join(
        f"data: {json.dumps(c, ensure_ascii=False)}\n\n"
        for c in [chunk({"role": "assistant", "content": "销售额最高的是"})]
    ).encode()
    result = run_with(cut, stream=True)
    assert result.answer == "销售额最高的是"
    assert tr("model.no_finish_reason") in result.warnings


@pytest.mark.parametrize(
    "body",
    [b"", b"data: [DONE]\n\n", b'{"error": {"message": "overloaded"}}', b"<html>502</html>"],
    ids=["empty", "only-done", "json", "html"],
)
def test_a_stream_with_nothing_in_it_is_not_an_answer(body):
    """HTTP 200 to a streamed request, but no chunk at all: nothing was answered."""
    result = run_with(body, stream=True)
    assert (result.stop_reason, result.outcome) == ("model_error", "model_error")
    assert tr("model.empty_stream") in result.warnings[-1]


def test_an_error_body_with_http_200_counts_its_own_code():
    """OpenRouter's error docs: once a reply has begun "the returned HTTP response
    status will be 200 and any error ... will be emitted in the response body". The
    body is OpenRouter's recorded 429 (openrouter/provider-error-429-rate-limited-upstream),
    sent with 200 here."""
    body = {"error": {"message": "Provider returned error", "code": 429}}
    body["error"]["metadata"] = {"raw": "temporarily rate-limited upstream", "provider_name": "X"}
    result = run_with(body, ANSWER, retries=1)
    assert (result.outcome, result.model_requests) == ("completed", 2)
    alone = run_with(body)
    assert "Provider returned error (X: temporarily rate-limited upstream)" in alone.warnings[-1]
    assert tr("model.error_body", detail="") in alone.warnings[-1]


@pytest.mark.parametrize("code", [1000, 1001, 1002, 1024, 1033])
def test_minimax_codes_its_docs_say_to_try_again_are_retried(code):
    """MiniMax's error-code page (platform.minimaxi.com/docs/api-reference/errorcode:
    1000 未知错误, 1001 请求超时, 1002 请求频率超限, 1024 内部错误, 1033 系统错误, each
    "请稍后再试"). The body is the recorded minimax/plan-not-support-model-200 with its
    ``base_resp`` replaced; every other code is not retried (that transcript's 2061)."""
    body = {"id": "constructed", "choices": None, "created": 0, "model": "m"}
    body |= {"object": "chat.completion", "base_resp": {"status_code": code, "status_msg": "x"}}
    result = run_with(body, ANSWER, retries=1)
    assert (result.outcome, result.model_requests) == ("completed", 2)
    alone = run_with(body)
    assert "transient" in alone.warnings[-1] and f"{code}" in alone.warnings[-1]


def test_a_reply_that_arrived_and_failed_still_counts_its_tokens():
    """The provider bills a filtered reply: max_tokens must see it."""
    filtered = completion({"role": "assistant", "content": "销售额是"}, "content_filter")
    filtered["usage"] = {"prompt_tokens": 40, "completion_tokens": 10, "total_tokens": 50}
    result = run_with(filtered)
    assert (result.stop_reason, result.tokens) == ("model_error", 50)


# -- replies in the other framing than asked for (issues describe them; constructed) --------


def framed(content_type: str, body: str | bytes) -> httpx2.Response:
    content = body.encode() if isinstance(body, str) else body
    return httpx2.Response(200, headers={"content-type": content_type}, content=content)


CALL = {"id": "c1", "type": "function", "function": {"name": "x", "arguments": '{"n": 1}'}}
USAGE = {"prompt_tokens": 30, "completion_tokens": 5, "total_tokens": 35}


def test_a_stream_asked_for_and_one_json_document_sent_is_read_as_it_is():
    """A server that ignores "stream": true and always answers with JSON
    (BaseIntelligence/bounty-challenge issue 17821; NextChat PR 1585 reads such replies)."""
    first = completion({"role": "assistant", "content": None, "tool_calls": [CALL]}, "tool_calls")
    first["usage"] = USAGE
    tools = Recorder()
    result = run_agent(
        "说说销售额",
        client=plain_client(service(framed("application/json", json.dumps(first)), ANSWER)),
        tools=tools.registry("x"),
        stream=True,
        on_text=None,
        trace_dir=False,
    )
    assert (result.outcome, result.answer, tools.ran) == ("completed", "好了", [("x", {"n": 1})])
    assert result.tokens >= 35
    assert tr("provider.json_for_stream") in result.warnings


@pytest.mark.parametrize(
    "message, shown",
    [
        ({"role": "assistant", "content": "好了", "reasoning_content": "想一想"}, ["好了"]),
        ({"role": "assistant", "content": None, "tool_calls": [CALL]}, []),
    ],
    ids=["text", "only-calls"],
)
def test_a_json_document_for_a_stream_still_shows_its_text_once(message, shown):
    """Live display (``on_text``) gets the whole text at once, and the reasoning goes
    to ``on_reasoning``, as a stream would have sent them; no text, no call."""
    texts: list[str] = []
    thoughts: list[str] = []
    reply = framed("application/json", json.dumps(completion(message)))
    turn = request_turn(
        plain_client(service(reply)),
        "m",
        [],
        [],
        stream=True,
        on_text=texts.append,
        on_reasoning=thoughts.append,
    )
    assert isinstance(turn, ModelTurn), turn
    assert texts == shown
    assert thoughts == (["想一想"] if shown else [])


def test_a_json_document_for_a_stream_is_shown_without_the_key():
    """The text shown at once goes through the run's display like streamed text, so a
    real key the model echoes is blanked there too (constructed)."""
    key = "sk-echoed-canary-1234567890"
    message = {"role": "assistant", "content": f"第一行\nyour key is {key}"}
    client = plain_client(service(framed("application/json", json.dumps(completion(message)))))
    client.api_key = key
    shown: list[str] = []
    result = run_agent(
        "说说", client=client, tools=ToolRegistry(), stream=True, on_text=shown.append,
        trace_dir=False,
    )  # fmt: skip
    assert result.stop_reason == "answered"
    assert "第一行" in "".join(shown) and key not in "".join(shown)


@pytest.mark.parametrize("with_data_prefix", [False, True], ids=["bare", "data-line"])
def test_a_plain_reply_framed_as_sse_is_read_as_it_is(with_data_prefix):
    """9router issue 3492: a request without "stream" got a complete chat.completion,
    sent as text/event-stream with "data: [DONE]" glued after it."""
    document = json.dumps(completion({"role": "assistant", "content": "好了"}, usage=USAGE))
    body = ("data: " if with_data_prefix else "") + document + "\n\ndata: [DONE]\n\n"
    result = run_with(framed("text/event-stream", body))
    assert (result.outcome, result.answer, result.tokens) == ("completed", "好了", 35)
    assert tr("provider.sse_for_plain") in result.warnings


def test_a_plain_request_answered_with_a_stream_is_assembled():
    """Servers that ignore "stream": false and always stream (kaito-project/kaito issue 1880,
    unslothai/unsloth issue 6570, jingyaogong/minimind PR 851)."""
    body = sse(
        chunk({"role": "assistant", "content": None}),
        calls(fragment(0, "c1", "x", '{"n"'), fragment(0, args=": 1}")),
        chunk(finish="tool_calls"),
    )
    tools = Recorder()
    result = run_agent(
        "说说销售额",
        client=plain_client(service(framed("text/event-stream", body), ANSWER)),
        tools=tools.registry("x"),
        on_text=None,
        trace_dir=False,
    )
    assert (result.outcome, result.answer, tools.ran) == ("completed", "好了", [("x", {"n": 1})])
    assert tr("provider.sse_for_plain") in result.warnings


def test_a_plain_request_answered_with_a_stream_labelled_json_is_assembled():
    """The same always-streaming server behind a proxy that labels every body
    application/json: the SDK's own JSON parser fails on it (constructed)."""
    body = sse(chunk({"role": "assistant", "content": "好了"}), chunk(finish="stop"))
    result = run_with(framed("application/json", body))
    assert (result.outcome, result.answer) == ("completed", "好了")
    assert tr("provider.sse_for_plain") in result.warnings


def test_a_web_page_labelled_json_is_named_by_its_title():
    """A gateway's error page sent as application/json (constructed): the
    SDK cannot parse it, and the student is told what the page says."""
    page = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
    result = run_with(framed("application/json", page), ANSWER, retries=2)
    assert (result.stop_reason, result.model_requests) == ("model_error", 1)
    assert tr("model.not_json", detail="502 Bad Gateway") in result.warnings[-1]


def test_broken_json_labelled_json_is_not_blamed_on_base_url():
    """A JSON body cut short is a broken reply from the API itself, not a page:
    the parser's own words, not "check base_url" (constructed)."""
    document = json.dumps(completion({"role": "assistant", "content": "好了"}))
    result = run_with(framed("application/json", document[:60]))
    assert result.stop_reason == "model_error"
    assert "JSONDecodeError" in result.warnings[-1] and "base_url" not in result.warnings[-1]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_web_page_instead_of_the_api_is_named_and_not_retried(stream):
    """A base_url pointing at a site, not its API: HTTP 200 and a page."""
    page = "<!DOCTYPE html><html><head><title>控制台 &amp; 文档</title></head><body>..."
    result = run_with(framed("text/html; charset=utf-8", page), ANSWER, stream=stream, retries=2)
    assert (result.stop_reason, result.model_requests) == ("model_error", 1)
    assert tr("model.not_json", detail="控制台 & 文档") in result.warnings[-1]


def test_an_error_document_sent_for_a_stream_keeps_its_words_and_code():
    """The JSON error body of test_an_error_body_with_http_200_counts_its_own_code,
    sent to a streamed request with its own content type."""
    error = {"error": {"message": "Model overloaded, try later", "code": 503}}
    answer = sse(chunk({"role": "assistant", "content": "好了"}), chunk(finish="stop"))
    result = run_with(framed("application/json", json.dumps(error)), answer, stream=True, retries=1)
    assert (result.outcome, result.model_requests) == ("completed", 2)
    alone = run_with(framed("application/json", json.dumps(error)), stream=True)
    assert "Model overloaded, try later" in alone.warnings[-1]


@pytest.mark.parametrize(
    "content_type", ["Application/JSON; charset=UTF-8", "APPLICATION/JSON"], ids=["mixed", "upper"]
)
def test_a_json_label_in_capitals_is_still_json(content_type):
    """Media types are case-insensitive (RFC 9110, 8.3.1); constructed labels."""
    reply = framed(content_type, json.dumps(ANSWER))
    result = run_with(reply, stream=True)
    assert (result.outcome, result.answer) == ("completed", "好了")
    assert tr("provider.json_for_stream") in result.warnings


def test_a_web_page_labelled_in_capitals_is_still_a_web_page():
    page = "<!DOCTYPE html><html><head><title>Console</title></head><body>...</body></html>"
    result = run_with(framed("Text/HTML; Charset=UTF-8", page), stream=True)
    assert tr("model.not_json", detail="Console") in result.warnings[-1]


def test_a_stream_labelled_as_json_is_called_a_stream_not_a_json_document():
    """The warning says what arrived: SSE (as asked) under an ``application/json`` label
    is not "one JSON document". Constructed: the label is the only thing wrong."""
    result = run_with(framed("application/json", STREAMED_ANSWER), stream=True)
    assert (result.outcome, result.answer) == ("completed", "好了")
    assert tr("provider.json_for_stream") not in result.warnings
    assert tr("provider.stream_mislabelled") in result.warnings


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{\n  "a": 1\n}\n', [{"a": 1}]),
        ('{"a": 1}data: [DONE]', [{"a": 1}]),
        (': ping\n\ndata: {"a": 1}\n\ndata:{"b": 2}\n\ndata: [DONE]\n\n', [{"a": 1}, {"b": 2}]),
        ("data: [1, 2]\n\ndata: {broken\n\n", []),
        ("[1, 2]", []),
        ("<html>502</html>", []),
    ],
    ids=["pretty", "stray-done", "sse", "no-objects", "list", "html"],
)
def test_json_payloads_finds_the_objects_in_either_framing(text, expected):
    from agentlab.model.quirks import json_payloads

    assert json_payloads(text) == expected


DEEP = "[" * 100_000
"""Deeper than Python's JSON parser goes (it raises RecursionError). Constructed."""


@pytest.mark.parametrize(
    "text",
    [DEEP, f"data: {DEEP}\n\ndata: [DONE]\n\n", '{"a": ' + DEEP + "]" * 100_000 + "}"],
    ids=["document", "data-line", "closed"],
)
def test_json_payloads_treats_json_nested_too_deep_as_not_json(text):
    from agentlab.model.quirks import json_document, json_payloads

    assert json_payloads(text) == [] and json_document(text) is None


@pytest.mark.parametrize(
    "content_type, stream",
    [("application/json", True), ("text/event-stream", False), ("application/json", False)],
    ids=["json-for-stream", "sse-for-plain", "json-for-plain"],
)
def test_a_body_nested_too_deep_is_named_not_json(content_type, stream):
    """The last case is read by the SDK itself, whose parser raises RecursionError."""
    result = run_with(framed(content_type, DEEP), stream=stream)
    assert (result.stop_reason, result.model_requests) == ("model_error", 1)
    assert tr("model.not_json", detail="\0").split("\0")[0] in result.warnings[-1]
    assert "RecursionError" not in result.warnings[-1]


def test_usage_without_a_total_counts_prompt_and_completion():
    result = run_with(completion({"role": "assistant", "content": "好了"}, usage=USAGE_NO_TOTAL))
    assert result.tokens == 15


USAGE_NO_TOTAL = {"prompt_tokens": 10, "completion_tokens": 5}


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_an_error_body_that_echoes_the_key_is_blanked(stream, tmp_path):
    """HTTP 200 with only an error, quoting the key (as some services quote it in a 401)."""
    key = "sk-echoed-canary-1234567890"
    body = {"error": {"message": f"Incorrect API key provided: {key}", "code": 401}}
    reply = framed("application/json", json.dumps(body)) if stream else body
    client = plain_client(service(reply))
    client.api_key = key
    result = run_agent(
        "说说销售额", client=client, tools=ToolRegistry(), stream=stream, trace_dir=tmp_path
    )
    assert result.stop_reason == "model_error" and "Incorrect API key" in result.warnings[-1]
    assert key not in json.dumps(result.warnings) + Path(result.trace_path).read_text("utf-8")


def test_an_empty_fragment_is_not_a_call_of_its_own():
    body = sse(
        calls(fragment(0, "c1", "x", '{"n": 1}')), calls(fragment(1)), chunk(finish="tool_calls")
    )
    assert assembled(body) == [("c1", "x", {"n": 1})]


def test_a_later_chunk_without_a_finish_reason_keeps_the_one_before():
    body = sse(calls(fragment(0, "c1", "x", "{}")), chunk(finish="tool_calls"), chunk({}))
    assert turn_of(body).finish_reason == "tool_calls"

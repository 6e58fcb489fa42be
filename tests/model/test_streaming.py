"""Streaming: fragments joined by index, provider quirks, equal to non-streamed runs;
the SDK's stream repaired where it loses or never ends a reply (ChunkStream)."""

from __future__ import annotations

import json
import time
from types import SimpleNamespace

import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentlab import Budget, run_agent
from agentlab.clients import Chunking, HttpError, Reply, ScriptedClient, ToolCall, call, say
from agentlab.clients.behaviours import honest_analyst, todo_clerk
from agentlab.model import streaming
from agentlab.model.failures import ModelFailure
from agentlab.model.request import request_turn
from agentlab.model.streaming import ToolCallAssembler
from agentlab.model.turn import ModelTurn
from agentlab.tools import file_tools, sales_tools

TASK = "读一下 meeting.md，把里面所有以 TODO 开头的行抽出来，汇总写进 todo-list.md，然后汇报。"
TWO_CALLS = Reply(
    content="先读两个文件。",
    tool_calls=(
        ToolCall("read_text", {"rel_path": "meeting.md"}),
        ToolCall("read_text", {"rel_path": "其他/说明.md"}),
    ),
)


def piece(index=None, id=None, name=None, arguments=None):
    function = SimpleNamespace(name=name, arguments=arguments)
    return SimpleNamespace(index=index, id=id, function=function)


def test_fragments_with_the_same_index_are_joined():
    assembler = ToolCallAssembler()
    assembler.add(piece(0, "tc_1", "read_text", ""))
    for part in ['{"rel_', 'path":"meet', 'ing.md"}']:
        assembler.add(piece(0, arguments=part))
    (only,) = assembler.calls()
    assert (only.id, only.name, json.loads(only.arguments)) == (
        "tc_1",
        "read_text",
        {"rel_path": "meeting.md"},
    )


def test_interleaved_parallel_calls_are_kept_apart():
    assembler = ToolCallAssembler()
    assembler.add(piece(1, "b", "write_text", ""))  # arrives first, sorted second
    assembler.add(piece(0, "a", "read_text", ""))
    assembler.add(piece(0, arguments='{"x"'))
    assembler.add(piece(1, arguments='{"y"'))
    assembler.add(piece(0, arguments=":1}"))
    assembler.add(piece(1, arguments=":2}"))
    assert [(c.id, c.arguments) for c in assembler.calls()] == [("a", '{"x":1}'), ("b", '{"y":2}')]


def test_continuation_without_index_belongs_to_the_call_being_built():
    assembler = ToolCallAssembler()
    assembler.add(piece(0, "a", "read_text", '{"rel_path":'))
    assembler.add(piece(None, arguments='"a.md"}'))
    assembler.add(piece(1, "b", "list_dir", ""))
    assembler.add(piece(None, arguments="{}"))
    assert [(c.name, c.arguments) for c in assembler.calls()] == [
        ("read_text", '{"rel_path":"a.md"}'),
        ("list_dir", "{}"),
    ]


def test_same_index_with_distinct_ids_are_distinct_calls():
    assembler = ToolCallAssembler()
    assembler.add(piece(0, "a", "read_text", '{"rel_path":"a.md"}'))
    assembler.add(piece(0, "b", "read_text", '{"rel_path":'))
    assembler.add(piece(0, arguments='"b.md"}'))
    assert [(c.id, c.arguments) for c in assembler.calls()] == [
        ("a", '{"rel_path":"a.md"}'),
        ("b", '{"rel_path":"b.md"}'),
    ]


def test_a_name_repeated_in_every_fragment_is_not_doubled():
    assembler = ToolCallAssembler()
    assembler.add(piece(0, "a", "list_dir", "{"))
    assembler.add(piece(0, "a", "list_dir", "}"))
    assert assembler.calls()[0].name == "list_dir"


@pytest.mark.parametrize(
    "chunking",
    [
        Chunking(),
        Chunking(argument_size=1, text_size=1),
        Chunking(interleave=False),
        Chunking(missing_index=True, argument_size=3),
        Chunking(same_index=True, argument_size=2),
    ],
    ids=["default", "one-char", "sequential", "missing-index", "same-index"],
)
def test_the_sdk_streams_scripted_fragments_back_together(chunking):
    client = ScriptedClient([TWO_CALLS], chunking=chunking)
    shown = []
    turn = request_turn(
        client, "m", [{"role": "user", "content": "x"}], [], stream=True, on_text=shown.append
    )
    assert "".join(shown) == "先读两个文件。\n"
    assert turn.content == "先读两个文件。"
    assert [(c.id, c.name, json.loads(c.arguments)) for c in turn.calls] == [
        ("call_1_0", "read_text", {"rel_path": "meeting.md"}),
        ("call_1_1", "read_text", {"rel_path": "其他/说明.md"}),
    ]
    assert client.requests[0].stream is True
    assert turn.tokens > 0 and turn.usage_reported
    if chunking.missing_index:
        assert any(f.index is None for f in turn.fragments)
    if chunking.same_index:
        assert {f.index for f in turn.fragments} == {0}
    if chunking == Chunking():
        indices = [f.index for f in turn.fragments]
        assert indices[:4] == [0, 1, 0, 1]  # really interleaved


@settings(max_examples=40, deadline=None)
@given(
    arguments=st.dictionaries(st.text(max_size=6), st.text(max_size=12), max_size=4),
    size=st.integers(1, 9),
    interleave=st.booleans(),
)
def test_any_cut_of_any_arguments_reassembles(arguments, size, interleave):
    raw = json.dumps(arguments, ensure_ascii=False)
    reply = Reply(tool_calls=(ToolCall("a", raw), ToolCall("b", raw[::-1])))
    client = ScriptedClient([reply], chunking=Chunking(argument_size=size, interleave=interleave))
    turn = request_turn(
        client, "m", [{"role": "user", "content": "x"}], [], stream=True, on_text=None
    )
    assert [c.arguments for c in turn.calls] == [raw, raw[::-1]]


def test_invalid_json_after_assembly_is_fed_back_as_invalid_arguments(tmp_path):
    (tmp_path / "meeting.md").write_text("TODO x\n", encoding="utf-8")
    broken = Reply(tool_calls=(ToolCall("read_text", '{"rel_path": "meeting.md"'),))
    client = ScriptedClient([broken, call("read_text", rel_path="meeting.md"), say("好了")])
    result = run_agent(TASK, client=client, tools=file_tools(tmp_path), stream=True, on_text=None)
    assert result.tool_results[0]["result"]["error"]["code"] == "INVALID_ARGUMENTS"
    assert result.outcome == "completed"


def test_a_failing_streamed_request_is_a_model_error():
    client = ScriptedClient([HttpError(429, "slow down")])
    result = run_agent("x", client=client, tools=sales_tools(), stream=True, on_text=None)
    assert result.outcome == "model_error" and "429" in result.warnings[-1]


@pytest.mark.parametrize(
    "chunking", [Chunking(), Chunking(missing_index=True), Chunking(same_index=True)]
)
@pytest.mark.parametrize(
    "policy, task, tools",
    [
        (todo_clerk, TASK, "files"),
        (todo_clerk, TASK.replace("meeting.md", "meet.md"), "files"),
        (honest_analyst, "分析 data/input/sales.csv", "sales"),
    ],
)
def test_streamed_and_plain_runs_are_equal(sandbox_factory, chunking, policy, task, tools):
    results = []
    for stream in (False, True):
        registry = file_tools(sandbox_factory()) if tools == "files" else sales_tools()
        client = ScriptedClient(policy, chunking=chunking)
        results.append(
            run_agent(
                task, client=client, tools=registry, stream=stream, on_text=None, budget=Budget(6)
            )
        )
    plain, streamed = results
    for field in (
        "status",
        "outcome",
        "stop_reason",
        "steps",
        "model_requests",
        "tool_calls",
        "tool_errors",
        "answer",
        "tokens",
        "tool_results",
        "messages",
        "warnings",
    ):
        assert getattr(plain, field) == getattr(streamed, field), field


@pytest.fixture
def sandbox_factory(tmp_path):
    counter = iter(range(100))

    def make():
        root = tmp_path / f"sandbox{next(counter)}"
        root.mkdir()
        (root / "meeting.md").write_text("TODO 一\n结论 二\nTODO 三\n", encoding="utf-8")
        return root

    return make


def test_streamed_text_is_shown_as_it_arrives(capsys):
    client = ScriptedClient([say("一二三四五六七八九十")], chunking=Chunking(text_size=3))
    result = run_agent("x", client=client, tools=sales_tools(), stream=True)
    assert capsys.readouterr().out == "一二三四五六七八九十\n"
    assert result.answer == "一二三四五六七八九十"


# -- the assembler's rule, case by case (the module docstring of streaming.py) ----------


def test_parallel_calls_of_one_name_with_array_arguments_are_told_apart():
    """Arguments that are a whole JSON array are finished too: the same name again is a new call."""
    assembler = ToolCallAssembler()
    assembler.add(piece(name="plot", arguments="[1, 2]"))  # Gemini: neither index nor id
    assembler.add(piece(name="plot", arguments="[3]"))
    assert [c.arguments for c in assembler.calls()] == ["[1, 2]", "[3]"]


def test_without_an_index_a_fragment_continues_the_call_with_its_id():
    """No index: the id says which of two unfinished calls a fragment continues."""
    assembler = ToolCallAssembler()
    assembler.add(piece(None, "a", "read_text", '{"rel_path": '))
    assembler.add(piece(None, "b", "list_dir", '{"rel_path": '))
    assembler.add(piece(None, "b", arguments='"b"}'))
    assembler.add(piece(None, "a", arguments='"a.md"}'))
    assert [(c.id, c.arguments) for c in assembler.calls()] == [
        ("a", '{"rel_path": "a.md"}'),
        ("b", '{"rel_path": "b"}'),
    ]


def test_the_first_name_of_a_call_wins():
    """A later fragment of the same call (same id) cannot rename it."""
    assembler = ToolCallAssembler()
    assembler.add(piece(0, "a", "read_text", '{"rel_path": '))
    assembler.add(piece(0, "a", "write_text", '"a.md"}'))
    assert [(c.name, c.arguments) for c in assembler.calls()] == [
        ("read_text", '{"rel_path": "a.md"}')
    ]


def test_name_and_id_repeated_after_the_arguments_are_whole_are_the_same_call():
    """The same name with the same id is never a new call, even once the arguments are whole."""
    assembler = ToolCallAssembler()
    assembler.add(piece(0, "a", "list_dir", "{}"))
    assembler.add(piece(0, "a", "list_dir", ""))  # a closing fragment repeating both
    assert [(c.id, c.name, c.arguments) for c in assembler.calls()] == [("a", "list_dir", "{}")]


@pytest.mark.parametrize("index", [True, False, "1", 1.0])
def test_an_index_that_is_not_an_integer_counts_as_no_index(index):
    """true/false, "1" or 1.0 is no index: the fragment fills the call being built."""
    assembler = ToolCallAssembler()
    assembler.add(piece(0, "a", "read_text", '{"rel_path": '))
    assembler.add(piece(index, arguments='"a.md"}'))
    assert [(c.id, c.arguments) for c in assembler.calls()] == [("a", '{"rel_path": "a.md"}')]
    assert assembler.fragments[-1].index is None


# -- streams that repeat instead of append ------------------------------------------------


def test_pieces_that_resend_all_the_arguments_so_far_replace_them():
    """Cumulative streaming (DeepSeek and Baidu Qianfan through some gateways,
    NousResearch/hermes-agent PR 35718): each piece holds everything so far."""
    assembler = ToolCallAssembler()
    assembler.add(piece(0, "c1", "read_text", "{"))
    for so_far in ('{"rel_', '{"rel_path": "meet', '{"rel_path": "meeting.md"}'):
        assembler.add(piece(0, arguments=so_far))
    assert [(c.id, c.arguments) for c in assembler.calls()] == [
        ("c1", '{"rel_path": "meeting.md"}')
    ]


@pytest.mark.parametrize("index", [0, None], ids=["with-index", "without-index"])
def test_a_closing_chunk_that_resends_the_whole_call_adds_nothing(index):
    assembler = ToolCallAssembler()
    assembler.add(piece(index, "c1", "list_dir", '{"rel_path": '))
    assembler.add(piece(index, arguments='"."}'))
    assembler.add(piece(index, None, "list_dir", '{"rel_path": "."}'))  # the whole call again
    assert [(c.id, c.name, c.arguments) for c in assembler.calls()] == [
        ("c1", "list_dir", '{"rel_path": "."}')
    ]


def test_a_real_next_piece_is_still_appended():
    assembler = ToolCallAssembler()
    for part in ('{"a": "{', '\\"a\\": 1}"}'):  # a value that quotes JSON: still appended
        assembler.add(
            piece(0, "c1", "f", part) if part.startswith('{"a"') else piece(0, arguments=part)
        )
    assert json.loads(assembler.calls()[0].arguments) == {"a": '{"a": 1}'}


# -- the stream as the SDK reads it: ChunkStream -------------------------------------------


def sse_chunk(
    delta: dict | None = None, finish: str | None = None, usage: dict | None = None
) -> str:
    choices = (
        []
        if delta is None and finish is None
        else [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
    )
    body = {
        "id": "s",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": choices,
        **({"usage": usage} if usage else {}),
    }
    return json.dumps(body, ensure_ascii=False)


USAGE = {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}


def streamed_turn(body, **options):
    import httpx2

    from tests.conftest import plain_client

    def handler(request):
        content = body() if callable(body) else body.encode()
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=content)

    return request_turn(plain_client(handler), "m", [], [], stream=True, on_text=None, **options)


@pytest.mark.parametrize(
    "before, between",
    [("id: 1\n", ": keep-alive\n\n"), ("retry: 3000\n\n", "data:\n\n"), ("", "data: \n\n")],
    ids=["comment-after-id", "retry-then-empty-data", "blank-data"],
)
def test_an_event_without_data_does_not_lose_the_stream(before, between):
    """The SDK's decoder dispatches an empty event after an ``id:`` or ``retry:`` line
    and then fails to parse it (openai-python issues 2722, 3833; llmgateway PR 2334:
    ``: ping`` every 15 s with ``id:`` on every chunk). The spec dispatches none."""
    body = (
        f"{before}data: {sse_chunk({'role': 'assistant', 'content': '好'})}\n\n"
        f"{between}id: 2\ndata: {sse_chunk({'content': '了'}, 'stop', USAGE)}\n\n{between}"
        "data: [DONE]\n\n"
    )
    turn = streamed_turn(body)
    assert (turn.content, turn.finish_reason, turn.tokens) == ("好了", "stop", 12)


def heartbeats_after(*events: str, beats: int = 400, every: float = 0.02):
    """A body generator: the events, then keep-alive comments, no [DONE], no end for
    ``beats * every`` seconds (what a stream that never closes looks like)."""

    def body():
        for event in events:
            yield f"data: {event}\n\n".encode()
        for _ in range(beats):
            time.sleep(every)
            yield b": ping\n\n"

    return body


def test_a_stream_is_complete_at_finish_reason_then_usage_without_done():
    """bifrost issue 6784: finish_reason, usage, then only heartbeats."""
    started = time.monotonic()
    turn = streamed_turn(
        heartbeats_after(
            sse_chunk({"role": "assistant", "content": "好了"}), sse_chunk({}, "stop"),
            sse_chunk(usage=USAGE),
        )
    )  # fmt: skip
    assert (turn.content, turn.tokens, turn.usage_reported) == ("好了", 12, True)
    assert time.monotonic() - started < 2  # not the 8 s of heartbeats


def test_without_usage_a_stream_ends_a_grace_after_its_finish_reason(monkeypatch):
    monkeypatch.setattr(streaming, "FINISH_GRACE_S", 0.3)
    started = time.monotonic()
    turn = streamed_turn(
        heartbeats_after(sse_chunk({"role": "assistant", "content": "好了"}), sse_chunk({}, "stop"))
    )
    waited = time.monotonic() - started
    assert (turn.content, turn.finish_reason, turn.usage_reported) == ("好了", "stop", False)
    assert 0.3 <= waited < 3


def test_usage_on_the_finishing_chunk_ends_the_stream_at_once():
    """DeepSeek's API reference: no separate usage chunk, the statistics ride on the
    last chunk, the one with finish_reason."""
    turn = streamed_turn(heartbeats_after(sse_chunk({"content": "好了"}, "stop", USAGE)))
    assert (turn.content, turn.tokens) == ("好了", 12)


def test_a_silent_connection_after_finish_reason_ends_the_reply_at_the_timeout():
    """No [DONE], no close, not even keep-alives: the request's read timeout ends the
    wait, and the reply that had finished is kept (a loopback socket, really silent)."""
    from tests.providers.replay_server import StreamServer

    parts = [f"data: {sse_chunk({'role': 'assistant', 'content': '好了'}, 'stop')}\n\n".encode()]
    with StreamServer(parts, hold=20.0) as server:
        client = openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0)
        started = time.monotonic()
        turn = request_turn(client, "m", [], [], timeout=1.0, stream=True, on_text=None)
    assert isinstance(turn, ModelTurn), turn
    assert (turn.content, turn.finish_reason) == ("好了", "stop")
    assert time.monotonic() - started < 5


def test_a_silent_connection_before_finish_reason_is_still_a_timeout():
    from tests.providers.replay_server import StreamServer

    parts = [f"data: {sse_chunk({'role': 'assistant', 'content': '销售额'})}\n\n".encode()]
    with StreamServer(parts, hold=20.0) as server:
        client = openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0)
        failure = request_turn(client, "m", [], [], timeout=1.0, stream=True, on_text=None)
    assert isinstance(failure, ModelFailure) and failure.kind == "timeout"

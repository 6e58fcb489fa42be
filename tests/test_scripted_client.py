"""Scripted clients are real openai.OpenAI objects; the SDK parses what they send."""

from __future__ import annotations

import json
import math
import re

import httpx2
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentlab.clients import (
    Hang,
    HttpError,
    Reply,
    ScriptedClient,
    ToolCall,
    call,
    estimate_tokens,
    say,
    scripted,
)
from agentlab.clients.behaviours import csv_named_in
from agentlab.clients.wire import prompt_bytes_sent, prompt_tokens, prompt_tokens_sent
from agentlab.i18n import tr

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


@pytest.mark.parametrize("turn", ["答案", None, Hang(0.0, then="答案")])
def test_a_policy_that_returns_no_turn_is_told_how_to_make_one(turn):
    with pytest.raises(openai.InternalServerError, match=r"say\(\.\.\.\)") as info:
        ScriptedClient(lambda conversation: turn).chat.completions.create(
            model="m", messages=MESSAGES
        )
    assert ("str" if turn is not None else "NoneType") in str(info.value)


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
    feedback = [{"role": "user", "content": "任务"}, {"role": "user", "content": "还没有完成"}]
    client.chat.completions.create(model="m", messages=feedback)
    assert seen == [("任务", 1), ("任务", 2)]  # the task, not the loop's later note


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


# -- the prompt's size read off the request's bytes agrees with encoding it ----------

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)  # no lone surrogates
_JSON_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)
_MESSAGE = st.fixed_dictionaries({"role": st.sampled_from(["user", "tool"]), "content": _TEXT})
_TOOL = st.fixed_dictionaries(
    {"type": st.just("function"), "function": st.fixed_dictionaries({"name": _TEXT})}
)


def _sent_by_the_sdk(body: dict) -> bytes:
    """The bytes the openai SDK puts on the wire for ``body``."""
    sent: list[bytes] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        sent.append(request.content)
        return httpx2.Response(200, json={})

    client = openai.OpenAI(
        api_key="not-used",
        base_url="http://sdk.test/v1",
        http_client=httpx2.Client(transport=httpx2.MockTransport(handle)),
    )
    client.post("/chat/completions", body=body, cast_to=object)
    return sent[0]


@settings(max_examples=150, deadline=None)
@given(
    model=_TEXT,
    messages=st.none() | st.lists(_MESSAGE, max_size=4),
    tools=st.none() | st.lists(_TOOL, max_size=2),
    # "messages" and "tools" among the extra keys: any JSON value there is measured too
    extra=st.dictionaries(
        st.sampled_from(["stream", "temperature", "x_provider", "messages", "tools"]), _JSON_VALUE
    ),
    only_history=st.booleans(),
)
def test_prompt_size_from_the_sent_bytes_equals_encoding_the_history(
    model, messages, tools, extra, only_history
):
    body = {} if only_history else {"model": model, **extra}
    if messages is not None:
        body["messages"] = messages
    if tools is not None:
        body["tools"] = tools
    raw = _sent_by_the_sdk(body)
    parsed = json.loads(raw)
    parts = [parsed.get("messages", [])] + ([parsed["tools"]] if parsed.get("tools") else [])
    encoded = "".join(json.dumps(p, ensure_ascii=False, separators=(",", ":")) for p in parts)
    assert prompt_bytes_sent(raw, parsed) == len(encoded.encode("utf-8"))  # to the byte
    assert prompt_tokens_sent(raw, parsed) == prompt_tokens(parsed)


def test_usage_counts_chinese_text_and_tools_as_the_estimate_says():
    messages = [{"role": "user", "content": "统计 sales.csv 的销售额 📈"}]
    tools = [{"type": "function", "function": {"name": "analyze_csv", "parameters": {}}}]
    client = ScriptedClient([say("好的")])
    response = client.chat.completions.create(model="m", messages=messages, tools=tools)
    sent = "".join(
        json.dumps(part, ensure_ascii=False, separators=(",", ":")) for part in (messages, tools)
    )
    assert response.usage.prompt_tokens == math.ceil(len(sent.encode("utf-8")) / 4)


@pytest.mark.parametrize(
    "question", ["分析 ./data/input/sales.csv", "分析 data/input/sales.csv", "看看 ./sales.csv"]
)
def test_the_analyst_finds_the_csv_however_the_path_starts(question):
    assert csv_named_in(question) == "sales.csv"


# -- rules the mutation audit found unpinned (review9/mut4) --------------------------------
# script.py (turns, Conversation), wire.py (chunks, SSE, usage), scripted.py (the service)
# and behaviours.py (the analyst's wrap-up and cut-off outputs).


def _tool_call_arguments(turn) -> str:
    client = ScriptedClient([turn])
    reply = client.chat.completions.create(model="m", messages=MESSAGES)
    return reply.choices[0].message.tool_calls[0].function.arguments


def test_call_arguments_are_utf8_json_given_as_a_dict_or_as_keywords():
    """call() takes a dict or keywords alike, sent as JSON with Chinese kept as is."""
    assert _tool_call_arguments(call("analyze_csv", relative_path="销售.csv")) == (
        '{"relative_path": "销售.csv"}'
    )
    assert _tool_call_arguments(call("do_step", {"n": 2})) == '{"n": 2}'


def test_the_conversation_reads_parts_odd_results_and_broken_arguments():
    """task joins text parts as they are; a tool message that is not a JSON object reads
    as status "unknown" (never ok); the last result is the latest; broken call
    arguments read as {}."""
    from agentlab.clients import Conversation

    def calls(*pairs):
        return [
            {"id": i, "type": "function", "function": {"name": "t", "arguments": a}}
            for i, a in pairs
        ]

    parts = [{"type": "text", "text": "分析 "}, {"type": "text", "text": "sales.csv"}]
    messages = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": parts},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": calls(("a", '{"n": 1}'), ("b", "{oops")),
        },
        {"role": "tool", "tool_call_id": "a", "content": '{"status": "ok", "data": {}}'},
        {"role": "tool", "tool_call_id": "b", "content": "not json"},
        {"role": "assistant", "content": None, "tool_calls": calls(("c", "{}"))},
        {"role": "tool", "tool_call_id": "c", "content": "[1, 2]"},
        {"role": "user", "content": "还没完成"},
    ]
    conversation = Conversation(messages, [], 3)
    assert conversation.task == "分析 sales.csv"
    assert conversation.tool_results()[1:] == [
        {"status": "unknown", "text": "not json"},
        {"status": "unknown", "value": [1, 2]},
    ]
    assert conversation.last_tool_result() == {"status": "unknown", "value": [1, 2]}
    exchanges = conversation.exchanges()
    assert [e.ok for e in exchanges] == [True, False, False]
    assert [e.arguments for e in exchanges] == [{"n": 1}, {}, {}]


def test_chunk_sizes_below_one_are_refused():
    """A Chunking that would cut text or arguments into 0-character pieces is refused."""
    from agentlab.clients import Chunking

    with pytest.raises(ValueError):
        Chunking(text_size=0)
    with pytest.raises(ValueError):
        Chunking(argument_size=0)


def test_without_interleave_each_calls_fragments_come_together():
    """interleave=False sends one call's fragments after the other's; the default
    takes turns."""
    from agentlab.clients import Chunking
    from agentlab.clients.wire import completion_body, stream_chunks

    reply = Reply(tool_calls=(ToolCall("a", {"x": "1" * 30}), ToolCall("b", {"y": "2" * 30})))
    body = completion_body(reply, 1, "m", 10)

    def order(chunking):
        chunks = stream_chunks(body, chunking, include_usage=False)
        deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
        return [d["tool_calls"][0]["index"] for d in deltas if "tool_calls" in d]

    assert order(Chunking(interleave=False)) == sorted(order(Chunking(interleave=False)))
    assert order(Chunking()) != sorted(order(Chunking()))
    assert sorted(order(Chunking())) == sorted(order(Chunking(interleave=False)))


def test_a_usage_chunk_only_when_the_request_asks_for_it():
    """A streamed reply carries a usage chunk only with stream_options.include_usage."""
    client = ScriptedClient([say("你好"), say("你好")])
    plain = list(client.chat.completions.create(model="m", messages=MESSAGES, stream=True))
    assert all(chunk.usage is None for chunk in plain)
    counted = list(
        client.chat.completions.create(
            model="m", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
        )
    )
    assert counted[-1].usage is not None and counted[-1].choices == []


def test_an_event_stream_ends_with_done():
    """sse() ends every stream with `data: [DONE]`, as OpenAI-compatible services do."""
    from agentlab.clients.wire import sse

    assert sse([]) == b"data: [DONE]\n\n"
    assert sse([{"a": "是"}]) == 'data: {"a": "是"}\n\ndata: [DONE]\n\n'.encode()


def test_completion_tokens_count_the_call_names_and_arguments():
    """A reply's completion tokens estimate its text plus each call's name and arguments."""
    turn = call("analyze_csv", relative_path="sales.csv")
    reply = ScriptedClient([turn]).chat.completions.create(model="m", messages=MESSAGES)
    expected = estimate_tokens("analyze_csv" + '{"relative_path": "sales.csv"}')
    assert reply.usage.completion_tokens == expected


def test_only_chat_completions_is_answered():
    """Another endpoint (here /models) is a 404, and is not recorded as a model request."""
    client = ScriptedClient([say("不会用到")])
    with pytest.raises(openai.NotFoundError):
        client.models.list()
    assert client.requests == []


def wrapped_up(behaviour: str, task: str):
    """A two-step run of ``behaviour`` over the sales tool, with a wrap-up step."""
    from agentlab import Budget, run_agent
    from agentlab.tools import sales_tools

    budget = Budget(2, wrap_up=True)
    return run_agent(
        task, client=scripted(behaviour), tools=sales_tools(), budget=budget, on_text=None,
        trace_dir=False,
    )  # fmt: skip


def test_the_analyst_sums_up_at_a_wrap_up_instead_of_answering():
    """Asked to sum up with no tools on offer, honest_analyst says it is a partial
    summary (with its calls and the data so far), not a final answer."""
    result = wrapped_up("honest_analyst", "分析 sales.csv")
    assert result.answer is None
    assert result.partial_answer.startswith("An interim summary, not a final answer.")
    assert "analyze_csv (ok)" in result.partial_answer and "9692" in result.partial_answer


def test_the_analyst_gives_no_numbers_for_a_result_it_cannot_read():
    """A tool message that is not JSON is an error to honest_analyst, not data."""
    from agentlab.clients import Conversation, honest_analyst

    messages = [
        {"role": "user", "content": "分析 sales.csv"},
        {"role": "tool", "tool_call_id": "x", "content": "Internal Server Error"},
    ]
    turn = honest_analyst(Conversation(messages, [{"type": "function"}], 2))
    assert turn.content.startswith("I cannot finish the analysis") and not turn.tool_calls


def test_a_cut_sales_output_is_described_from_what_is_left():
    """describe_sales on a cut output names the fields it saw, the complete category
    rows it saw, and the fields it did not see; the raw list is not printed."""
    from agentlab.clients.behaviours import describe_sales

    data = {
        "row_count": 5,
        "revenue_by_category": [{"category": "显示器", "revenue": 4495}, {"category": "键"}],
    }
    text = describe_sales(data)
    assert "row_count = 5" in text
    assert "revenue of the categories I can see: 显示器 4495" in text
    assert "revenue_by_category =" not in text
    assert "(top_category, top_revenue, total_revenue)" in text


def test_a_wrap_up_after_failed_calls_says_so_and_gives_no_data():
    """sum_up names each call with its error code and uses no failed result as data."""
    result = wrapped_up("never_stops", "分析 missing.csv")
    assert "analyze_csv (FILE_NOT_FOUND)" in result.partial_answer
    assert "no data that answers the question" in result.partial_answer


def test_scripted_plays_any_policy_function_under_its_name():
    """scripted(fn) plays the function itself, named after it; only names are looked up."""

    def echo_task(conversation):
        return say(f"任务是：{conversation.task}")

    client = scripted(echo_task)
    reply = client.chat.completions.create(model="m", messages=MESSAGES)
    assert reply.choices[0].message.content == "任务是：hi"
    assert repr(client).startswith("ScriptedClient('echo_task'")


@pytest.mark.parametrize("status", [200, 999, "429", 42.0, True])
def test_an_http_error_that_is_no_http_error_status_is_refused_naming_it(status):
    """HttpError(200) used to be a model_error about "a reply holding only an error"."""
    with pytest.raises(ValueError, match=re.escape(tr("scripted.bad_status", status=status))):
        HttpError(status)


@pytest.mark.parametrize("seconds", [-1, None, float("nan"), float("inf"), "2"])
def test_a_hang_of_no_usable_length_is_refused_naming_it(seconds):
    """Hang(-1) used to end the run as a model_error quoting time.sleep's ValueError."""
    with pytest.raises(ValueError, match=re.escape(tr("scripted.bad_hang", seconds=seconds))):
        Hang(seconds)

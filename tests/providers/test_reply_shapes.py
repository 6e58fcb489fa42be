"""Replies real services send that are no plain answer, one case per class, through the loop.

Every case here is served over a loopback socket to a plain ``openai.OpenAI`` and run
through ``run_agent``; each names the public report or documentation its shape comes
from. Where the report holds the bytes, they are used (the recorded corpus, or the piece
the report quotes, marked RECORDED); where it only describes them, the reply is
CONSTRUCTED from that description and says so. None may end ``completed`` with an empty
answer, markup, raw call JSON or reasoning; each failure names its cause and its fix.

The last section proves what goes back is accepted: a strict server answers the follow-up
request with the provider's RECORDED 400 when it carries what that provider refuses, so a
run completes only if the rule holds.
"""

from __future__ import annotations

import json
import time
from typing import Any

import openai
import pytest

from agentlab import Budget, RunResult, run_agent
from agentlab.i18n import tr
from agentlab.tools import Tool, ToolRegistry, ok

from .replay_server import Canned, StreamServer, TranscriptServer, canned, final_answer
from .test_providers_replayed import CORPUS

CLOSING = "完成了。"


def chunk(delta: dict | None = None, finish: str | None = None, usage: dict | None = None) -> dict:
    choices = [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
    body = {"id": "s", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    return {**body, "choices": choices if delta is not None or finish else [], "usage": usage}


def sse(*chunks: dict, done: bool = True) -> bytes:
    events = "".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks)
    return (events + ("data: [DONE]\n\n" if done else "")).encode()


def completion(message: dict, finish: str = "stop", choices: list | None = None) -> dict:
    usage = {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}
    return {
        "id": "c", "object": "chat.completion", "created": 0, "model": "m", "usage": usage,
        "choices": choices or [{"index": 0, "message": message, "finish_reason": finish}],
    }  # fmt: skip


def json_reply(body: Any, status: int = 200, headers: tuple = ()) -> Canned:
    # as JSON escapes, as services send them: a lone surrogate stays "\ud83d" on the wire
    return Canned(status, "application/json", json.dumps(body).encode(), headers)


def stream_reply(body: bytes) -> Canned:
    return Canned(200, "text/event-stream", body)


class Tools:
    """Tools that record what they ran with: ``analyze_csv(path)`` and ``list_files()``."""

    def __init__(self) -> None:
        self.ran: list[tuple[str, dict]] = []

    def registry(self) -> ToolRegistry:
        def analyze_csv(path: str) -> dict:
            self.ran.append(("analyze_csv", {"path": path}))
            return ok({"rows": 5, "path": path})

        def list_files() -> dict:
            self.ran.append(("list_files", {}))
            return ok({"files": ["sales.csv"]})

        def search(query: str) -> dict:
            self.ran.append(("search", {"query": query}))
            return ok({"hits": 1})

        path = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
        query = {"type": "object", "properties": {"query": {"type": "string"}}}
        nothing = {"type": "object", "properties": {}}
        return ToolRegistry(
            [
                Tool("analyze_csv", "统计 CSV", path, analyze_csv),
                Tool("list_files", "列出文件", nothing, list_files),
                Tool("search", "搜索", query, search),
            ]
        )


def run(replies: list, *, stream: bool = False, retries: int = 0, **options: Any) -> tuple:
    tools = Tools()
    with TranscriptServer(replies) as server:
        client = openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0)
        result = run_agent(
            "分析 sales.csv", client=client, tools=tools.registry(), stream=stream,
            on_text=None, trace_dir=False,
            budget=Budget(max_retries=retries, retry_backoff_s=0.01, max_seconds=30), **options,
        )  # fmt: skip
    return result, tools, server


def assert_no_junk_completed(result: RunResult) -> None:
    """The promise: ``completed`` means a real answer."""
    if result.outcome == "completed":
        answer = result.answer or ""
        assert answer.strip(), "completed with an empty answer"
        for junk in ("<tool_call>", "[TOOL_CALLS]", "</think>", '"arguments"', '"parameters"'):
            assert junk not in answer, f"completed with {junk!r} in the answer"


# -- 1. tool calls written into the text ----------------------------------------------------------

CALL = {"name": "analyze_csv", "arguments": {"path": "sales.csv"}}


def test_a_hermes_call_after_a_sentence_in_a_stream_is_run():
    """CONSTRUCTED from reports of Qwen/Hermes models served without a tool parser
    (vllm-project/vllm PR 5649 shows the block vLLM returns as content; NVIDIA/NemoClaw
    issue 2731 the same from Ollama, after text): a sentence, then the block."""
    block = f"<tool_call>\n{json.dumps(CALL, ensure_ascii=False)}\n</tool_call>"
    pieces = ["我先统计一下数据。\n", block[:20], block[20:]]
    body = sse(*(chunk({"content": p}) for p in pieces), chunk(finish="stop"))
    result, tools, server = run([stream_reply(body), final_answer(CLOSING)], stream=True)
    assert tools.ran == [("analyze_csv", {"path": "sales.csv"})]
    assert (result.outcome, result.answer) == ("completed", CLOSING)
    assert tr("provider.calls_from_text", n=1) in result.warnings
    sent = [m for m in server.requests[1]["messages"] if m["role"] == "assistant"][0]
    assert sent["content"] == "我先统计一下数据。" and "<tool_call>" not in json.dumps(sent)


def test_a_bare_call_object_as_the_whole_content_is_run():
    """RECORDED content: NousResearch/hermes-agent issue 5867 (Ollama qwen2.5-coder:14b)
    quotes ``{"name": "search", "arguments": {"query": "北京今天的天气"}}`` as the whole
    ``content``, no ``tool_calls``; the envelope around it is constructed."""
    content = '{"name": "search", "arguments": {"query": "北京今天的天气"}}'
    reply = json_reply(completion({"role": "assistant", "content": content}))
    result, tools, _ = run([reply, final_answer(CLOSING)])
    assert tools.ran == [("search", {"query": "北京今天的天气"})]
    assert result.outcome == "completed"


def test_a_mistral_call_array_is_run():
    """CONSTRUCTED from osaurus-ai/vmlx-swift PR 86 (Mistral 3.x emits
    ``[TOOL_CALLS][{"name": .., "arguments": ..}]``; a server without Mistral's parser
    leaves it in content). Two calls, one of them with no parameters."""
    calls = [CALL, {"name": "list_files", "arguments": {}}]
    content = "[TOOL_CALLS]" + json.dumps(calls, ensure_ascii=False)
    result, tools, _ = run([json_reply(completion({"role": "assistant", "content": content})),
                            final_answer(CLOSING)])  # fmt: skip
    assert tools.ran == [("analyze_csv", {"path": "sales.csv"}), ("list_files", {})]
    assert result.outcome == "completed"


def test_an_answer_that_is_json_stays_an_answer():
    content = '{"total": 9692, "top": "显示器"}'
    result, tools, _ = run([json_reply(completion({"role": "assistant", "content": content}))])
    assert (result.outcome, result.answer, tools.ran) == ("completed", content, [])


# -- 2. endings that say "tool call" without one --------------------------------------------------


@pytest.mark.parametrize(
    "content", [None, "我来统计一下各类别的销售额。"], ids=["empty", "preamble"]
)
def test_finish_reason_tool_calls_without_a_call_is_no_answer(content):
    """CONSTRUCTED from vllm-project/vllm issue 53255 (``finish_reason: "tool_calls"``
    beside ``"tool_calls": []`` when no parser produced a call) and issue 53363 (the same
    with a prose-only reply). Transient: asked again within ``max_retries``."""
    message = {"role": "assistant", "content": content, "tool_calls": []}
    reply = json_reply(completion(message, "tool_calls"))
    result, tools, server = run([reply, reply], retries=1)
    assert (result.stop_reason, result.outcome, len(server.requests)) == (
        "model_error", "model_error", 2,
    )  # fmt: skip
    key = "provider.call_announced_text" if content else "provider.call_announced"
    assert tr(key, reason="tool_calls") in result.warnings[-1]
    assert "--tool-call-parser" in result.warnings[-1] and tools.ran == []
    assert_no_junk_completed(result)


def test_geminis_malformed_function_call_is_asked_again():
    """CONSTRUCTED in the shape of the OpenAI-compatible SSE line a Gemini gateway test
    keeps (``{"choices":[{"finish_reason":"MALFORMED_FUNCTION_CALL","delta":{}}]}``);
    pydantic/pydantic-ai PR 3300 and googleapis/python-genai issue 2081: empty content,
    and asking again works. Here the second answer is a real one."""
    bad = stream_reply(sse(chunk({"role": "assistant"}), chunk(finish="MALFORMED_FUNCTION_CALL")))
    result, _, server = run([bad, final_answer(CLOSING)], stream=True, retries=1)
    assert (result.outcome, result.answer, len(server.requests)) == ("completed", CLOSING, 2)
    alone, _, _ = run([bad], stream=True)
    assert alone.stop_reason == "model_error"
    assert tr("provider.malformed_call", reason="MALFORMED_FUNCTION_CALL") in alone.warnings[-1]


# -- 3. refusals ----------------------------------------------------------------------------------

REFUSAL = "I'm sorry, I cannot assist with that request."


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_refusal_ends_the_run_and_keeps_its_words(stream):
    """CONSTRUCTED from OpenAI's API reference and structured-outputs guide (refusals):
    ``content: null`` beside ``refusal``, streamed as ``delta.refusal`` pieces."""
    if stream:
        pieces = ["I'm sorry, ", "I cannot assist ", "with that request."]
        reply = stream_reply(sse(*(chunk({"refusal": p}) for p in pieces), chunk(finish="stop")))
    else:
        reply = json_reply(completion({"role": "assistant", "content": None, "refusal": REFUSAL}))
    result, _, server = run([reply, reply], stream=stream, retries=2)
    assert (result.stop_reason, result.outcome, len(server.requests)) == (
        "model_error", "model_error", 1,
    )  # fmt: skip
    assert REFUSAL in result.warnings[-1] and result.answer is None


# -- 4. reasoning without its opening tag ---------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_reasoning_closed_by_a_lone_think_tag_is_not_the_answer(stream):
    """CONSTRUCTED from deepseek-ai/DeepSeek-R1 issue 352 and vllm-project/vllm issue
    13125 (DeepSeek-R1 distills served with a template that opens ``<think>`` in the
    prompt: the output holds only ``</think>``); ikawrakow/ik_llama.cpp issue 690 quotes
    the streamed delta ``"content":"\\n</think>"``."""
    thought, answer = "The user asks for the top category. 4495 is the largest.", "显示器最高。"
    if stream:
        pieces = [thought[:20], thought[20:], "\n</think>", "\n\n", answer]
        reply = stream_reply(sse(*(chunk({"content": p}) for p in pieces), chunk(finish="stop")))
    else:
        content = f"{thought}\n</think>\n\n{answer}"
        reply = json_reply(completion({"role": "assistant", "content": content}))
    result, _, _ = run([reply], stream=stream)
    assert (result.outcome, result.answer) == ("completed", answer)
    assert result.reasoning == [thought]
    assert_no_junk_completed(result)


# -- 5. streams that repeat instead of append -----------------------------------------------------


def test_arguments_resent_whole_on_every_chunk_are_not_doubled():
    """CONSTRUCTED from NousResearch/hermes-agent PR 35718 (fixing its issue 35592): DeepSeek
    and Baidu Qianfan through gateways resend all arguments so far on each chunk, and a
    final chunk resends the whole call."""
    args = '{"path": "sales.csv"}'
    head = {"index": 0, "id": "call_q1", "type": "function", "function": {"name": "analyze_csv"}}
    pieces = [args[:5], args[:12], args]
    chunks = [
        chunk(
            {
                "role": "assistant",
                "tool_calls": [{**head, "function": {**head["function"], "arguments": ""}}],
            }
        )
    ]
    chunks += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in pieces]
    chunks.append(
        chunk(
            {"tool_calls": [{**head, "function": {"name": "analyze_csv", "arguments": args}}]},
            "tool_calls",
        )
    )
    result, tools, _ = run([stream_reply(sse(*chunks)), final_answer(CLOSING)], stream=True)
    assert tools.ran == [("analyze_csv", {"path": "sales.csv"})]
    assert result.outcome == "completed"


# -- 6. arguments "null" --------------------------------------------------------------------------


def test_null_arguments_for_a_tool_without_parameters_run_it():
    """RECORDED call: langfuse/langfuse PR 10452 quotes Groq's llama-3.3-70b-versatile call
    ``{"id": "8arj4ctt1", "type": "function", "function": {"name": "move_to_summary",
    "arguments": "null"}}`` (langchain-ai/langchain PR 33896 reports the same); its name
    is replaced by this test's tool without parameters, the envelope constructed."""
    call = {
        "id": "8arj4ctt1",
        "type": "function",
        "function": {"name": "list_files", "arguments": "null"},
    }
    reply = json_reply(
        completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")
    )
    result, tools, server = run([reply, final_answer(CLOSING)])
    assert tools.ran == [("list_files", {})] and result.tool_errors == 0
    sent = [m for m in server.requests[1]["messages"] if m["role"] == "assistant"][0]
    assert sent["tool_calls"][0]["function"]["arguments"] == "{}"


# -- 7. one reply split over choices --------------------------------------------------------------


def test_a_reply_split_over_choices_is_read_whole():
    """CONSTRUCTED from issue 32's description (no public raw recording found): the text in
    choice 0, the call in choice 1, without ``n`` asked for. The streamed form was already
    read whole (each chunk carries one choice)."""
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "analyze_csv", "arguments": '{"path": "sales.csv"}'},
    }
    choices = [
        {"index": 0, "finish_reason": "stop",
         "message": {"role": "assistant", "content": "我查一下。"}},
        {"index": 1, "finish_reason": "tool_calls",
         "message": {"role": "assistant", "content": None, "tool_calls": [call]}},
    ]  # fmt: skip
    result, tools, server = run(
        [json_reply(completion({}, choices=choices)), final_answer(CLOSING)]
    )
    assert tools.ran == [("analyze_csv", {"path": "sales.csv"})]
    assert tr("provider.split_choices", n=2) in result.warnings
    sent = [m for m in server.requests[1]["messages"] if m["role"] == "assistant"][0]
    assert sent["content"] == "我查一下。" and sent["tool_calls"][0]["id"] == "c1"


# -- 8. SSE the SDK mis-decodes -------------------------------------------------------------------


def test_keep_alives_after_id_lines_do_not_lose_a_slow_stream():
    """CONSTRUCTED from theopenco/llmgateway PR 2334: ``id:`` on every chunk and a
    ``: ping`` comment between them; openai-python issue 2722 names the SDK's decoder bug.
    A real socket, the pings arriving while the answer is still being written."""
    first = f"id: 1\ndata: {json.dumps(chunk({'role': 'assistant', 'content': '显示器'}))}\n\n"
    last = f"id: 2\ndata: {json.dumps(chunk({'content': '最高。'}, 'stop'))}\n\n"
    parts = [
        first.encode(),
        0.05,
        b": ping\n\n",
        0.05,
        b"data:\n\n",
        last.encode(),
        b"data: [DONE]\n\n",
    ]
    with StreamServer(parts) as server:
        client = openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0)
        result = run_agent("分析 sales.csv", client=client, tools=Tools().registry(),
                           stream=True, on_text=None, trace_dir=False)  # fmt: skip
    assert (result.outcome, result.answer) == ("completed", "显示器最高。")


# -- 9. a stream that never closes ----------------------------------------------------------------


@pytest.mark.parametrize("with_usage", [True, False], ids=["usage", "no-usage"])
def test_a_stream_that_never_closes_ends_without_a_deadline(with_usage, monkeypatch):
    """CONSTRUCTED from maximhq/bifrost issue 6784: ``finish_reason`` (and usage), then no
    ``[DONE]`` and keep-alives that keep the socket open. No time budget is set: before,
    this run waited forever. With usage it ends at once; without, a grace after the
    finish (shortened here from its 2 s)."""
    from agentlab.model import streaming

    monkeypatch.setattr(streaming, "FINISH_GRACE_S", 0.3)
    usage = {"prompt_tokens": 20, "completion_tokens": 3, "total_tokens": 23}
    events = [chunk({"role": "assistant", "content": "显示器最高。"}), chunk(finish="stop")]
    if with_usage:
        events.append(chunk(usage=usage))
    with StreamServer([sse(*events, done=False)], beat=0.1, hold=30.0) as server:
        client = openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0)
        started = time.monotonic()
        result = run_agent("分析 sales.csv", client=client, tools=Tools().registry(),
                           stream=True, on_text=None, trace_dir=False)  # fmt: skip
        waited = time.monotonic() - started
    assert (result.outcome, result.answer) == ("completed", "显示器最高。")
    assert waited < 5 and result.tokens == (23 if with_usage else result.tokens)


# -- 10. transport oddities -----------------------------------------------------------------------


def test_a_plain_body_labelled_gzip_is_named_and_not_retried():
    """CONSTRUCTED from langgenius/dify issue 9275 ("Received response with content-encoding:
    gzip, but failed to decode it" from an OpenAI-compatible model provider)."""
    body = completion({"role": "assistant", "content": "好了"})
    mislabelled = json_reply(body, headers=(("content-encoding", "gzip"),))
    result, _, server = run([mislabelled, mislabelled], retries=2)
    assert (result.stop_reason, len(server.requests)) == ("model_error", 1)
    assert "Content-Encoding" in result.warnings[-1]
    assert tr("model.unreachable", error="").rstrip("：: ") not in result.warnings[-1]


def test_a_lone_surrogate_in_the_arguments_does_not_break_the_next_request():
    """CONSTRUCTED from Aider-AI/aider issue 3693 and MoonshotAI/kimi-cli issue 2320 ("'utf-8'
    codec can't encode ...: surrogates not allowed" on the request after such a reply):
    arguments holding half an emoji, sent as the JSON escape ``\\ud83d``."""
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "search", "arguments": '{"query": "销售\ud83d"}'},
    }
    reply = json_reply(
        completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")
    )
    result, tools, server = run([reply, final_answer(CLOSING)])
    assert (result.outcome, len(server.requests)) == ("completed", 2)
    assert tools.ran == [("search", {"query": "销售\ufffd"})]


# -- 11. what goes back must be accepted ----------------------------------------------------------


def strict(refusal: dict, refuses) -> Any:
    """A server that answers the follow-up with the provider's RECORDED 400 when the
    assistant messages carry what it refuses (``refuses(messages)``), else a final answer."""
    answer = final_answer(CLOSING)

    def reply(request: dict) -> Canned:
        assistants = [m for m in request["messages"] if m.get("role") == "assistant"]
        if refuses(assistants):
            return json_reply(refusal["response"]["body"], refusal["response"]["status"])
        return answer(request)

    return reply


def echo_tools(names: list[str]) -> ToolRegistry:
    schema = {"type": "object", "additionalProperties": True}
    return ToolRegistry([Tool(n, n, schema, lambda **a: ok(a)) for n in set(names)])


def follow_up_accepted(
    first: Canned, refusal: dict, refuses, names: list[str], stream: bool = False
) -> RunResult:
    tools = echo_tools(names)
    with TranscriptServer([first, strict(refusal, refuses)]) as server:
        client = openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0)
        result = run_agent("x", client=client, tools=tools, stream=stream, on_text=None,
                           trace_dir=False)  # fmt: skip
    assert len(server.requests) == 2
    return result


def test_groq_gets_no_reasoning_field_back():
    """Groq's gpt-oss sends ``reasoning`` (groq/gpt-oss-120b-tool-call-reasoning) and answers
    an assistant message that carries it with HTTP 400
    (groq/reasoning-property-unsupported-400). Its text stays in RunResult.reasoning."""
    first = CORPUS["groq/gpt-oss-120b-tool-call-reasoning"]
    refusal = CORPUS["groq/reasoning-property-unsupported-400"]
    names = [c["name"] for c in first["expect"]["tool_calls"]]
    result = follow_up_accepted(
        canned(first), refusal, lambda ms: any("reasoning" in m for m in ms), names
    )
    assert (result.outcome, result.answer) == ("completed", CLOSING)
    assert result.reasoning[0] == first["expect"]["reasoning"]


def test_vllm_gets_no_malformed_arguments_back():
    """vLLM re-parses the arguments of every call in the history and answers broken ones
    with HTTP 400 (vllm/malformed-history-arguments-400, whose request holds exactly such
    a call). Here the model sends those same broken arguments: the tool answers
    INVALID_ARGUMENTS, and the history goes back with ``{}`` in their place."""
    recorded = CORPUS["vllm/malformed-history-arguments-400"]
    broken = recorded["request"]["messages"][1]["tool_calls"][0]["function"]["arguments"]
    call = {
        "id": "call_abc",
        "type": "function",
        "function": {"name": "read_text", "arguments": broken},
    }
    first = json_reply(
        completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")
    )

    def reparse_fails(messages: list) -> bool:
        for m in messages:
            for tc in m.get("tool_calls") or []:
                try:
                    json.loads(tc["function"]["arguments"])
                except ValueError:
                    return True
        return False

    result = follow_up_accepted(first, recorded, reparse_fails, ["read_text"])
    assert (result.outcome, result.answer) == ("tool_error", CLOSING)  # answered after an error
    assert result.tool_results[0]["arguments"] == broken  # kept as the model sent them
    assert result.tool_results[0]["result"]["error"]["code"] == "INVALID_ARGUMENTS"


def test_deepseek_gets_its_reasoning_content_back():
    """DeepSeek's thinking mode answers a tool turn without ``reasoning_content`` with
    HTTP 400 (deepseek/deepseek-reasoner-missing-reasoning-content-400; its docs:
    api-docs.deepseek.com/guides/thinking_mode#tool-calls)."""
    first = CORPUS["deepseek/deepseek-v4-flash-tool-call"]
    refusal = CORPUS["deepseek/deepseek-reasoner-missing-reasoning-content-400"]
    names = [c["name"] for c in first["expect"]["tool_calls"]]
    result = follow_up_accepted(
        canned(first), refusal, lambda ms: not all(m.get("reasoning_content") for m in ms), names
    )
    assert result.outcome == "completed"


def test_gemini_3_gets_the_first_calls_thought_signature_back():
    """Gemini 3 answers a function call without its thought signature with HTTP 400
    (gemini-openai/gemini-missing-thought-signature-400; ai.google.dev thought-signatures:
    in a parallel batch only the first call carries one)."""
    first = CORPUS["gemini-openai/gemini-3.1-flash-lite-tool-call-chunk"]
    refusal = CORPUS["gemini-openai/gemini-missing-thought-signature-400"]

    def unsigned(messages: list) -> bool:
        calls = [tc for m in messages for tc in m.get("tool_calls") or []]
        google = ((calls[0].get("extra_content") or {}).get("google") or {}) if calls else {}
        return not google.get("thought_signature")

    names = [c["name"] for c in first["expect"]["tool_calls"]]
    result = follow_up_accepted(canned(first), refusal, unsigned, names, stream=True)
    assert result.outcome == "completed"

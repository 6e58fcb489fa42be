"""Every recorded provider reply, replayed over a loopback socket into the agent loop.

Each transcript of ``agentlab/data/providers/`` is served by a real HTTP server on 127.0.0.1
(``replay_server.py``) to a plain ``openai.OpenAI(base_url=...)``, so the SDK
parses the bytes the provider sent, streamed or not, as it would in class. The
tests check what the decide phase reads (calls, answer, reasoning, usage), that
``run_agent`` finishes the tool turn and never raises, and that the FOLLOW-UP
request carries what that provider requires (``expect.follow_up``): DeepSeek's
``reasoning_content``, Gemini 3's ``thought_signature``. Error transcripts must end
``model_error`` with the provider's own explanation in the stop message.

The closing answer after a tool call is constructed (``final_answer``) unless the
corpus holds the recorded one (Gemini 2.5, llama.cpp).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import openai
import pytest

from agentlab import Budget, run_agent
from agentlab.clients import estimate_tokens
from agentlab.i18n import tr
from agentlab.model.request import request_turn
from agentlab.model.turn import ModelTurn
from agentlab.tools import Tool, ToolRegistry, ok
from agentlab.tools.sales import COURSE_DATA_DIR

from .replay_server import TranscriptServer, canned, final_answer

HERE = Path(__file__).parent

FILES = sorted((COURSE_DATA_DIR / "providers").glob("*/*.json"))
CORPUS = {f"{f.parent.name}/{f.stem}": json.loads(f.read_text(encoding="utf-8")) for f in FILES}
ERRORS = [name for name, t in CORPUS.items() if "error" in t["expect"]]
# Replies that arrive but must not count as an answer (a call written as broken JSON).
UNUSABLE = [
    name
    for name, t in CORPUS.items()
    if "error" not in t["expect"] and t["expect"].get("stop_reason", "answered") != "answered"
]
REPLIES = [name for name in CORPUS if name not in ERRORS and name not in UNUSABLE]
# The recorded answer that followed a recorded tool call, where the corpus has it.
RECORDED_AFTER = {
    "gemini-openai/gemini-2.5-pro-tool-call": "gemini-openai/gemini-2.5-pro-after-tool",
    "llamacpp/qwen3-coder-tool-call": "llamacpp/qwen3-coder-after-tool",
}
CLOSING = "完成了。"
TASK = "请用工具回答。"


def echo_tools(names: list[str]) -> ToolRegistry:
    """A tool per name that accepts any arguments and returns them."""

    def echo(**arguments: Any) -> dict:
        return ok({"received": arguments})

    schema = {"type": "object", "additionalProperties": True}
    return ToolRegistry([Tool(name, f"echo for {name}", schema, echo) for name in set(names)])


def client_for(server: TranscriptServer) -> openai.OpenAI:
    return openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0)


def at(value: Any, path: str) -> Any:
    """``at(message, "tool_calls[0].extra_content.google.thought_signature")``."""
    for name, index in re.findall(r"([^.\[\]]+)(?:\[(\d+)\])?", path):
        value = value[name] if isinstance(value, dict) else None
        if index and isinstance(value, list):
            value = value[int(index)]
    return value


def sent_by_provider(t: dict, path: str) -> Any:
    """The value at ``path`` as the provider sent it (message, or first delta holding it)."""
    if path == "reasoning_content":
        return t["expect"]["reasoning"]  # streamed: the joined deltas, as the corpus derived it
    if not t["stream"]:
        return at(t["response"]["body"]["choices"][0]["message"], path)
    for line in t["response"]["sse"].splitlines():
        if line.startswith("data: {"):
            for choice in json.loads(line[6:]).get("choices") or []:
                found = at(choice.get("delta") or {}, path)
                if found is not None:
                    return found
    return None


@pytest.mark.parametrize("name", REPLIES)
def test_the_decide_phase_reads_what_the_provider_meant(name):
    t, expect = CORPUS[name], CORPUS[name]["expect"]
    shown: list[str] = []
    thought: list[str] = []
    with TranscriptServer([canned(t)]) as server:
        turn = request_turn(
            client_for(server),
            t["model"] or "m",
            [{"role": "user", "content": TASK}],
            echo_tools([c["name"] for c in expect["tool_calls"]]).schemas(),
            timeout=10,
            stream=t["stream"],
            on_text=shown.append,
            on_reasoning=thought.append,
        )
    assert isinstance(turn, ModelTurn), turn
    assert turn.content == expect["content"]
    assert turn.reasoning == expect["reasoning"]
    assert [(c.id or None, c.name, json.loads(c.arguments)) for c in turn.calls] == [
        (c["id"], c["name"], c["arguments"]) for c in expect["tool_calls"]
    ]
    assert turn.finish_reason == expect["finish_reason"]
    usage = expect["usage"]
    assert turn.usage_reported == (usage is not None)
    assert turn.tokens == (usage["total_tokens"] if usage else 0)  # thinking tokens included
    if t["stream"]:  # shown as it arrived, each apart, each closed by a newline
        assert "".join(shown) == (expect["content"] + "\n" if expect["content"] else "")
        assert "".join(thought) == (expect["reasoning"] + "\n" if expect["reasoning"] else "")


@pytest.mark.parametrize("name", REPLIES)
def test_a_run_finishes_the_turn_and_the_follow_up_carries_what_the_provider_needs(name):
    t, expect = CORPUS[name], CORPUS[name]["expect"]
    calls = expect["tool_calls"]
    after = CORPUS.get(RECORDED_AFTER.get(name, ""))
    replies = [canned(t)]
    if calls:
        replies.append(canned(after) if after else final_answer(CLOSING))
    with TranscriptServer(replies) as server:
        result = run_agent(
            TASK,
            client=client_for(server),
            tools=echo_tools([c["name"] for c in calls]),
            model=t["model"] or "m",
            stream=t["stream"],
            on_text=None,
            trace_dir=False,
            budget=Budget(max_steps=3, max_seconds=20),
        )
    requests = server.requests
    assert result.reasoning[0] == expect["reasoning"]
    decided = [e for e in result.events if e.get("phase") == "decide"]
    assert decided[0]["reasoning"] == expect["reasoning"]
    if not calls:
        assert (result.stop_reason, result.answer) == ("answered", expect["content"] or "")
        assert result.outcome == "completed" and len(requests) == 1
        assert result.tokens == (expect["usage"] or {}).get("total_tokens", 0)
        return

    assert (result.outcome, result.stop_reason, len(requests)) == ("completed", "answered", 2)
    closing = after["expect"]["content"] if after else CLOSING
    assert result.answer == closing
    assert [(r["tool"], json.loads(r["arguments"]), r["status"]) for r in result.tool_results] == [
        (c["name"], c["arguments"], "ok") for c in calls
    ]
    for record, call in zip(result.tool_results, calls, strict=True):
        assert record["call_id"] == (call["id"] or record["call_id"])  # made up only when missing
        assert record["result"]["data"]["received"] == call["arguments"]

    follow_up = requests[1]["messages"]
    assistant = follow_up[-1 - len(calls)]
    assert assistant["role"] == "assistant"
    assert [tc["id"] for tc in assistant["tool_calls"]] == [
        r["call_id"] for r in result.tool_results
    ]
    assert [m["tool_call_id"] for m in follow_up[-len(calls) :]] == [
        tc["id"] for tc in assistant["tool_calls"]
    ]
    for path in (expect.get("follow_up") or {}).get("assistant_message_must_carry", []):
        wanted = sent_by_provider(t, path)
        assert wanted, path
        assert at(assistant, path) == wanted, path
    if after:  # the follow-up the provider accepted: ours carries the same calls and fields
        (accepted,) = [m for m in after["request"]["messages"] if m["role"] == "assistant"]
        assert assistant["tool_calls"] == accepted["tool_calls"]
        assert set(accepted) <= set(assistant)
    usage = (expect["usage"] or {}).get("total_tokens", 0)
    closing_usage = (
        after["expect"]["usage"]["total_tokens"] if after else 10 + estimate_tokens(CLOSING)
    )
    assert result.tokens == usage + closing_usage


def test_deepseek_thinking_follow_up_has_the_shape_deepseek_accepted():
    """The recorded accepted request sends each earlier assistant message with its
    ``reasoning_content``; ours has the same fields (and, like the provider's own
    recording, no ``index`` on the calls)."""
    t = CORPUS["deepseek/deepseek-reasoner-follow-up-parallel"]
    with TranscriptServer([canned(t), final_answer(CLOSING)]) as server:
        run_agent(
            TASK,
            client=client_for(server),
            tools=echo_tools(["get_player_name", "roll_dice"]),
            model=t["model"],
            on_text=None,
            trace_dir=False,
        )
    ours = [m for m in server.requests[1]["messages"] if m["role"] == "assistant"]
    accepted = [m for m in t["request"]["messages"] if m["role"] == "assistant"]
    fields, call_fields = set(accepted[0]), set(accepted[0]["tool_calls"][0])
    assert ours and all(set(m) == fields for m in ours)
    assert all(set(tc) == call_fields for m in ours for tc in m["tool_calls"])
    assert ours[0]["reasoning_content"] == t["expect"]["reasoning"]
    assert ours[0]["content"] == t["expect"]["content"]


def explanation_in(t: dict) -> str:
    """The words of a recorded error a student must see: its message, or a page's title."""
    if t["stream"]:
        lines = t["response"]["sse"].splitlines()
        chunks = [line[6:] for line in lines if line.startswith("data: {")]
        return next(json.loads(c)["error"]["message"] for c in chunks if '"error"' in c)
    body = t["response"]["body"]
    if isinstance(body, str):
        return re.search(r"<title>(.*?)</title>", body).group(1)
    first = body[0] if isinstance(body, list) else body
    if "base_resp" in first:  # MiniMax: HTTP 200, the outcome in base_resp
        return first["base_resp"]["status_msg"]
    return (first.get("error") or first)["message"]


def run_once(t: dict, retries: int = 0, then: Any = None) -> tuple[Any, TranscriptServer]:
    """The transcript as the first reply of a run; ``then`` (if given) answers a retry."""
    replies = [canned(t)] + ([then] if then else [])
    with TranscriptServer(replies) as server:
        result = run_agent(
            TASK,
            client=client_for(server),
            tools=echo_tools(["x"]),
            model=t["model"] or "m",
            stream=t["stream"],
            on_text=None,
            trace_dir=False,
            budget=Budget(max_retries=retries, retry_backoff_s=0.01, max_seconds=20),
        )
    return result, server


@pytest.mark.parametrize("name", ERRORS)
def test_an_error_ends_the_run_with_the_providers_explanation(name):
    t = CORPUS[name]
    result, _ = run_once(t)
    assert (result.stop_reason, result.outcome) == ("model_error", "model_error")
    assert result.model_requests == 1  # no retries were asked for
    assert explanation_in(t) in result.warnings[-1]
    assert [m["role"] for m in result.messages] == ["system", "user"]  # the history is kept
    if not t["stream"]:  # the HTTP status, or the provider's own code sent with a 200
        error = t["expect"]["error"]
        named = error["code"] if error.get("in_body") else error["status"]
        assert str(named) in result.warnings[-1]


@pytest.mark.parametrize("name", UNUSABLE)
def test_a_reply_that_is_no_answer_ends_the_run_with_model_error(name):
    """Llama 3.2 on vLLM writing its call as JSON cut short: no call can be read and it
    is no answer. No tool ran, nothing was retried (the same server writes the same way),
    and the student is told to switch on the server's tool-call parsing."""
    t = CORPUS[name]
    result, server = run_once(t, retries=2)
    assert (result.stop_reason, result.outcome) == (t["expect"]["stop_reason"], "model_error")
    assert len(server.requests) == 1 and result.tool_calls == 0
    assert tr("model.call_as_text") in result.warnings[-1]
    assert result.answer is None


def test_calls_written_as_text_run_and_the_warning_names_the_servers_fix():
    """Ollama sending its two calls as Hermes ``<tool_call>`` text: both run, the
    follow-up sends them back as real ``tool_calls`` (no markup left in ``content``),
    and the student is told to switch on the server's tool-call parsing."""
    t = CORPUS["ollama/nous-hermes2pro-tool-call-as-text"]
    with TranscriptServer([canned(t), final_answer(CLOSING)]) as server:
        result = run_agent(
            TASK, client=client_for(server), tools=echo_tools(["get_current_time"]),
            model=t["model"], on_text=None, trace_dir=False,
        )  # fmt: skip
    assert (result.outcome, result.answer, result.tool_calls) == ("completed", CLOSING, 2)
    assert tr("provider.calls_from_text", n=2) in result.warnings
    assert "--tool-call-parser" in tr("provider.calls_from_text", n=2)
    sent = [m for m in server.requests[1]["messages"] if m["role"] == "assistant"][0]
    assert sent["content"] is None and len(sent["tool_calls"]) == 2


def test_openrouter_errors_show_the_upstream_providers_own_reason():
    bad_request = run_once(CORPUS["openrouter/provider-error-400-upstream-raw"])[0]
    upstream = "Response input messages must contain the word 'json'"
    assert f"Provider returned error (OpenAI: {upstream}" in bad_request.warnings[-1]
    rate_limited = run_once(CORPUS["openrouter/provider-error-429-rate-limited-upstream"])[0]
    assert (
        "(BaseTen: z-ai/glm-5.3-flash is temporarily rate-limited upstream."
        in (rate_limited.warnings[-1])
    )


@pytest.mark.parametrize(
    "name",
    [
        "openrouter/provider-error-429-rate-limited-upstream",
        "openrouter/mid-stream-error-documented",
        "gateway/nginx-502-html",
    ],
)
def test_transient_failures_are_retried_and_the_run_goes_on(name):
    t = CORPUS[name]
    result, server = run_once(t, retries=1, then=final_answer(CLOSING))
    assert (result.outcome, result.answer, len(server.requests)) == ("completed", CLOSING, 2)
    assert result.model_requests == 2


def test_out_of_credit_is_not_retried_and_says_to_check_billing():
    """A 429 like a rate limit, but ``insufficient_quota``: waiting will not help."""
    t = CORPUS["openai/insufficient-quota-429"]
    result, server = run_once(t, retries=3, then=final_answer(CLOSING))
    assert (result.stop_reason, len(server.requests)) == ("model_error", 1)
    assert "insufficient_quota" not in result.warnings[-1]  # the message, not the code, is shown
    assert "You exceeded your current quota" in result.warnings[-1]
    assert "账户额度或余额用完了" in result.warnings[-1]


@pytest.mark.parametrize(
    "name", ["zhipu/insufficient-balance-1113-429", "moonshot/exceeded-current-quota-403"]
)
def test_an_empty_balance_is_not_retried_and_says_to_check_billing(name):
    """Zhipu says it with a 429 and business code ``1113``; Moonshot with a 403 and
    ``type: exceeded_current_quota_error``. Neither is a rate limit nor a bad key."""
    t = CORPUS[name]
    result, server = run_once(t, retries=3, then=final_answer(CLOSING))
    assert (result.stop_reason, len(server.requests)) == ("model_error", 1)
    assert explanation_in(t) in result.warnings[-1]
    assert "账户额度或余额用完了" in result.warnings[-1]
    assert "API Key" not in result.warnings[-1]  # the key works: the account is empty


def test_chinese_providers_errors_keep_their_own_words():
    """SiliconFlow's flat ``{"code": 20012, "message"}`` and Moonshot's type-only 401
    end the run at once, with the provider's message and the status."""
    missing, server = run_once(CORPUS["siliconflow/model-does-not-exist-400"], retries=3)
    assert (missing.stop_reason, len(server.requests)) == ("model_error", 1)
    assert "HTTP 400：Model does not exist. Please check it carefully." in missing.warnings[-1]
    refused, server = run_once(CORPUS["moonshot/invalid-authentication-401"], retries=3)
    assert len(server.requests) == 1 and "Invalid Authentication" in refused.warnings[-1]
    assert "API Key" in refused.warnings[-1]


def test_a_gateway_page_is_named_by_its_title_not_pasted_whole():
    result = run_once(CORPUS["gateway/nginx-502-html"])[0]
    assert "HTTP 502：502 Bad Gateway" in result.warnings[-1]
    assert "<" not in result.warnings[-1] and "beacon" not in result.warnings[-1]


def test_a_mid_stream_error_names_the_provider_not_the_sdk():
    result = run_once(CORPUS["openrouter/mid-stream-error-documented"])[0]
    assert "Provider disconnected" in result.warnings[-1]
    assert "APIError" not in result.warnings[-1]
    assert "transient" in result.warnings[-1]  # the failure's class, as every model error shows


def test_gemini_list_error_body_is_explained_not_just_numbered():
    t = CORPUS["gemini-openai/gemini-missing-thought-signature-400"]
    with TranscriptServer([canned(t)]) as server:
        result = run_agent(
            TASK, client=client_for(server), tools=echo_tools(["x"]), on_text=None, trace_dir=False
        )
    assert "thought_signature" in result.warnings[-1]
    assert "Error code: 400" not in result.warnings[-1]

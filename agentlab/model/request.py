"""The decide phase: one model request, streamed or not, and its retries.

:func:`request_turn` sends the history and reads back text, tool calls and
usage. It relies only on what any OpenAI-compatible chat-completions service
returns, so ``run_agent`` works with any ``openai.OpenAI`` client, scripted
or real. A failing request never raises out of it: SDK errors (HTTP status,
connection, timeout) and replies we cannot use come back as
:class:`ModelFailure`, so the run can end with ``model_error`` and keep its
history.

The loop's decide phase (``agentlab/loop/decide.py``) makes this request
within the time left of the run's one deadline, and retries it.

Requests go through the SDK's ``client.post("/chat/completions", ...)``
rather than ``client.chat.completions.create``: the same bytes on the wire
(``tests/test_request.py`` checks), without ``create``'s walk over the whole
history on every call, which made a 200-step run ~20x slower
(``benchmarks/README.md`` tells the story, with figures).

A reply that arrives can still be a failure: a stream with nothing in it, a
body with only an ``error``, or a body that is not JSON at all. A reply in the
other framing than asked for (JSON for a stream, SSE for a plain request) is
read as what it is, with a warning. Every reply that arrives gets a cheap look
for the shapes a plain reply never has (:func:`_odd`); only those go on to
``quirks.second_look``, which reads them (calls written as text, reasoning in
the text, ``"null"`` arguments …) or names what they are (a refusal, a
moderated ending, a call announced but missing).

It knows nothing of runs: it does not execute tools, enforce a budget or
decide to stop.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import openai
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from ..i18n import tr
from . import quirks
from .failures import (
    ModelFailure,
    base_resp_failure,
    error_code,
    error_detail,
    failure_from,
    shown_safely,
)
from .streaming import ChunkStream, Fragment, StreamedReply, print_delta, read_stream

CHUNK_STREAM = ChunkStream
"""What a streamed reply is parsed into: the SDK's stream, repaired (streaming.py)."""
PLAIN_ENDINGS = (None, "stop", "length", "tool_calls")
ODD_MARKS = ("<tool_call>", "<think>", "</think>", "[TOOL_CALLS]")
LONE_SURROGATE = re.compile("[\ud800-\udfff]|\\\\u[dD][89a-fA-F]")
"""Half of an emoji, as a character or as a JSON escape (``\\ud83d``) in arguments."""
NOT_JSON_SHOWN_CHARS = 200
"""How much of a body that is not JSON its failure message quotes."""


@dataclass
class CallRequest:
    """A tool call as the model asked for it (arguments still a JSON string)."""

    id: str
    name: str
    arguments: str


@dataclass
class ModelTurn:
    """What the model said in one request."""

    content: str | None
    calls: list[CallRequest] = field(default_factory=list)
    tokens: int = 0
    usage_reported: bool = True
    finish_reason: str | None = None
    """``"length"``: the service cut the reply off."""
    fragments: tuple[Fragment, ...] = ()
    """Streamed replies: the tool-call fragments as they arrived (for teaching)."""
    reasoning: str | None = None
    """The model's thinking, kept apart from the answer (``None``: it showed none)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """The provider's own fields that go back with the message (``quirks.SENT_BACK``;
    DeepSeek: ``reasoning_content``)."""
    call_fields: tuple[dict[str, Any], ...] = ()
    """Per call, in order, what goes back with it beyond the plain shape: the provider's
    own fields (Gemini 3: ``extra_content``), or a ``function`` that replaces the one
    it came with (arguments that are not JSON go back as ``{}``)."""
    notes: tuple[str, ...] = ()
    """Warnings about how the reply had to be read (e.g. a legacy ``function_call``)."""
    refusal: str | None = None
    """What the model said when it declined the request (OpenAI's ``refusal``)."""

    def as_message(self) -> dict[str, Any]:
        """The assistant message that goes back into the history.

        The provider's own fields go back exactly as they came: DeepSeek's
        thinking mode and Gemini 3 refuse the next request without them.
        """
        message: dict[str, Any] = {"role": "assistant", "content": self.content, **self.extra}
        if self.calls:
            added = self.call_fields or tuple({} for _ in self.calls)
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                    **fields,
                }
                for c, fields in zip(self.calls, added, strict=True)
            ]
        return message


def request_turn(
    client: openai.OpenAI,
    model: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    timeout: float | None = None,
    stream: bool = False,
    on_text: Callable[[str], None] | None = print_delta,
    on_reasoning: Callable[[str], None] | None = None,
) -> ModelTurn | ModelFailure:
    """Make one chat-completions request; with ``stream=True`` text goes to
    ``on_text`` and reasoning to ``on_reasoning`` as they arrive, and the turn
    keeps the tool-call fragments. ``timeout`` (seconds) is handed to the SDK,
    so the HTTP layer gives up too. Never raises: a failure is returned."""
    try:
        reply = post_chat(client, request_body(model, messages, tools, stream), timeout)
        if isinstance(reply, str):  # the SDK hands back a body it could not read as JSON
            turn = turn_from_text(reply, stream)
        elif stream:
            turn = _streamed_turn(reply, on_text, on_reasoning)
        else:
            turn = turn_from_completion(reply)
    except json.JSONDecodeError as exc:
        # A body labelled JSON that is not (SSE, a gateway's page) is read as text; a
        # broken event of a stream, or a JSON document cut short, is a bad reply.
        if stream or not other_framing(exc.doc):
            return failure_from(exc, secret=getattr(client, "api_key", None))
        turn = turn_from_text(exc.doc, stream)
    except Exception as exc:  # whatever the service or its reply does, the run survives
        return failure_from(exc, secret=getattr(client, "api_key", None))
    if isinstance(turn, ModelTurn) and _odd(turn):
        turn = quirks.second_look(turn, CallRequest)
    if isinstance(turn, ModelTurn):
        return turn
    return replace(turn, message=shown_safely(turn.message, getattr(client, "api_key", None)))


def _odd(turn: ModelTurn) -> bool:
    """Does the turn have a shape a plain reply never has? A quick look (a few string
    tests, one JSON parse per call) that sends only such turns to ``quirks.py``."""
    text = turn.content or ""
    pieces = (text, turn.reasoning or "", *(call.arguments for call in turn.calls))
    return bool(
        turn.refusal
        or turn.finish_reason not in PLAIN_ENDINGS
        or (turn.finish_reason == "tool_calls" and not turn.calls)
        or (not turn.calls and text.lstrip()[:1] in ("{", "["))
        or any(mark in text for mark in ODD_MARKS)
        or not all(_json_object(call.arguments) for call in turn.calls)
        or any(
            ("\\u" in piece or not piece.isascii()) and LONE_SURROGATE.search(piece)
            for piece in pieces
        )
    )


def _json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False


def other_framing(text: str) -> bool:
    """A body the SDK could not parse as JSON holds SSE or is no JSON at all (a
    page, plain text), rather than being a JSON document that is broken."""
    return bool(quirks.json_payloads(text)) or not text.lstrip().startswith(("{", "["))


def _streamed_turn(
    reply: Any, on_text: Callable[[str], None] | None, on_reasoning: Callable[[str], None] | None
) -> ModelTurn | ModelFailure:
    response = getattr(reply, "response", None)
    # media types are case-insensitive: "Application/JSON; charset=UTF-8" is JSON
    kind = response.headers.get("content-type", "").lower() if response is not None else ""
    if "json" in kind or "html" in kind:  # a service that ignored "stream": true, or a web page
        with reply:
            turn = turn_from_text(response.read().decode("utf-8", "replace"), True)
        # not shown as it came, but shown: the whole of it at once
        if isinstance(turn, ModelTurn) and turn.reasoning and on_reasoning is not None:
            on_reasoning(turn.reasoning)
        if isinstance(turn, ModelTurn) and turn.content and on_text is not None:
            on_text(turn.content)
        return turn
    with reply:
        return _turn_from_stream(read_stream(reply, on_text, on_reasoning))


def _turn_from_stream(s: StreamedReply) -> ModelTurn | ModelFailure:
    if s.content is None and s.reasoning is None and not s.calls and s.finish_reason is None:
        # nothing arrived: an empty body, only [DONE], or a page that is not SSE at all
        return ModelFailure("empty_stream", tr("model.empty_stream"))
    calls = [CallRequest(c.id, c.name, c.arguments) for c in s.calls]
    turn = make_turn(s.content, calls, s.usage, s.finish_reason, s.fragments, s.reasoning)
    notes = s.notes
    if s.finish_reason is None and not calls:  # e.g. the connection closed mid-answer
        notes += (tr("model.no_finish_reason"),)
    if s.extra or notes or s.refusal or any(c.extra for c in s.calls):
        call_fields = tuple(c.extra for c in s.calls)
        return replace(turn, extra=s.extra, notes=notes, call_fields=call_fields, refusal=s.refusal)
    return turn


def turn_from_text(text: str, stream_asked: bool = False) -> ModelTurn | ModelFailure:
    """A reply in the other framing than the one asked for (``quirks.json_payloads``),
    read as what it is, with a note saying so. A body with no JSON at all (a web
    page, when ``base_url`` points at a site and not at the API) is a failure."""
    payloads = quirks.json_payloads(text)
    error = next((p["error"] for p in payloads if p.get("error") and not p.get("choices")), None)
    if error is not None:
        return _error_in_body(error)
    if not payloads:
        # cut, so that a long body does not push the advice out of the message
        detail = (error_detail(text) or tr("model.empty_body"))[:NOT_JSON_SHOWN_CHARS]
        return ModelFailure("bad_reply", tr("model.not_json", detail=detail))
    choices = [c for p in payloads for c in p.get("choices") or () if isinstance(c, dict)]
    if any("delta" in c for c in choices):
        chunks = [ChatCompletionChunk.model_construct(**p) for p in payloads]
        turn = _turn_from_stream(read_stream(chunks, None))
    else:
        turn = turn_from_completion(ChatCompletion.model_construct(**payloads[0]))
    if isinstance(turn, ModelFailure):
        return turn
    return replace(turn, notes=(*turn.notes, _framing_note(text, stream_asked)))


def _framing_note(text: str, stream_asked: bool) -> str:
    """The warning for a reply read from text: it names what arrived, not what was asked."""
    if not stream_asked:  # the SDK reads a plain JSON body itself: this one had SSE in it
        return tr("provider.sse_for_plain")
    if quirks.json_document(text) is not None:
        return tr("provider.json_for_stream")
    return tr("provider.stream_mislabelled")  # SSE, as asked, under a JSON or HTML label


def request_body(
    model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], stream: bool = False
) -> dict[str, Any]:
    """The JSON body of a chat-completions request."""
    body: dict[str, Any] = {"model": model, "messages": messages}
    if tools:
        body["tools"] = tools
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    return body


def post_chat(client: openai.OpenAI, body: dict[str, Any], timeout: float | None = None) -> Any:
    """``POST /chat/completions`` through the SDK: a ``ChatCompletion``, or a
    ``Stream[ChatCompletionChunk]`` when ``body["stream"]`` is true."""
    # The SDK's own retries stay off whatever the client says, so that
    # model_requests counts every request; the loop retries (retry.py).
    options: dict[str, Any] = {"max_retries": 0}
    if timeout is not None:  # the HTTP layer gives up too, not only our wait
        options["timeout"] = max(timeout, 0.001)
    return client.post(
        "/chat/completions",
        body=body,
        cast_to=ChatCompletion,
        options=options,
        stream=bool(body.get("stream")),
        stream_cls=CHUNK_STREAM,
    )


def turn_from_completion(response: Any) -> ModelTurn | ModelFailure:
    """Read text, reasoning, tool calls and usage out of a parsed ``ChatCompletion``."""
    choices = getattr(response, "choices", None)
    if not choices:
        extra = getattr(response, "model_extra", None) or {}
        if extra.get("error"):  # OpenRouter: a failure after the reply began still comes as 200
            return _error_in_body(extra["error"])
        base_resp = extra.get("base_resp")
        if isinstance(base_resp, dict) and base_resp.get("status_code"):  # MiniMax, also a 200
            return base_resp_failure(base_resp)
        return ModelFailure("bad_reply", tr("model.no_choices"))
    message, finish_reason = choices[0].message, choices[0].finish_reason
    notes: tuple[str, ...] = ()
    if len(choices) > 1:  # agentlab never asks for n > 1: one reply split into pieces
        message, finish_reason = quirks.merged_choices(choices)
        notes = (tr("provider.split_choices", n=len(choices)),)
    tool_calls = message.tool_calls or []
    calls = [_call_from(tc) for tc in tool_calls]
    usage = getattr(response, "usage", None)
    if not notes and _plain(message, tool_calls):
        return make_turn(message.content, calls, usage, finish_reason)
    # reasoning, typed parts, a provider's own fields, a legacy call: quirks.py
    content, reasoning, extra, legacy = quirks.read_message(message)
    if legacy and not calls:  # the deprecated functions API: one call, no id
        calls = [CallRequest("", as_text(legacy.name), as_text(legacy.arguments))]
        notes += (tr("provider.legacy_function_call"),)
    call_fields = tuple(quirks.sent_back(quirks.kept_fields(tc)) for tc in tool_calls)
    turn = make_turn(content, calls, usage, finish_reason, (), reasoning)
    refusal = getattr(message, "refusal", None)
    refusal = refusal if isinstance(refusal, str) and refusal.strip() else None
    return replace(turn, extra=extra, notes=notes, call_fields=call_fields, refusal=refusal)


def _error_in_body(error: Any) -> ModelFailure:
    """A reply holding only ``{"error": ...}``; its numeric code counts as a status."""
    code = error.get("code") if isinstance(error, dict) else None
    status = code if isinstance(code, int) and not isinstance(code, bool) else None
    detail = error_detail(error) or tr("model.no_choices")
    return ModelFailure(
        "error_body", tr("model.error_body", detail=detail), status, code=error_code(error)
    )


def _plain(message: Any, tool_calls: list[Any]) -> bool:
    """The plain OpenAI shape: text or null, tool calls, nothing else. (Text that
    hides a call or reasoning is caught by :func:`_odd`, after either reader.)"""
    if message.content is not None and not isinstance(message.content, str):
        return False
    if getattr(message, "model_extra", None) or message.function_call is not None:
        return False
    if getattr(message, "refusal", None) is not None:
        return False
    return not any(getattr(tc, "model_extra", None) for tc in tool_calls)


def _call_from(tc: Any) -> CallRequest:
    function = getattr(tc, "function", None)
    if function is None:  # e.g. a "custom" tool call: not something we offered
        return CallRequest(as_text(tc.id), f"<{as_text(getattr(tc, 'type', None))}>", "")
    return CallRequest(as_text(tc.id), as_text(function.name), as_text(function.arguments))


def as_text(value: Any) -> str:
    """A field that should be a string, as one: missing is ``""``, and JSON
    values (some services send the arguments as an object) become JSON text."""
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value, ensure_ascii=False, default=str)


def make_turn(
    content: str | None,
    calls: list[CallRequest],
    usage: Any,
    finish_reason: str | None,
    fragments: tuple[Fragment, ...] = (),
    reasoning: str | None = None,
) -> ModelTurn:
    """A turn from a reply's parts, streamed or not; ``usage`` may be missing.

    Empty or blank text is no text (``None``); tokens are the reply's
    ``total_tokens`` (thinking included), else prompt plus completion tokens.
    """
    tokens = _total_tokens(usage)
    return ModelTurn(
        content=content if isinstance(content, str) and content.strip() else None,
        calls=calls,
        tokens=tokens or 0,
        usage_reported=tokens is not None,
        finish_reason=finish_reason if isinstance(finish_reason, str) else None,
        fragments=fragments,
        reasoning=reasoning if isinstance(reasoning, str) and reasoning.strip() else None,
    )


def _total_tokens(usage: Any) -> int | None:
    total = getattr(usage, "total_tokens", None)
    prompt = getattr(usage, "prompt_tokens", None)
    completion = getattr(usage, "completion_tokens", None)
    if _is_count(total):
        return total
    return prompt + completion if _is_count(prompt) and _is_count(completion) else None


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0

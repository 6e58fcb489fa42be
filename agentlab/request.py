"""One model request: send the history, get back text and tool calls.

This is the *decide* phase of a step. It relies only on what any
OpenAI-compatible chat-completions service returns, so ``run_agent`` works
with any ``openai.OpenAI`` client, scripted or real.

A failing request never raises out of here: SDK errors (HTTP status,
connection, timeout) and replies we cannot use come back as
:class:`ModelFailure`, so the loop can end the run with ``model_error`` and
keep its history.

How the request is sent, and a lesson about context growth. The
chat-completions API is stateless: every request carries the *whole*
history, so whatever is done per message per request grows with the
conversation, and a run of n steps pays for about n²/2 messages in total
(the service bills tokens the same way). ``client.chat.completions.create``
first runs the SDK's type-driven transform over the whole body, walking
every message and field in Python; for the plain JSON dicts a loop sends it
changes nothing (``tests/test_request.py`` checks the bytes on the wire are
identical) but it was 82% of a scripted step at 20 steps and 94% at 200
when we measured (``benchmarks/loop_overhead.py`` prints both loops).
:func:`post_chat` hands the same body to the SDK's public ``client.post``
with the same path, response types, streaming, errors and timeout
handling: one JSON encoding per request, in C. Every request still
goes through the openai SDK. The part that is left still grows with the
history (encoding, sending and the service reading it); keeping the history
short (``fold_after_steps``, truncated tool output) is what shrinks it.

It does not execute tools or decide when to stop.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import openai
from openai import Stream
from openai.types.chat import ChatCompletion, ChatCompletionChunk


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
    finish_reason: str | None = None  # "length": the service cut the reply off

    def as_message(self) -> dict[str, Any]:
        """The assistant message that goes back into the history."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in self.calls
            ]
        return message


@dataclass(frozen=True)
class ModelFailure:
    """The request failed; ``message`` says how, without any secret."""

    kind: str  # "http_status" | "connection" | "timeout" | "bad_reply"
    message: str
    status_code: int | None = None
    retry_after: float | None = None  # seconds the service asked us to wait, if it did


CHUNK_STREAM = Stream[ChatCompletionChunk]  # the SDK's stream type, subscripted once


def request_turn(
    client: openai.OpenAI,
    model: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    timeout: float | None = None,
) -> ModelTurn | ModelFailure:
    """Make one non-streamed chat-completions request."""
    try:
        response = post_chat(client, request_body(model, messages, tools), timeout)
        return turn_from_completion(response)
    except Exception as exc:  # whatever the service or its reply does, the run survives
        return failure_from(exc, secret=getattr(client, "api_key", None))


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
    # model_requests counts every request; the loop retries (errors.py).
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


def failure_from(exc: Exception, secret: str | None = None) -> ModelFailure:
    """Name a failed request. ``secret`` (the API key) is blanked out of the
    message, in case a service echoes it back in an error."""
    if isinstance(exc, openai.APIStatusError):
        failure = ModelFailure(
            "http_status", _status_message(exc), exc.status_code, retry_after(exc.response)
        )
    elif isinstance(exc, openai.APITimeoutError):
        failure = ModelFailure("timeout", "the model request timed out")
    elif isinstance(exc, openai.APIConnectionError):
        failure = ModelFailure("connection", f"could not reach the model service: {exc}")
    else:
        failure = ModelFailure("bad_reply", f"unusable reply: {type(exc).__name__}: {exc}")
    if secret and len(secret) >= 8 and secret in failure.message:
        failure = replace(failure, message=failure.message.replace(secret, "***"))
    return failure


def retry_after(response: Any) -> float | None:
    """The wait a 429/503 asks for: ``retry-after-ms``, or ``Retry-After`` in
    seconds or as an HTTP date. ``None`` when absent or unreadable."""
    headers = getattr(response, "headers", None) or {}
    try:
        if headers.get("retry-after-ms"):
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        value = headers.get("retry-after")
        if not value:
            return None
        if value.strip().replace(".", "", 1).isdigit():
            return float(value)
        when = parsedate_to_datetime(value)
        return max(0.0, (when - datetime.now(UTC)).total_seconds())
    except (TypeError, ValueError):
        return None


def turn_from_completion(response: Any) -> ModelTurn | ModelFailure:
    """Read text, tool calls and usage out of a parsed ``ChatCompletion``."""
    choices = getattr(response, "choices", None)
    if not choices:
        return ModelFailure("bad_reply", "the model service returned no choices")
    message = choices[0].message
    calls = []
    for tc in message.tool_calls or []:
        function = getattr(tc, "function", None)
        if function is None:  # e.g. a "custom" tool call: not something we offered
            calls.append(CallRequest(tc.id, f"<{tc.type}>", ""))
        else:
            calls.append(CallRequest(tc.id, function.name, function.arguments or ""))
    usage = getattr(response, "usage", None)
    return ModelTurn(
        content=message.content,
        calls=calls,
        tokens=usage.total_tokens if usage else 0,
        usage_reported=usage is not None,
        finish_reason=getattr(choices[0], "finish_reason", None),
    )


def _status_message(exc: openai.APIStatusError) -> str:
    detail = exc.body.get("message") if isinstance(exc.body, dict) else None
    if not detail and isinstance(exc.body, dict) and isinstance(exc.body.get("error"), dict):
        detail = exc.body["error"].get("message")
    return f"HTTP {exc.status_code} from the model service: {detail or exc.message}"

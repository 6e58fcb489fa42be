"""One model request, streamed or not, read into a turn or a named failure.

:func:`request_turn` sends the history and reads back text, tool calls and
usage, relying only on what any OpenAI-compatible chat-completions service
returns. It never raises: SDK errors (HTTP status, connection, timeout) and
replies we cannot use come back as :class:`ModelFailure`, so the run can end
with ``model_error`` and keep its history. The loop's decide phase
(``agentlab/loop/decide.py``) gives it the run's time left, and retries it.

Requests go through ``client.post("/chat/completions", ...)`` rather than
``client.chat.completions.create``: the same bytes on the wire
(``tests/test_request.py`` checks), without ``create``'s walk over the whole
history on every call, which made a 200-step run ~20x slower
(``benchmarks/README.md``).

Every reply that arrives gets a cheap look for the shapes a plain reply never
has (:func:`_odd`); only those go on to ``quirks.second_look``, which reads
them (calls written as text, reasoning in the text, ``"null"`` arguments …) or
names what they are (a refusal, a moderated ending, a call announced but
missing). How a plain reply is read: ``turn.py``; a reply in the other framing
than asked for, or a body that is no reply: ``framing.py``. Nothing here
executes tools, enforces a budget or decides to stop.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import openai
from openai.types.chat import ChatCompletion

from . import quirks
from .failures import ModelFailure, failure_from, shown_safely
from .framing import other_framing, streamed_turn, turn_from_text
from .streaming import ChunkStream, print_delta
from .turn import CallRequest, ModelTurn, turn_from_completion

CHUNK_STREAM = ChunkStream
"""What a streamed reply is parsed into: the SDK's stream, repaired (streaming.py)."""
PLAIN_ENDINGS = (None, "stop", "length", "tool_calls")
ODD_MARKS = ("<tool_call>", "<think>", "</think>", "[TOOL_CALLS]")
LONE_SURROGATE = re.compile("[\ud800-\udfff]|\\\\u[dD][89a-fA-F]")
"""Half of an emoji, as a character or as a JSON escape (``\\ud83d``) in arguments."""


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
            turn = streamed_turn(reply, on_text, on_reasoning)
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

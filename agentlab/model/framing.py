"""Replies in another framing than the one asked for, and bodies that are no reply.

A service may answer a streamed request with one JSON body, or a plain one
with server-sent events; a proxy may label either wrongly; a ``base_url``
that points at a web site answers with a page. :func:`turn_from_text` reads
such a body as what it is, with a note saying so, or names the failure;
:func:`streamed_turn` reads a stream (or what came instead of one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from openai.types.chat import ChatCompletion, ChatCompletionChunk

from ..i18n import tr
from . import quirks
from .failures import ModelFailure, error_detail, error_in_body
from .streaming import read_stream
from .turn import ModelTurn, turn_from_completion

NOT_JSON_SHOWN_CHARS = 200
"""How much of a body that is not JSON its failure message quotes."""


def other_framing(text: str) -> bool:
    """A body the SDK could not parse as JSON holds SSE or is no JSON at all (a
    page, plain text), rather than being a JSON document that is broken."""
    return bool(quirks.json_payloads(text)) or not text.lstrip().startswith(("{", "["))


def streamed_turn(
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
        return read_stream(reply, on_text, on_reasoning)


def turn_from_text(text: str, stream_asked: bool = False) -> ModelTurn | ModelFailure:
    """A reply in the other framing than the one asked for (``quirks.json_payloads``),
    read as what it is, with a note saying so. A body with no JSON at all (a web
    page, when ``base_url`` points at a site and not at the API) is a failure."""
    payloads = quirks.json_payloads(text)
    error = next((p["error"] for p in payloads if p.get("error") and not p.get("choices")), None)
    if error is not None:
        return error_in_body(error)
    if not payloads:
        # cut, so that a long body does not push the advice out of the message
        detail = (error_detail(text) or tr("model.empty_body"))[:NOT_JSON_SHOWN_CHARS]
        return ModelFailure("bad_reply", tr("model.not_json", detail=detail))
    choices = [c for p in payloads for c in p.get("choices") or () if isinstance(c, dict)]
    if any("delta" in c for c in choices):
        chunks = [ChatCompletionChunk.model_construct(**p) for p in payloads]
        turn = read_stream(chunks, None)
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

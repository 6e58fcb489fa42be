"""What the model said in one request: a turn, read from a parsed reply.

:class:`ModelTurn` holds the text, the tool calls (:class:`CallRequest`, the
arguments still JSON text), the usage and what goes back to the service with
the assistant message. :func:`turn_from_completion` reads a ``ChatCompletion``:
the plain OpenAI shape here, anything else (reasoning fields, typed parts, a
legacy ``function_call``, a reply split over choices) through ``quirks.py``.
It sends nothing and decides nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from ..i18n import tr
from . import quirks
from .failures import ModelFailure, base_resp_failure, error_code, error_detail


@dataclass
class Fragment:
    """What one ``delta.tool_calls`` entry carried (``None``: field absent)."""

    chunk: int
    index: int | None
    id: str | None
    name: str | None
    arguments: str | None


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


def turn_from_completion(response: Any) -> ModelTurn | ModelFailure:
    """Read text, reasoning, tool calls and usage out of a parsed ``ChatCompletion``."""
    choices = getattr(response, "choices", None)
    if not choices:
        extra = getattr(response, "model_extra", None) or {}
        if extra.get("error"):  # OpenRouter: a failure after the reply began still comes as 200
            return error_in_body(extra["error"])
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


def error_in_body(error: Any) -> ModelFailure:
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

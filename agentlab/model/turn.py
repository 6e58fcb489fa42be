"""What the model said in one request: a turn, read from a parsed reply.

:class:`ModelTurn` holds the text, the tool calls (:class:`CallRequest`, the
arguments still JSON text), the usage and what goes back to the service with
the assistant message. :func:`turn_from_completion` reads a ``ChatCompletion``:
the plain OpenAI shape here, anything else (reasoning fields, typed parts, a
legacy ``function_call``, a reply split over choices) through ``quirks.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from ..i18n import tr
from . import quirks
from .failures import ModelFailure, base_resp_failure, error_in_body


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
    fragments: tuple[Any, ...] = ()  # streamed: the tool-call fragments (streaming.Fragment)
    reasoning: str | None = None  # the model's thinking, never the answer
    extra: dict[str, Any] = field(default_factory=dict)
    """The provider's own fields that go back with the message (``quirks.SENT_BACK``)."""
    call_fields: tuple[dict[str, Any], ...] = ()
    """Per call, what goes back with it beyond the plain shape: the provider's own
    fields (Gemini 3: ``extra_content``), or a ``function`` that replaces its own."""
    notes: tuple[str, ...] = ()  # warnings about how the reply had to be read
    refusal: str | None = None  # what the model said when it declined (OpenAI's refusal)

    def as_message(self) -> dict[str, Any]:
        """The assistant message that goes back into the history, the provider's own
        fields as they came (DeepSeek's thinking mode and Gemini 3 need them)."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content, **self.extra}
        if self.calls:
            added = self.call_fields or tuple({} for _ in self.calls)
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                    **more,
                }
                for c, more in zip(self.calls, added, strict=True)
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
    # The plain OpenAI shape: text or null, tool calls, nothing else. (Text that hides
    # a call or reasoning is caught by request._odd, after either reader.)
    plain = not (message.model_extra or message.function_call or message.refusal is not None)
    if not notes and plain and isinstance(message.content, str | None):
        if not any(getattr(tc, "model_extra", None) for tc in tool_calls):
            return make_turn(message.content, calls, usage, finish_reason)
    # reasoning, typed parts, a provider's own fields, a legacy call: quirks.py
    content, reasoning, extra, legacy = quirks.read_message(message)
    if legacy and not calls:  # the deprecated functions API: one call, no id
        calls = [CallRequest("", as_text(legacy.name), as_text(legacy.arguments))]
        notes += (tr("provider.legacy_function_call"),)
    call_fields = tuple(quirks.sent_back(quirks.kept_fields(tc)) for tc in tool_calls)
    turn = make_turn(content, calls, usage, finish_reason, (), reasoning)
    refusal = message.refusal if isinstance(message.refusal, str) else None
    refusal = refusal if refusal and refusal.strip() else None
    return replace(turn, extra=extra, notes=notes, call_fields=call_fields, refusal=refusal)


def _call_from(tc: Any) -> CallRequest:
    function = getattr(tc, "function", None)
    if function is None:  # e.g. a "custom" tool call: not something we offered
        return CallRequest(as_text(tc.id), f"<{as_text(getattr(tc, 'type', None))}>", "")
    return CallRequest(as_text(tc.id), as_text(function.name), as_text(function.arguments))


def as_text(value: Any) -> str:
    """A field that should be a string, as one: missing is ``""``; JSON values (some
    services send the arguments as an object) become JSON text."""
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value, ensure_ascii=False, default=str)


def make_turn(
    content: str | None,
    calls: list[CallRequest],
    usage: Any,
    finish_reason: str | None,
    fragments: tuple[Any, ...] = (),
    reasoning: str | None = None,
) -> ModelTurn:
    """A turn from a reply's parts, streamed or not: blank text is no text; tokens are
    the reply's ``total_tokens`` (thinking included), else prompt plus completion."""
    total, prompt, completion = (
        getattr(usage, name, None)
        for name in ("total_tokens", "prompt_tokens", "completion_tokens")
    )
    tokens = total if _is_count(total) else None
    if tokens is None and _is_count(prompt) and _is_count(completion):
        tokens = prompt + completion
    return ModelTurn(
        content=content if isinstance(content, str) and content.strip() else None,
        calls=calls,
        tokens=tokens or 0,
        usage_reported=tokens is not None,
        finish_reason=finish_reason if isinstance(finish_reason, str) else None,
        fragments=fragments,
        reasoning=reasoning if isinstance(reasoning, str) and reasoning.strip() else None,
    )


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0

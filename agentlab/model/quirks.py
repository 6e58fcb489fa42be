"""What real providers send beyond the plain OpenAI shape, read into it.

The plain shape is ``content`` (a string or null) and ``tool_calls``. Real
services add to it (``agentlab/data/providers/`` keeps their recorded replies):

- **reasoning** (a model's thinking) in a field of their own:
  ``reasoning_content`` (DeepSeek, Qwen, xAI, vLLM), ``reasoning`` (Groq
  gpt-oss, Ollama, OpenRouter), ``reasoning_details`` (OpenRouter); as typed
  ``thinking`` parts of a ``content`` list (Mistral Magistral); or as a
  ``<think>…</think>`` block opening ``content`` (vLLM without a reasoning
  parser). Reasoning is never part of the answer.
- **fields a provider wants back** on the next request: DeepSeek's thinking
  mode refuses a tool-calling turn whose ``reasoning_content`` is missing,
  Gemini 3 one whose ``extra_content.google.thought_signature`` is missing.
  :func:`kept_fields` keeps every field we do not know, so that
  ``ModelTurn.as_message`` can send it back exactly as it came.
- the deprecated ``function_call`` (one call, no id) instead of ``tool_calls``.
- a tool call written as **text** (``<tool_call>{"name": ...}</tool_call>``
  in ``content``, Hermes/Qwen style): what Ollama or vLLM send when the
  server does not turn the model's call into ``tool_calls``
  (:data:`TOOL_CALL_AS_TEXT`; the decide phase refuses such a reply).
- a reply in the **other framing** than the one asked for: one JSON
  document when a stream was asked for, or SSE (even a whole
  ``chat.completion`` followed by a stray ``data: [DONE]``) when not. Servers
  that ignore ``"stream"`` are reported for kaito, unsloth and 9router, among
  others. :func:`json_payloads` finds the JSON in such a body.

``request.py`` and ``streaming.py`` call in here only when a reply has one of
these, so a plain reply never runs this module's functions (the decide phase
only matches :data:`TOOL_CALL_AS_TEXT` against a text answer). It reads; it
does not decide what to do with a reply.
"""

from __future__ import annotations

import json
import re
from typing import Any

REASONING_FIELDS = ("reasoning_content", "reasoning")
"""Fields that hold reasoning text, in the order they are looked at."""
FRAMING = frozenset({"index"})
"""Position markers (a delta's or a call's place in a list): not content, never sent back."""
THINK_BLOCK = re.compile(r"\s*<think>(.*?)(?:</think>|\Z)(.*)", re.DOTALL)
TOOL_CALL_AS_TEXT = re.compile(r"\s*<tool_call>")
STRAY_DONE = re.compile(r"\s*data:\s*\[DONE\]\s*\Z")


def kept_fields(model: Any) -> dict[str, Any]:
    """The fields of an SDK object (message, delta, tool call) that the SDK does
    not know: the provider's own additions, to be sent back as they came."""
    extra = getattr(model, "model_extra", None) or {}
    return {key: value for key, value in extra.items() if key not in FRAMING}


def reasoning_in(fields: dict[str, Any]) -> str | None:
    """The reasoning text a provider put in a field of its own, if any.

    Example: ``{"reasoning_content": "The user asks…"}`` -> ``"The user asks…"``.
    """
    for name in REASONING_FIELDS:
        if isinstance(fields.get(name), str):
            return fields[name]
    details = fields.get("reasoning_details")
    if isinstance(details, list):  # OpenRouter: [{"type": "reasoning.text", "text": ...}]
        texts = [d.get("text") for d in details if isinstance(d, dict)]
        return "".join(t for t in texts if isinstance(t, str)) or None
    return None


def read_message(message: Any) -> tuple[str | None, str | None, dict[str, Any], Any]:
    """``(answer text, reasoning, provider fields, legacy function_call)`` of a
    non-streamed message (the last is ``None`` for the usual ``tool_calls``)."""
    content, reasoning = split_content(message.content)
    fields = kept_fields(message)
    return content, reasoning_in(fields) or reasoning, fields, message.function_call


def split_content(content: Any) -> tuple[str | None, str | None]:
    """``(answer text, reasoning)`` from a message's ``content``.

    - a list of typed parts: ``text`` parts are the answer, ``thinking``
      parts the reasoning (Magistral: ``{"type": "thinking", "thinking":
      [{"type": "text", "text": ...}]}``); other parts are ignored;
    - a string opening with ``<think>…</think>``: the block is the reasoning;
    - anything else that is not a string is shown as JSON text.
    """
    if isinstance(content, list):
        text, thinking = [], []
        for part in content:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "thinking":
                thinking.append(part_text(part.get("thinking")))
            elif part.get("type") == "text" or "text" in part:
                text.append(part_text(part.get("text")))
        return "".join(text) or None, "".join(thinking) or None
    if content is None:
        return None, None
    if not isinstance(content, str):
        return json.dumps(content, ensure_ascii=False), None
    match = THINK_BLOCK.fullmatch(content)
    if match is None:
        return content, None
    return match.group(2).lstrip(), match.group(1).strip() or None


def part_text(value: Any) -> str:
    """The text inside a typed part: a string, or a list of ``{"text": ...}`` parts."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(part_text(p.get("text")) for p in value if isinstance(p, dict))
    return ""


def merge_fields(into: dict[str, Any], fields: dict[str, Any]) -> None:
    """Add one streamed delta's provider fields to those seen so far.

    Streams send text fields piece by piece, so strings are joined and lists
    extended; dicts are merged the same way, key by key; anything else is
    replaced by the newer value.
    """
    for key, value in fields.items():
        old = into.get(key)
        if isinstance(old, str) and isinstance(value, str):
            into[key] = old + value
        elif isinstance(old, list) and isinstance(value, list):
            into[key] = old + value
        elif isinstance(old, dict) and isinstance(value, dict):
            merged = dict(old)
            merge_fields(merged, value)
            into[key] = merged
        elif value is not None or key not in into:
            into[key] = value


def json_document(text: str) -> Any:
    """The body read as one JSON document (a stray ``data: [DONE]`` after it
    dropped); ``None`` when it is not one (SSE ``data:`` lines, a web page)."""
    try:
        return json.loads(STRAY_DONE.sub("", text))
    except (ValueError, RecursionError):  # RecursionError: nested too deep to read
        return None


def json_payloads(text: str) -> list[dict[str, Any]]:
    """The JSON objects in a body that came in the other framing: one JSON
    document (:func:`json_document`), or else the JSON of each SSE ``data:``
    line. Empty when there is none (a web page, say, or JSON nested thousands
    deep, which Python's parser refuses with ``RecursionError``)."""
    whole = json_document(text)
    if whole is not None:
        return [whole] if isinstance(whole, dict) else []
    found = []
    for line in text.splitlines():
        if not line.startswith("data:"):
            continue
        try:
            value = json.loads(line[len("data:") :])
        except (ValueError, RecursionError):  # [DONE], a line cut short, or nested too deep
            continue
        if isinstance(value, dict):
            found.append(value)
    return found

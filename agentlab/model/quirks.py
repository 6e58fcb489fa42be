"""What real providers send beyond the plain OpenAI shape, read into it.

The plain shape is ``content`` (a string or null) and ``tool_calls``. Real
services add to it and bend it (``agentlab/data/providers/`` keeps their
recorded replies, ``tests/providers/README.md`` the reports behind each rule):

- **reasoning** (a model's thinking) in a field of its own
  (:data:`REASONING_FIELDS`, OpenRouter's ``reasoning_details``), as typed
  ``thinking`` parts, or inside ``content`` as a ``<think>…</think>`` block
  (:func:`split_content`). Reasoning is never the answer.
- **fields that go back** on the next request, and only those (:data:`SENT_BACK`).
- **tool calls written as text** by a server that does not turn them into
  ``tool_calls`` (:func:`calls_in_text`), read as calls with a warning.
- the deprecated ``function_call``; ``arguments: "null"`` for a tool without
  parameters (Groq); one reply split over several ``choices``; a lone UTF-16
  surrogate, which no request can carry (:func:`without_lone_surrogates`).
- endings that are no answer: a refusal, moderation, a call announced but
  missing (:func:`second_look` names them).
- a reply in the **other framing** than the one asked for (JSON for a
  stream, SSE for a plain request): :func:`json_payloads` finds the JSON.

``request.py`` calls in here only when a cheap look at the reply finds one of
these, so a plain reply never runs this module. It reads and names; the
decide phase decides what a failure means for the run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..i18n import tr
from .failures import FINISH_FAILURES, KNOWN_FINISH_REASONS, ModelFailure
from .secrets import strings_changed

REASONING_FIELDS = ("reasoning_content", "reasoning")
"""Fields that hold reasoning text, in the order they are looked at: ``reasoning_content``
(DeepSeek, Qwen, xAI, vLLM), ``reasoning`` (Groq gpt-oss, Ollama, OpenRouter)."""
SENT_BACK = frozenset({"reasoning_content", "reasoning_details", "extra_content"})
"""A provider's own fields that go back with the assistant message or its calls:
DeepSeek's ``reasoning_content`` (its thinking-mode docs), OpenRouter's
``reasoning_details`` (its reasoning-tokens guide, "Preserving reasoning blocks"), Gemini 3's
per-call ``extra_content`` (its thought-signature docs). Everything else stays:
``reasoning`` above all, which Groq answers with HTTP 400 (recorded:
``groq/reasoning-property-unsupported-400``)."""
THINK_BLOCK = re.compile(r"\s*<think>(.*?)(?:</think>|\Z)(.*)", re.DOTALL)
THINK_END = "</think>"
TOOL_CALL_TAG = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|\Z)", re.DOTALL)
MISTRAL_CALLS = "[TOOL_CALLS]"
CALL_KEYS = frozenset({"name", "arguments", "parameters", "type", "id"})
CALL_LIKE = re.compile(r'\[?\s*\{\s*"(?:name|type)"\s*:.*"(?:arguments|parameters)"\s*:', re.DOTALL)
"""The start of a bare call object, readable or not (vLLM issue 11786: Llama 3.2's call
with one closing brace missing)."""
CALL_ENDINGS = frozenset({"tool_calls", "function_call"})
LOST_CALL_ENDINGS = frozenset({"malformed_function_call", "unexpected_tool_call"})
"""Gemini's own finish reasons for a call it could not write, passed through by its
OpenAI-compatible endpoint (in capitals: compared case-insensitively)."""
STRAY_DONE = re.compile(r"\s*data:\s*\[DONE\]\s*\Z")
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def kept_fields(model: Any) -> dict[str, Any]:
    """The fields of an SDK object (message, delta, tool call) that the SDK does not
    know, and so the provider added; ``index`` (a position marker) left out."""
    extra = getattr(model, "model_extra", None) or {}
    return {key: value for key, value in extra.items() if key != "index"}


def sent_back(fields: dict[str, Any]) -> dict[str, Any]:
    """The provider fields that go back on the next request (:data:`SENT_BACK`)."""
    return {key: value for key, value in fields.items() if key in SENT_BACK}


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
    """``(answer text, reasoning, fields to send back, legacy function_call)`` of a
    non-streamed message (the last is ``None`` for the usual ``tool_calls``)."""
    content, reasoning = split_content(message.content)
    fields = kept_fields(message)
    return content, reasoning_in(fields) or reasoning, sent_back(fields), message.function_call


def split_content(content: Any) -> tuple[str | None, str | None]:
    """``(answer text, reasoning)`` from a message's ``content``.

    - a list of typed parts: ``text`` parts are the answer, ``thinking``
      parts the reasoning (Magistral: ``{"type": "thinking", "thinking":
      [{"type": "text", "text": ...}]}``); other parts are ignored;
    - a string opening with ``<think>…</think>`` (vLLM without a reasoning
      parser): the block is the reasoning;
    - a string with a ``</think>`` but no opening tag (DeepSeek-R1 models whose
      chat template opens the block in the prompt): what comes before it;
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
    if match is not None:
        return match.group(2).lstrip(), match.group(1).strip() or None
    thought, end, answer = content.partition(THINK_END)
    if end and "<think>" not in thought:  # the block was opened in the prompt
        return answer.lstrip(), thought.strip() or None
    return content, None


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


def merged_choices(choices: list[Any]) -> tuple[Any, Any]:
    """``(message, finish_reason)`` of a reply split over several ``choices`` (the
    text in one, the call in another): one message with every choice's text and
    calls, ending ``tool_calls`` when it holds one. agentlab never asks for ``n``
    alternatives, so more than one choice is always one reply in pieces."""
    from openai.types.chat import ChatCompletionMessage  # only such replies pay for it

    messages = [c.message for c in choices if getattr(c, "message", None) is not None]
    texts = [m.content for m in messages if isinstance(m.content, str) and m.content.strip()]
    calls = [tc for m in messages for tc in m.tool_calls or []]
    extra: dict[str, Any] = {}
    for m in messages:
        merge_fields(extra, kept_fields(m))
    merged = ChatCompletionMessage.model_construct(
        role="assistant",
        content="\n".join(texts) or None,
        tool_calls=calls or None,
        function_call=next((m.function_call for m in messages if m.function_call), None),
        refusal=next((m.refusal for m in messages if m.refusal), None),
        **extra,
    )
    finish = "tool_calls" if calls else choices[0].finish_reason
    return merged, finish


# -- tool calls written as text ----------------------------------------------------------


def calls_in_text(text: str) -> tuple[str | None, list[tuple[str, str]]] | None:
    """Tool calls a model wrote into ``content``: ``(the text left, [(name,
    arguments JSON)])``, or ``None`` when there are none. Three formats, each
    written by a chat template when the server does not parse its output:

    - Hermes / Qwen: ``<tool_call>{"name": ..., "arguments": ...}</tool_call>``,
      anywhere in the text, one block per call (the closing tag may be missing
      at the very end); the text around the blocks stays the answer;
    - Mistral: ``[TOOL_CALLS][{"name": ..., "arguments": ...}, ...]``, or the
      bare array, when it is the whole text;
    - one bare call object, ``{"name": ..., "arguments"|"parameters": ...}``
      (Llama's JSON format, also as ``{"type": "function", "function":
      {...}}``), when it is the whole text.

    The tags are unambiguous, so they are read wherever they stand; plain JSON
    is read only when it is all the model said and has the shape of a call, so
    an answer that merely contains or is JSON stays an answer. Raises
    ``ValueError`` when the text has a call's markers, or is a call object cut
    short, but holds no readable call.
    """
    if "<tool_call>" in text:
        calls = [call_from(_json(body)) for body in TOOL_CALL_TAG.findall(text)]
        rest = TOOL_CALL_TAG.sub("", text).strip()
        return rest or None, calls
    whole = text.strip()
    if whole.startswith(MISTRAL_CALLS):
        found = _json(whole[len(MISTRAL_CALLS) :])
        if not isinstance(found, list) or not found:
            raise ValueError(MISTRAL_CALLS)
        return None, [call_from(item) for item in found]
    if not whole.startswith(("{", "[")):
        return None
    try:
        found = _json(whole)
    except ValueError:
        if CALL_LIKE.match(whole):
            raise  # a call object, broken: no answer either
        return None
    items = found if isinstance(found, list) and found else [found]
    try:
        return None, [call_from(item) for item in items]
    except ValueError:  # JSON, but not a call: an answer that is JSON
        return None


def call_from(item: Any) -> tuple[str, str]:
    """``(name, arguments JSON)`` of one call object; ``ValueError`` if it is none."""
    if isinstance(item, dict) and item.get("type") == "function" and "function" in item:
        item = item["function"]
    if not isinstance(item, dict) or not set(item) <= CALL_KEYS:
        raise ValueError("not a call")
    name = item.get("name")
    arguments = item.get("arguments", item.get("parameters", {}))
    if not isinstance(name, str) or not name.strip():
        raise ValueError("a call without a name")
    if isinstance(arguments, str):
        return name, arguments
    if not isinstance(arguments, dict):
        raise ValueError("arguments that are not an object")
    return name, json.dumps(arguments, ensure_ascii=False)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deep") from None


# -- the second look: what a cheap check at the boundary sent here ----------------------


def second_look(turn: Any, make_call: Callable[[str, str, str], Any]) -> Any:
    """The turn as it should be read, or the :class:`ModelFailure` it really is.

    ``turn`` is a ``turn.ModelTurn`` that a quick look found odd; ``make_call``
    builds one of its calls from ``(id, name, arguments)``. In order:

    1. lone surrogates become U+FFFD (the next request could not be encoded);
    2. a ``<think>`` block or a bare ``</think>`` in the text moves to the reasoning;
    3. a refusal, a moderated or failed ending (``failures.FINISH_FAILURES``), an
       ending that announces a call without one, and a call written as text that
       cannot be read are failures, each naming the cause and the fix;
    4. an ending no service documents gets a warning; calls written as text become
       calls (a warning names the server's fix);
    5. arguments ``"null"`` become ``{}``; arguments that are not a JSON object go
       back to the service as ``{}`` (the tool still gets them as they came, and
       answers ``INVALID_ARGUMENTS``), since a strict server re-parses the history.
    """
    turn = without_lone_surrogates(turn)
    if turn.content and ("<think>" in turn.content or THINK_END in turn.content):
        answer, thought = split_content(turn.content)
        reasoning = "\n".join(t for t in (turn.reasoning, thought) if t) or None
        turn = replace(turn, content=answer or None, reasoning=reasoning)
    failure = _no_answer(turn)
    if failure is not None:
        return failure
    notes = list(turn.notes)
    if turn.finish_reason is not None and turn.finish_reason not in KNOWN_FINISH_REASONS:
        notes.append(tr("model.unknown_finish_reason", reason=turn.finish_reason))
    if not turn.calls and turn.content:
        try:
            found = calls_in_text(turn.content)
        except ValueError:
            return ModelFailure("bad_reply", tr("model.call_as_text"), tokens=turn.tokens)
        if found is not None:
            rest, written = found
            calls = [make_call("", name, arguments) for name, arguments in written]
            notes.append(tr("provider.calls_from_text", n=len(calls)))
            turn = replace(turn, content=rest, calls=calls, call_fields=())
    if turn.calls:
        turn = replace(turn, **_arguments_fixed(turn))
    return replace(turn, notes=tuple(dict.fromkeys(notes)))


def _no_answer(turn: Any) -> ModelFailure | None:
    """The failure a reply that arrived really is, or ``None``."""
    ending = turn.finish_reason or ""
    if turn.refusal:
        return ModelFailure(
            "refused", tr("provider.refused", text=turn.refusal), tokens=turn.tokens
        )
    kind = FINISH_FAILURES.get(ending)
    if kind is not None:
        key = "model.finish_blocked" if kind == "blocked" else "model.finish_service_error"
        return ModelFailure(kind, tr(key, reason=ending), tokens=turn.tokens)
    if ending.lower() in LOST_CALL_ENDINGS:
        return ModelFailure(
            "call_lost", tr("provider.malformed_call", reason=ending), tokens=turn.tokens
        )
    if ending in CALL_ENDINGS and not turn.calls and not _has_text_call(turn.content):
        key = "provider.call_announced_text" if turn.content else "provider.call_announced"
        return ModelFailure("call_lost", tr(key, reason=ending), tokens=turn.tokens)
    return None


def _has_text_call(content: str | None) -> bool:
    try:
        return bool(content) and calls_in_text(content) is not None
    except ValueError:
        return True  # a broken text call: named as such further on


def _arguments_fixed(turn: Any) -> dict[str, Any]:
    """Arguments ``"null"`` read as ``{}``; a lone surrogate escaped inside them
    (``"\\ud83d"``) replaced; for arguments that are not a JSON object, ``{}`` in
    the history that goes back (through ``call_fields``, which
    ``ModelTurn.as_message`` lays over the call)."""
    calls, fields = [], list(turn.call_fields or ({} for _ in turn.calls))
    for position, call in enumerate(turn.calls):
        parsed = json_or_none(call.arguments)
        if call.arguments.strip() in ("null", ""):  # Groq, for a tool without parameters
            call = replace(call, arguments="{}")
        elif not isinstance(parsed, dict):
            function = {"name": call.name, "arguments": "{}"}
            fields[position] = {**fields[position], "function": function}
        elif "\\u" in call.arguments and (clean := without_lone_surrogates(parsed)) != parsed:
            call = replace(call, arguments=json.dumps(clean, ensure_ascii=False))
        calls.append(call)
    return {"calls": calls, "call_fields": tuple(fields)}


def json_or_none(text: str) -> Any:
    """``text`` read as JSON, or ``None`` when it is not (or is nested too deep)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def without_lone_surrogates(value: Any) -> Any:
    """``value`` with every lone UTF-16 surrogate (half of an emoji a service sent as
    ``"\\ud83d"``) replaced by U+FFFD: UTF-8 has no form for it, so a request that
    carries it back cannot be sent. A pair that belongs together is joined into
    its character. Walks strings, lists, tuples, dicts and dataclasses."""
    return strings_changed(value, _surrogates_replaced)


def _surrogates_replaced(text: str) -> str:
    if not LONE_SURROGATE.search(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


# -- replies in the other framing ---------------------------------------------------------


def json_document(text: str) -> Any:
    """The body read as one JSON document (a stray ``data: [DONE]`` after it
    dropped); ``None`` when it is not one (SSE ``data:`` lines, a web page)."""
    return json_or_none(STRAY_DONE.sub("", text))


def json_payloads(text: str) -> list[dict[str, Any]]:
    """The JSON objects in a body that came in the other framing: one JSON
    document (:func:`json_document`), or else the JSON of each SSE ``data:``
    line. Empty when there is none (a web page, say, or JSON nested thousands
    deep, which Python's parser refuses with ``RecursionError``)."""
    whole = json_document(text)
    if whole is not None:
        return [whole] if isinstance(whole, dict) else []
    data = [line[len("data:") :] for line in text.splitlines() if line.startswith("data:")]
    found = [json_or_none(line) for line in data]  # None: [DONE], a line cut short
    return [value for value in found if isinstance(value, dict)]

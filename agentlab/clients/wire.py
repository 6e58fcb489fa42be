"""The wire format of a chat-completions service, for fake services.

Given a scripted :class:`~agentlab.clients.script.Reply`, this module builds
what an OpenAI-compatible service sends back: the JSON of a ``chat.completion``
(:func:`completion_body`), the chunks of a streamed reply cut as
:class:`Chunking` says, as server-sent events (:func:`stream_chunks`,
:func:`sse`), an estimated ``usage`` block and an HTTP error's body. The
scripted client and the test suite's loopback fault server both use it, so
replies look the same in process and over a socket. It does not decide what
to say (that is the script) nor answer requests.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from ..i18n import tr
from .script import Reply


@dataclass(frozen=True)
class Chunking:
    """How a streamed reply is cut into chunks.

    ``missing_index`` (continuation fragments carry no ``index``) and
    ``same_index`` (every parallel call says ``index: 0``, with distinct ids)
    imitate real providers; in those modes calls are sent one after another,
    since interleaving them would be ambiguous for any client.
    """

    text_size: int = 6
    """Characters of text per chunk."""
    argument_size: int = 7
    """Characters of JSON arguments per fragment."""
    interleave: bool = True
    """Parallel calls' fragments take turns."""
    missing_index: bool = False
    same_index: bool = False

    def __post_init__(self) -> None:
        if self.text_size < 1 or self.argument_size < 1:
            raise ValueError(tr("scripted.bad_chunk_size"))


def completion_body(reply: Reply, number: int, model: str, prompt_tokens: int) -> dict[str, Any]:
    """The JSON a service returns for ``reply``, the ``number``-th request it answered.

    Tool call ids are ``call_<number>_<position>``; ``created`` is fixed at 0
    so recorded runs are reproducible.
    """
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": f"call_{number}_{i}",
                "type": "function",
                "function": {"name": tc.name, "arguments": tc.arguments_json()},
            }
            for i, tc in enumerate(reply.tool_calls)
        ]
    finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
    return {
        "id": f"chatcmpl-scripted-{number}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage_block(prompt_tokens, reply),
    }


def stream_chunks(
    completion: dict[str, Any], chunking: Chunking, include_usage: bool
) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects that stream ``completion``."""
    message = completion["choices"][0]["message"]
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    deltas += [{"content": part} for part in _cut(message.get("content"), chunking.text_size)]

    per_call = []
    for i, tc in enumerate(message.get("tool_calls") or []):
        index = 0 if chunking.same_index else i
        head = {"index": index, "id": tc["id"], "type": "function"}
        head["function"] = {"name": tc["function"]["name"], "arguments": ""}
        where = {} if chunking.missing_index else {"index": index}
        parts = _cut(tc["function"]["arguments"], chunking.argument_size)
        per_call.append([head] + [{"function": {"arguments": part}} | where for part in parts])
    sequential = chunking.missing_index or chunking.same_index or not chunking.interleave
    if sequential:
        fragments = [p for pieces in per_call for p in pieces]
    else:  # round robin: call 0 piece 0, call 1 piece 0, call 0 piece 1, ...
        longest = max((len(p) for p in per_call), default=0)
        fragments = [p[k] for k in range(longest) for p in per_call if k < len(p)]
    deltas.extend({"tool_calls": [f]} for f in fragments)

    base = {key: completion[key] for key in ("id", "created", "model")}
    base["object"] = "chat.completion.chunk"
    chunks = [
        {**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas
    ]
    finish = completion["choices"][0]["finish_reason"]
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    if include_usage:
        chunks.append({**base, "choices": [], "usage": completion["usage"]})
    return chunks


def _cut(text: str | None, size: int) -> list[str]:
    """``text`` in pieces of ``size`` characters (the last may be shorter)."""
    text = text or ""
    return [text[start : start + size] for start in range(0, len(text), size)]


def sse(chunks: list[dict[str, Any]]) -> bytes:
    """Chunks as a server-sent event stream, ending with ``data: [DONE]``."""
    events = "".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks)
    return (events + "data: [DONE]\n\n").encode("utf-8")


def estimate_tokens(text: str) -> int:
    """A documented stand-in for a tokenizer: one token per 4 UTF-8 bytes.

    That is about one token per English word piece and ~0.75 per Chinese
    character, close enough to real tokenizers to reason about budgets.
    Example: ``estimate_tokens("hello world")`` -> 3.
    """
    return math.ceil(len(text.encode("utf-8")) / 4)


def prompt_tokens(body: dict[str, Any]) -> int:
    """The estimated size of a request's prompt: its messages and tools as compact JSON."""
    parts = [body.get("messages", [])] + ([body["tools"]] if body.get("tools") else [])
    return estimate_tokens("".join(_compact(part) for part in parts))


def prompt_tokens_sent(raw: bytes, body: dict[str, Any]) -> int:
    """:func:`prompt_tokens` of a request the openai SDK sent: ``raw`` is its
    bytes, ``body`` the same bytes parsed."""
    return math.ceil(prompt_bytes_sent(raw, body) / 4)


def prompt_bytes_sent(raw: bytes, body: dict[str, Any]) -> int:
    """Bytes of the compact JSON of a sent request's messages (and tools).

    The SDK writes a body as compact UTF-8 JSON, the spelling
    :func:`prompt_tokens` measures, so the history need not be encoded a
    second time (at 200 steps that was a quarter of a scripted request): put
    a one-byte ``0`` in place of each counted value, and the body shrinks by
    exactly their size less one byte each. ``tests/test_scripted_client.py``
    checks this against :func:`prompt_tokens` for bodies sent by the SDK.
    """
    counted = ["messages"] + (["tools"] if body.get("tools") else [])
    skeleton = {key: 0 if key in counted else value for key, value in body.items()}
    size = len(raw) - len(_compact(skeleton).encode("utf-8"))
    size += sum(key in body for key in counted)  # the "0"s
    if "messages" not in body:
        size += len("[]")  # prompt_tokens counts a missing history as []
    return size


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def usage_block(prompt: int, reply: Reply) -> dict[str, int]:
    """Token usage by :func:`estimate_tokens`, for a prompt of ``prompt`` tokens."""
    reply_text = (reply.content or "") + "".join(
        tc.name + tc.arguments_json() for tc in reply.tool_calls
    )
    completion = estimate_tokens(reply_text)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def error_body(status: int, message: str) -> dict[str, Any]:
    """The JSON body of an HTTP error, in the shape OpenAI uses."""
    return {"error": {"message": message, "type": "scripted_error", "code": status}}

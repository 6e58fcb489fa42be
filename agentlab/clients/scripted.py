"""Scripted model clients: real ``openai.OpenAI`` objects answered in process.

A :class:`ScriptedClient` *is* an ``openai.OpenAI``. Its HTTP client uses an
in-process ``MockTransport`` (from ``httpx2``, the HTTP library the openai SDK
is built on), so the SDK builds every request and parses every reply exactly
as it would with a real service. No key, no network, same loop code.

What the "model" says comes from a *script*, in one of two forms:

- a list of turns, played in order (:class:`Reply` or :class:`HttpError`);
- a *policy*: a function of the :class:`Conversation` so far that returns
  the next turn, like pydantic-ai's ``FunctionModel``. Policies read what the
  tools returned, so their answers follow the data.

Requests made with ``stream=True`` are answered as server-sent events, cut
up as :class:`Chunking` says (arguments split mid-JSON, parallel calls
interleaved, or the quirks some providers have), and the SDK's own SSE
parser reads them.

Every request is recorded in ``client.requests`` (messages and tools as the
model saw them), so tests and notebooks can show what the model was given.
Replies carry a ``usage`` block estimated by :func:`estimate_tokens`.

This module does not decide anything itself: the behaviours (an honest
analyst, a model that never stops, ...) live in ``behaviours.py``.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2
from openai import OpenAI

SCRIPTED_BASE_URL = "http://scripted.agentlab.invalid/v1"


@dataclass(frozen=True)
class ToolCall:
    """A tool call the scripted model asks for.

    ``arguments`` is normally a dict (sent as JSON); a string is sent as it
    is, which lets a script send broken JSON on purpose.
    """

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)

    def arguments_json(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, ensure_ascii=False)


@dataclass(frozen=True)
class Reply:
    """One assistant turn: some text, some tool calls, or both."""

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None  # default: "tool_calls" or "stop"; "length" = cut off


@dataclass(frozen=True)
class HttpError:
    """The service answers this turn with an HTTP error instead of a reply."""

    status: int
    message: str = "scripted HTTP error"


@dataclass(frozen=True)
class Hang:
    """The service goes quiet for ``seconds`` before answering ``then``.

    Used to show that a run's deadline covers the model request too.
    """

    seconds: float
    then: Reply = Reply(content="(a very late answer)")


Turn = Reply | HttpError | Hang


@dataclass(frozen=True)
class Chunking:
    """How a streamed reply is cut into chunks.

    ``missing_index`` (continuation fragments carry no ``index``) and
    ``same_index`` (every parallel call says ``index: 0``, with distinct ids)
    imitate real providers; in those modes calls are sent one after another,
    since interleaving them would be ambiguous for any client.
    """

    text_size: int = 6  # characters of text per chunk
    argument_size: int = 7  # characters of JSON arguments per fragment
    interleave: bool = True  # parallel calls' fragments take turns
    missing_index: bool = False
    same_index: bool = False

    def __post_init__(self) -> None:
        if self.text_size < 1 or self.argument_size < 1:
            raise ValueError("chunk sizes must be at least 1")


def say(content: str) -> Reply:
    """A final text answer."""
    return Reply(content=content)


def call(name: str, arguments: dict[str, Any] | str | None = None, **kwargs: Any) -> Reply:
    """A turn with one tool call: ``call("analyze_csv", relative_path="sales.csv")``."""
    args = arguments if arguments is not None else kwargs
    return Reply(tool_calls=(ToolCall(name, args),))


@dataclass
class Conversation:
    """What a policy sees: the request as the service received it."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    request_number: int  # 1 for the first request this client answers

    @property
    def task(self) -> str:
        """The most recent user message."""
        for message in reversed(self.messages):
            if message.get("role") == "user":
                return content_text(message.get("content"))
        return ""

    def tool_results(self) -> list[dict[str, Any]]:
        """Every tool message so far, its JSON content parsed where possible."""
        return [_parse_result(m.get("content")) for m in self.messages if m.get("role") == "tool"]

    def last_tool_result(self) -> dict[str, Any] | None:
        results = self.tool_results()
        return results[-1] if results else None

    def exchanges(self) -> list[Exchange]:
        """Every tool call so far, paired with its result by ``tool_call_id``."""
        results = {}
        for message in self.messages:
            if message.get("role") == "tool":
                results[message.get("tool_call_id")] = _parse_result(message.get("content"))
        pairs = []
        for message in self.messages:
            for tc in message.get("tool_calls") or []:
                function = tc.get("function") or {}
                try:
                    arguments = json.loads(function.get("arguments") or "{}")
                except json.JSONDecodeError:
                    arguments = {}
                pairs.append(
                    Exchange(function.get("name", ""), arguments, results.get(tc.get("id")))
                )
        return pairs


@dataclass(frozen=True)
class Exchange:
    """One tool call the model made and the result it got back (if any yet)."""

    tool: str
    arguments: dict[str, Any]
    result: dict[str, Any] | None

    @property
    def ok(self) -> bool:
        return bool(self.result) and self.result.get("status") == "ok"

    @property
    def error_code(self) -> str | None:
        error = (self.result or {}).get("error") or {}
        return error.get("code")


Policy = Callable[[Conversation], Turn]


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the scripted service received it."""

    number: int
    model: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    stream: bool
    prompt_bytes: int = 0  # bytes of messages and tools in the body as it arrived


def play_in_order(turns: Sequence[Turn]) -> Policy:
    """A policy that plays ``turns`` one per request, then reports it ran out."""
    turns = list(turns)

    def policy(conversation: Conversation) -> Turn:
        index = conversation.request_number - 1
        if index < len(turns):
            return turns[index]
        return HttpError(500, f"the script has only {len(turns)} turn(s)")

    return policy


class ScriptedClient(OpenAI):
    """An ``openai.OpenAI`` whose replies come from a script, not a server."""

    def __init__(
        self,
        script: Policy | Sequence[Turn],
        *,
        name: str = "scripted",
        chunking: Chunking | None = None,
    ) -> None:
        self.script_name = name
        self.chunking = chunking or Chunking()
        self.policy: Policy = script if callable(script) else play_in_order(script)
        self.requests: list[RecordedRequest] = []
        transport = httpx2.MockTransport(self._handle)
        super().__init__(
            api_key="scripted-no-key",
            base_url=SCRIPTED_BASE_URL,
            max_retries=0,  # request counts stay honest; retries are the loop's job
            http_client=httpx2.Client(transport=transport),
        )

    def __repr__(self) -> str:
        return f"ScriptedClient({self.script_name!r}, requests={len(self.requests)})"

    # -- the in-process "service" ------------------------------------------------

    def _handle(self, request: httpx2.Request) -> httpx2.Response:
        if not request.url.path.endswith("/chat/completions"):
            return _error_response(404, f"the scripted service has no {request.url.path}")
        body = json.loads(request.content)
        recorded = RecordedRequest(
            number=len(self.requests) + 1,
            model=body.get("model", ""),
            messages=body.get("messages", []),
            tools=body.get("tools", []),
            stream=bool(body.get("stream")),
            prompt_bytes=_prompt_bytes(request.content, body),
        )
        self.requests.append(recorded)
        conversation = Conversation(recorded.messages, recorded.tools, recorded.number)
        try:
            turn = self.policy(conversation)
        except Exception as exc:  # a broken script is a failing service, not a crash
            return _error_response(500, f"scripted policy raised {type(exc).__name__}: {exc}")
        if isinstance(turn, Hang):
            time.sleep(turn.seconds)  # blocks this request only; the loop may give up on it
            turn = turn.then
        if isinstance(turn, HttpError):
            return _error_response(turn.status, turn.message)
        body_json = completion_body(turn, recorded)
        if not recorded.stream:
            return httpx2.Response(200, json=body_json)
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        chunks = stream_chunks(body_json, self.chunking, include_usage)
        events = "".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks)
        return httpx2.Response(
            200,
            headers={"content-type": "text/event-stream"},
            content=(events + "data: [DONE]\n\n").encode("utf-8"),
        )


def completion_body(reply: Reply, request: RecordedRequest) -> dict[str, Any]:
    """The JSON a chat-completions service returns for ``reply``."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": f"call_{request.number}_{i}",
                "type": "function",
                "function": {"name": tc.name, "arguments": tc.arguments_json()},
            }
            for i, tc in enumerate(reply.tool_calls)
        ]
    return {
        "id": f"chatcmpl-scripted-{request.number}",
        "object": "chat.completion",
        "created": 0,  # fixed, so recorded runs are reproducible
        "model": request.model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": reply.finish_reason
                or ("tool_calls" if reply.tool_calls else "stop"),
            }
        ],
        "usage": usage_block(request, reply),
    }


def stream_chunks(
    completion: dict[str, Any], chunking: Chunking, include_usage: bool
) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects that stream ``completion``."""
    message = completion["choices"][0]["message"]
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    text = message.get("content") or ""
    for start in range(0, len(text), chunking.text_size):
        deltas.append({"content": text[start : start + chunking.text_size]})

    per_call = []
    for i, tc in enumerate(message.get("tool_calls") or []):
        index = 0 if chunking.same_index else i
        head = {"index": index, "id": tc["id"], "type": "function"}
        head["function"] = {"name": tc["function"]["name"], "arguments": ""}
        pieces = [head]
        args = tc["function"]["arguments"]
        for start in range(0, len(args), chunking.argument_size):
            piece: dict[str, Any] = {
                "function": {"arguments": args[start : start + chunking.argument_size]}
            }
            if not chunking.missing_index:
                piece["index"] = index
            pieces.append(piece)
        per_call.append(pieces)
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


def estimate_tokens(text: str) -> int:
    """A documented stand-in for a tokenizer: one token per 4 UTF-8 bytes.

    That is about one token per English word piece and ~0.75 per Chinese
    character, close enough to real tokenizers to reason about budgets.
    """
    return math.ceil(len(text.encode("utf-8")) / 4)


def usage_block(request: RecordedRequest, reply: Reply) -> dict[str, int]:
    """Token usage by the same estimate; the prompt is measured on the request
    as it arrived, so a long history is not encoded a second time."""
    reply_text = (reply.content or "") + "".join(
        tc.name + tc.arguments_json() for tc in reply.tool_calls
    )
    prompt = math.ceil(request.prompt_bytes / 4)
    completion = estimate_tokens(reply_text)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _prompt_bytes(raw: bytes, body: dict[str, Any]) -> int:
    """Bytes of ``messages`` and ``tools`` in a raw JSON body: the body minus
    its other keys (model, stream settings) encoded the same compact way."""
    rest = {k: v for k, v in body.items() if k not in ("messages", "tools")}
    return len(raw) - len(json.dumps(rest, ensure_ascii=False, separators=(",", ":")).encode())


def content_text(content: Any) -> str:
    """Message content as plain text (content may be a list of parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def _parse_result(content: Any) -> dict[str, Any]:
    """A tool message's content as a dict (our tools send JSON results)."""
    text = content_text(content)
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        return {"status": "unknown", "text": text}
    return parsed if isinstance(parsed, dict) else {"status": "unknown", "value": parsed}


def _error_response(status: int, message: str) -> httpx2.Response:
    return httpx2.Response(
        status, json={"error": {"message": message, "type": "scripted_error", "code": status}}
    )

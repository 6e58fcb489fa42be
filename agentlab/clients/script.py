"""What a scripted model says and what it sees.

A *script* is either a list of turns played in order, or a *policy*: a
function of the :class:`Conversation` so far that returns the next turn (like
pydantic-ai's ``FunctionModel``), so its answers follow what the tools
returned. A turn is a :class:`Reply` (text, tool calls or both: ``say("…")``,
``call("tool", x=1)``), an :class:`HttpError`, or a :class:`Hang` (the service
goes quiet, then answers). Sending a turn as JSON or SSE is ``wire.py``'s job;
answering requests is ``scripted.py``'s.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..i18n import tr


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
    finish_reason: str | None = None
    """Default: ``"tool_calls"`` or ``"stop"``; ``"length"`` means cut off."""


@dataclass(frozen=True)
class HttpError:
    """The service answers this turn with an HTTP error instead of a reply."""

    status: int
    message: str = field(default_factory=lambda: tr("scripted.http_error"))

    def __post_init__(self) -> None:
        status = self.status
        if isinstance(status, bool) or not isinstance(status, int) or not 400 <= status <= 599:
            raise ValueError(tr("scripted.bad_status", status=status))


@dataclass(frozen=True)
class Hang:
    """The service goes quiet for ``seconds`` before answering ``then``.

    Used to show that a run's deadline covers the model request too.
    """

    seconds: float
    then: Reply = field(default_factory=lambda: Reply(content=tr("scripted.late_answer")))

    def __post_init__(self) -> None:
        seconds = self.seconds
        number = isinstance(seconds, int | float) and not isinstance(seconds, bool)
        if not (number and math.isfinite(seconds) and seconds >= 0):
            raise ValueError(tr("scripted.bad_hang", seconds=seconds))


Turn = Reply | HttpError | Hang


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
    request_number: int
    """1 for the first request this client answers."""

    @property
    def task(self) -> str:
        """The task: the first user message (later ones are the loop's own notes,
        such as a completion check's "not done yet")."""
        for message in self.messages:
            if message.get("role") == "user":
                return content_text(message.get("content"))
        return ""

    def tool_results(self) -> list[dict[str, Any]]:
        """Every tool message so far, its JSON content parsed where possible."""
        return [parse_result(m.get("content")) for m in self.messages if m.get("role") == "tool"]

    def last_tool_result(self) -> dict[str, Any] | None:
        results = self.tool_results()
        return results[-1] if results else None

    def exchanges(self) -> list[Exchange]:
        """Every tool call so far, paired with its result by ``tool_call_id``.

        Example: after ``read_text`` failed and ``list_dir`` worked, this is
        ``[Exchange("read_text", {...}, {"status": "error", ...}),
        Exchange("list_dir", {}, {"status": "ok", ...})]``.
        """
        results = {
            m.get("tool_call_id"): parse_result(m.get("content"))
            for m in self.messages
            if m.get("role") == "tool"
        }
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


def play_in_order(turns: Sequence[Turn]) -> Policy:
    """A policy that plays ``turns`` one per request, then reports it ran out."""
    turns = list(turns)

    def policy(conversation: Conversation) -> Turn:
        index = conversation.request_number - 1
        if index < len(turns):
            return turns[index]
        return HttpError(500, tr("scripted.ran_out", turns=len(turns)))

    return policy


def content_text(content: Any) -> str:
    """Message content as plain text (content may be a list of parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def parse_result(content: Any) -> dict[str, Any]:
    """A tool message's content as a dict (our tools send JSON results)."""
    text = content_text(content)
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        return {"status": "unknown", "text": text}
    return parsed if isinstance(parsed, dict) else {"status": "unknown", "value": parsed}

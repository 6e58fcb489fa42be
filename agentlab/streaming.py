"""Streamed model requests: text as it arrives, tool calls put back together.

With ``stream=True`` a chat-completions reply arrives as many chunks. Text
comes as small deltas we can show at once. Tool calls come as *fragments*:
the first fragment of a call carries its ``index``, ``id`` and name, later
ones carry pieces of the JSON arguments, cut anywhere (even mid-string).
:class:`ToolCallAssembler` joins them by ``index``, the rule every
OpenAI-compatible service follows, and survives two things real providers do:

- a continuation fragment with no ``index`` belongs to the call being built;
- parallel calls that all say ``index: 0`` but carry distinct ids are
  distinct calls (a new id under a known index starts a new call).

The arguments are not parsed here: a string that is not valid JSON after
assembly goes to the tool registry, which answers ``INVALID_ARGUMENTS`` and
the model gets to try again. Nothing here executes tools or decides to stop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import openai

from .request import CallRequest, ModelFailure, ModelTurn, failure_from, post_chat, request_body


@dataclass
class Fragment:
    """What one ``delta.tool_calls`` entry carried (``None``: field absent)."""

    chunk: int
    index: int | None
    id: str | None
    name: str | None
    arguments: str | None


@dataclass(slots=True)
class _Slot:
    order: tuple[int, int]  # (index, creation order): how calls are sorted at the end
    index: int
    id: str = ""
    name: str = ""
    arguments: str = ""


@dataclass
class ToolCallAssembler:
    """Collects tool-call fragments and returns complete calls."""

    fragments: list[Fragment] = field(default_factory=list)
    _slots: list[_Slot] = field(default_factory=list)
    _by_index: dict[int, _Slot] = field(default_factory=dict)

    def add(self, piece: Any, chunk: int = 0) -> None:
        """Add one fragment (an SDK ``ChoiceDeltaToolCall`` or anything alike)."""
        function = getattr(piece, "function", None)
        fragment = Fragment(
            chunk=chunk,
            index=getattr(piece, "index", None),
            id=getattr(piece, "id", None) or None,
            name=getattr(function, "name", None) or None,
            arguments=getattr(function, "arguments", None),
        )
        self.fragments.append(fragment)
        slot = self._slot_for(fragment)
        if fragment.id and not slot.id:
            slot.id = fragment.id
        if fragment.name and fragment.name != slot.name:
            slot.name += fragment.name  # most send the name once; some split it
        if fragment.arguments:
            slot.arguments += fragment.arguments

    def _slot_for(self, fragment: Fragment) -> _Slot:
        if fragment.index is None:
            current = self._slots[-1] if self._slots else None  # continue the call being built
        else:
            current = self._by_index.get(fragment.index)
        starts_new_call = current is None or (
            fragment.id is not None and current.id and fragment.id != current.id
        )
        if not starts_new_call:
            return current
        if fragment.index is not None:
            index = fragment.index
        else:
            index = max((s.index for s in self._slots), default=-1) + 1
        slot = _Slot(order=(index, len(self._slots)), index=index)
        self._slots.append(slot)
        self._by_index[index] = slot
        return slot

    def calls(self) -> list[CallRequest]:
        """The assembled calls, ordered by index (then by arrival)."""
        ordered = sorted(self._slots, key=lambda s: s.order)
        return [
            CallRequest(s.id or f"call_stream_{n}", s.name, s.arguments)
            for n, s in enumerate(ordered)
        ]


def print_delta(text: str) -> None:
    """Show a text delta at once (``flush`` matters in a notebook)."""
    print(text, end="", flush=True)


@dataclass
class StreamedTurn(ModelTurn):
    """A ``ModelTurn`` that also keeps the raw fragments, for teaching."""

    fragments: tuple[Fragment, ...] = ()


def stream_turn(
    client: openai.OpenAI,
    model: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    on_text: Callable[[str], None] | None = print_delta,
    timeout: float | None = None,
) -> StreamedTurn | ModelFailure:
    """Make one streamed request and assemble its reply."""
    text: list[str] = []
    assembler = ToolCallAssembler()
    usage = None
    finish_reason = None
    try:
        stream = post_chat(client, request_body(model, messages, tools, stream=True), timeout)
        with stream:
            for number, chunk in enumerate(stream):
                if getattr(chunk, "usage", None):
                    usage = chunk.usage
                if not chunk.choices:
                    continue
                finish_reason = chunk.choices[0].finish_reason or finish_reason
                delta = chunk.choices[0].delta
                if delta.content:
                    text.append(delta.content)
                    if on_text:
                        on_text(delta.content)
                for fragment in delta.tool_calls or []:
                    assembler.add(fragment, number)
    except Exception as exc:  # the stream may break half way: a failure, not a crash
        return failure_from(exc, secret=getattr(client, "api_key", None))
    if text and on_text:
        on_text("\n")
    return StreamedTurn(
        content="".join(text) or None,
        calls=assembler.calls(),
        tokens=usage.total_tokens if usage else 0,
        usage_reported=usage is not None,
        finish_reason=finish_reason,
        fragments=tuple(assembler.fragments),
    )

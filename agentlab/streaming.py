"""Streamed replies: text as it arrives, tool calls put back together.

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
the model gets to try again. Sending the request is ``request.py``'s job;
nothing here executes tools or decides to stop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple


@dataclass
class Fragment:
    """What one ``delta.tool_calls`` entry carried (``None``: field absent)."""

    chunk: int
    index: int | None
    id: str | None
    name: str | None
    arguments: str | None


class AssembledCall(NamedTuple):
    """A complete tool call, put together from its fragments."""

    id: str
    name: str
    arguments: str


@dataclass
class _Call:
    """A call being assembled."""

    index: int
    arrival: int  # calls with the same index keep the order they came in
    id: str = ""
    name: str = ""
    arguments: str = ""


@dataclass
class ToolCallAssembler:
    """Collects tool-call fragments and returns complete calls."""

    fragments: list[Fragment] = field(default_factory=list)
    _calls: list[_Call] = field(default_factory=list)
    _by_index: dict[int, _Call] = field(default_factory=dict)

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
        call = self._call_for(fragment)
        if fragment.id and not call.id:
            call.id = fragment.id
        if fragment.name and fragment.name != call.name:
            call.name += fragment.name  # most send the name once; some split it
        if fragment.arguments:
            call.arguments += fragment.arguments

    def _call_for(self, fragment: Fragment) -> _Call:
        if fragment.index is None:
            current = self._calls[-1] if self._calls else None  # continue the call being built
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
            index = max((c.index for c in self._calls), default=-1) + 1
        call = _Call(index=index, arrival=len(self._calls))
        self._calls.append(call)
        self._by_index[index] = call
        return call

    def calls(self) -> list[AssembledCall]:
        """The assembled calls, ordered by index, then by arrival."""
        ordered = sorted(self._calls, key=lambda c: (c.index, c.arrival))
        return [AssembledCall(c.id, c.name, c.arguments) for c in ordered]


@dataclass
class StreamedReply:
    """Everything a streamed reply said, put back together."""

    content: str | None
    calls: list[AssembledCall]
    usage: Any
    finish_reason: str | None
    fragments: tuple[Fragment, ...]


def read_stream(chunks: Iterable[Any], on_text: Callable[[str], None] | None) -> StreamedReply:
    """Read SDK ``ChatCompletionChunk`` objects to the end; text goes to ``on_text`` as it comes."""
    text: list[str] = []
    assembler = ToolCallAssembler()
    usage = finish_reason = None
    for number, chunk in enumerate(chunks):
        if getattr(chunk, "usage", None):
            usage = chunk.usage  # the last chunk carries it, when asked for
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
    if text and on_text:
        on_text("\n")
    return StreamedReply(
        content="".join(text) or None,
        calls=assembler.calls(),
        usage=usage,
        finish_reason=finish_reason,
        fragments=tuple(assembler.fragments),
    )


def print_delta(text: str) -> None:
    """Show a text delta at once (``flush`` matters in a notebook)."""
    print(text, end="", flush=True)

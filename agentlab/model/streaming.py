"""Streamed replies: text as it arrives, tool calls put back together.

With ``stream=True`` a reply arrives as many chunks: text and reasoning as
small deltas we show at once, tool calls as *fragments* (the first usually
carries the call's ``index``, ``id`` and name, later ones pieces of the JSON
arguments, cut anywhere). :class:`ToolCallAssembler` joins them with one rule
that covers what real providers do (``tests/providers/`` replays them):

1. *Which call does a fragment continue?* The one with the same ``index``;
   without an index, the one with the same ``id``; without either, the first
   call whose arguments are not yet whole JSON (or the last call).
2. *Does it start a new call instead?* Only when it names a function and that
   call already has a name: a different name is a new call; the same name
   again is one unless it comes with the same id or the call's arguments are
   still unfinished (some services repeat the name on every fragment).

So ids never split a call (Kimi and LM Studio send a fresh id on every fragment), and
parallel calls that all say ``index: 0`` or carry neither (Gemini) are told
apart by their names. The first id and name of a call win. A piece that
repeats all the arguments so far replaces them, and a closing chunk that
resends the whole call adds nothing.

Also here: :class:`ThinkTags` (a ``<think>`` block opening the text) and
:class:`ChunkStream` (the SDK's stream, repaired). Arguments are not parsed
here: the registry answers ``INVALID_ARGUMENTS`` to a string that is not JSON.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import Any

import openai
from openai import Stream
from openai.types import CompletionUsage
from openai.types.chat import ChatCompletionChunk

from ..i18n import tr
from . import quirks
from .failures import ModelFailure
from .turn import CallRequest, ModelTurn, as_text, make_turn


@dataclass
class Fragment:
    """What one ``delta.tool_calls`` entry carried (``None``: field absent)."""

    chunk: int
    index: int | None
    id: str | None
    name: str | None
    arguments: str | None


@dataclass
class AssembledCall:
    """A call put together from its fragments (``extra``: fields the provider added)."""

    index: int
    arrival: int  # calls with the same index keep the order they came in
    id: str = ""
    name: str = ""
    arguments: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    _checked: int = -1  # the length of the arguments when last checked
    _whole: bool = False

    def whole(self) -> bool:
        """Are the arguments whole JSON yet? (Checked again only after they grew.)"""
        if self._checked != len(self.arguments):
            self._checked = len(self.arguments)
            self._whole = is_whole_json(self.arguments)
        return self._whole


def is_whole_json(text: str) -> bool:
    """``'{"a": 1}'`` is whole; ``'{"a": '`` and ``''`` are not."""
    if not text.rstrip().endswith(("}", "]")):  # cheap: most fragments end elsewhere
        return False
    try:
        json.loads(text)
    except RecursionError:  # whole, but too deep to read: the registry refuses it
        return True
    except ValueError:
        return False
    return True


@dataclass
class ToolCallAssembler:
    """Collects tool-call fragments and returns complete calls."""

    fragments: list[Fragment] = field(default_factory=list)
    _calls: list[AssembledCall] = field(default_factory=list)
    _by_index: dict[int, AssembledCall] = field(default_factory=dict)
    _by_id: dict[str, AssembledCall] = field(default_factory=dict)

    def add(self, piece: Any, chunk: int = 0) -> None:
        """Add one fragment (an SDK ``ChoiceDeltaToolCall`` or anything alike)."""
        function = getattr(piece, "function", None)
        index = getattr(piece, "index", None)
        arguments = getattr(function, "arguments", None)
        fragment = Fragment(
            chunk=chunk,
            index=index if isinstance(index, int) and not isinstance(index, bool) else None,
            id=as_text(getattr(piece, "id", None)) or None,
            name=as_text(getattr(function, "name", None)) or None,
            arguments=None if arguments is None else as_text(arguments),
        )
        self.fragments.append(fragment)
        call = self._call_for(fragment)
        if fragment.id:
            call.id = call.id or fragment.id
            self._by_id.setdefault(fragment.id, call)
        if fragment.name and not call.name:
            call.name = fragment.name
        if fragment.arguments:
            call.arguments = _joined(call.arguments, fragment.arguments)
        if getattr(piece, "model_extra", None):
            quirks.merge_fields(call.extra, quirks.kept_fields(piece))

    def _call_for(self, fragment: Fragment) -> AssembledCall:
        """The call this fragment continues, or a new one (rule: module docstring)."""
        if fragment.index is not None:
            call = self._by_index.get(fragment.index)
        elif fragment.id in self._by_id:
            call = self._by_id[fragment.id]
        else:
            call = next((c for c in self._calls if not c.whole()), None)
            call = call or (self._calls[-1] if self._calls else None)
        if call is not None and not _starts_new_call(fragment, call):
            return call
        index = fragment.index
        if index is None:
            index = max((c.index for c in self._calls), default=-1) + 1
        call = AssembledCall(index=index, arrival=len(self._calls))
        self._calls.append(call)
        self._by_index[index] = call
        return call

    def calls(self) -> list[AssembledCall]:
        """The assembled calls, ordered by index, then by arrival."""
        ordered = sorted(self._calls, key=lambda c: (c.index, c.arrival))
        return [c for c in ordered if c.id or c.name or c.arguments]  # not an empty fragment


def _starts_new_call(fragment: Fragment, call: AssembledCall) -> bool:
    if not (fragment.name and call.name):
        return False  # continuations carry no name
    if fragment.id and fragment.id == call.id:
        return False  # the same call, its name repeated
    if fragment.name == call.name and fragment.arguments == call.arguments:
        return False  # the whole call sent once more, as a closing chunk
    return fragment.name != call.name or call.whole()


def _joined(arguments: str, piece: str) -> str:
    """The arguments so far with one more piece. A piece that starts with all of them
    resends them (DeepSeek and Baidu Qianfan through some gateways, hermes-agent PR
    35718): it replaces them.
    (A real next piece would have to repeat everything so far, its ``{"`` included.)"""
    if arguments and piece.startswith(arguments):
        return piece
    return arguments + piece


OPEN, CLOSE = "<think>", "</think>"


@dataclass
class ThinkTags:
    """Routes a ``<think>…</think>`` block that opens streamed text to reasoning.

    Some servers (vLLM without a reasoning parser) leave the model's thinking
    in ``content``. A tag may be cut anywhere, so characters that might still
    turn out to be part of one wait in ``held``.
    """

    state: str = "start"  # start -> think -> after -> text, or start -> text
    held: str = ""
    found: bool = False  # the text did open with a <think> block

    def feed(self, piece: str) -> tuple[str, str]:
        """``(answer text, reasoning)`` that can be shown now."""
        text, self.held = self.held + piece, ""
        if self.state == "start":
            head = text.lstrip()
            if OPEN.startswith(head):  # only whitespace, or part of the tag, so far
                self.held = text
                return "", ""
            if not head.startswith(OPEN):
                self.state = "text"
                return text, ""
            self.state, self.found, text = "think", True, head[len(OPEN) :]
        reasoning = ""
        if self.state == "think":
            end = text.find(CLOSE)
            if end < 0:
                keep = next(
                    (k for k in range(len(CLOSE) - 1, 0, -1) if text.endswith(CLOSE[:k])), 0
                )
                self.held = text[len(text) - keep :]
                return "", text[: len(text) - keep]
            self.state, reasoning, text = "after", text[:end], text[end + len(CLOSE) :]
        if self.state == "after":  # blank lines before the answer are dropped
            text = text.lstrip()
            self.state = "text" if text else "after"
        return text, reasoning

    def flush(self) -> tuple[str, str]:
        """What is still held when the stream ends."""
        held, self.held = self.held, ""
        return ("", held) if self.state == "think" else (held, "")


@dataclass
class _Display:
    """Shows text and reasoning as they arrive; each ends with a newline."""

    on_text: Callable[[str], None] | None
    on_reasoning: Callable[[str], None] | None
    thinking: bool = False  # reasoning shown, its newline not yet
    texted: bool = False

    def text(self, piece: str) -> None:
        if piece:
            self.end_reasoning()
            self.texted = True
            if self.on_text:
                self.on_text(piece)

    def reasoning(self, piece: str) -> None:
        if piece and self.on_reasoning:
            self.thinking = True
            self.on_reasoning(piece)

    def end_reasoning(self) -> None:
        if self.thinking and self.on_reasoning:
            self.on_reasoning("\n")
        self.thinking = False

    def end(self) -> None:
        self.end_reasoning()
        if self.texted and self.on_text:
            self.on_text("\n")


def _usage_in(choice: Any) -> CompletionUsage | None:
    """Moonshot (Kimi) puts a stream's usage inside the finishing choice."""
    found = (getattr(choice, "model_extra", None) or {}).get("usage")
    if not isinstance(found, dict):
        return None
    counts = {key: found.get(key) for key in ("prompt_tokens", "completion_tokens", "total_tokens")}
    return CompletionUsage.model_construct(**counts)


def read_stream(
    chunks: Iterable[Any],
    on_text: Callable[[str], None] | None,
    on_reasoning: Callable[[str], None] | None = None,
) -> ModelTurn | ModelFailure:
    """Read SDK ``ChatCompletionChunk`` objects to the end into a turn; text goes to
    ``on_text`` and reasoning to ``on_reasoning`` as they come."""
    text: list[str] = []
    thinking: list[str] = []
    refusal: list[str] = []
    extra: dict[str, Any] = {}
    notes: list[str] = []
    assembler = ToolCallAssembler()
    think = ThinkTags()
    show = _Display(on_text, on_reasoning)
    usage = finish_reason = None

    def say(answer: str | None, thought: str | None) -> None:
        if thought:
            thinking.append(thought)
            show.reasoning(thought)
        if answer:
            text.append(answer)
            show.text(answer)

    for number, chunk in enumerate(chunks):
        choices = getattr(chunk, "choices", None)
        if getattr(chunk, "usage", None):
            usage = chunk.usage  # the last chunk carries it, when asked for
        elif choices and (inside := _usage_in(choices[0])):
            usage = inside
        if not choices:
            continue
        finish_reason = getattr(choices[0], "finish_reason", None) or finish_reason
        delta = getattr(choices[0], "delta", None)
        if delta is None:
            continue
        if getattr(delta, "model_extra", None):  # a provider's own fields (reasoning, ...)
            fields = quirks.kept_fields(delta)
            quirks.merge_fields(extra, fields)
            say(None, quirks.reasoning_in(fields))
        if isinstance(getattr(delta, "refusal", None), str):  # OpenAI: the model declined
            refusal.append(delta.refusal)
        content = getattr(delta, "content", None)
        if isinstance(content, str):
            say(*think.feed(content))
        elif content:  # typed parts (Magistral: thinking, then text)
            say(*quirks.split_content(content))
        for fragment in delta.tool_calls or []:
            show.end_reasoning()
            assembler.add(fragment, number)
        if getattr(delta, "function_call", None):  # the deprecated functions API:
            # a fragment of one call, with neither index nor id
            assembler.add(SimpleNamespace(function=delta.function_call), number)
            notes.append(tr("provider.legacy_function_call"))
    say(*think.flush())
    show.end()
    reasoning = "".join(thinking)
    reasoning = reasoning.strip() if think.found else reasoning  # blank lines inside the tags
    assembled = assembler.calls()
    finish_reason = finish_reason if isinstance(finish_reason, str) else None
    if not (text or reasoning or assembled or finish_reason):
        # nothing arrived: an empty body, only [DONE], or a page that is not SSE at all
        return ModelFailure("empty_stream", tr("model.empty_stream"))
    if finish_reason is None and not assembled:  # e.g. the connection closed mid-answer
        notes.append(tr("model.no_finish_reason"))
    calls = [CallRequest(c.id, c.name, c.arguments) for c in assembled]
    fragments = tuple(assembler.fragments)
    turn = make_turn("".join(text), calls, usage, finish_reason, fragments, reasoning)
    extra, refused = quirks.sent_back(extra), "".join(refusal) or None
    call_fields = tuple(quirks.sent_back(c.extra) for c in assembled)
    if extra or notes or refused or any(call_fields):
        fields = {"extra": extra, "call_fields": call_fields, "refusal": refused}
        turn = replace(turn, notes=tuple(dict.fromkeys(notes)), **fields)
    return turn


FINISH_GRACE_S = 2.0
"""How long a stream may go on after its ``finish_reason`` without sending usage or
closing. Servers send usage right behind the finishing chunk, so only a proxy's flush
separates them: two seconds cover a slow proxy. Keep-alives, all that a stream that
never closes still sends, come every 10 to 15 s (llmgateway PR 2334: 15 s): the wait
ends at the first of them."""


class ChunkStream(Stream[ChatCompletionChunk]):
    """The SDK's stream of chunks, ending where a complete reply ends.

    - An event without data (a keep-alive after an ``id:`` or ``retry:`` line) is
      skipped: the SDK's decoder would fail to parse it and lose the whole stream
      (openai-python issues 2722 and 3833).
    - A reply is complete once ``finish_reason`` and then usage have arrived,
      ``[DONE]`` or not; after ``finish_reason`` it waits at most
      :data:`FINISH_GRACE_S`, and a connection that breaks by then ends the reply
      instead of failing it (some servers never send ``[DONE]`` nor close: bifrost
      issue 6784).
    """

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.finished_at: float | None = None  # when finish_reason arrived
        self._decoder = _DataEvents(self._decoder, self)

    def __stream__(self) -> Iterator[ChatCompletionChunk]:
        chunks = super().__stream__()
        try:
            for chunk in chunks:
                yield chunk
                choices = getattr(chunk, "choices", None) or []
                if self.finished_at is None and any(c.finish_reason for c in choices):
                    self.finished_at = time.monotonic()
                usage = getattr(chunk, "usage", None) or (choices and _usage_in(choices[0]))
                if self.finished_at is not None and usage:
                    return
        except (openai.APITimeoutError, openai.APIConnectionError):
            if self.finished_at is None:
                raise  # cut off before the reply ended: a failure
        finally:
            chunks.close()  # closes the response, also when we stop early

    def given_up(self) -> bool:
        """Has the grace after ``finish_reason`` run out?"""
        started = self.finished_at
        return started is not None and time.monotonic() - started > FINISH_GRACE_S


@dataclass
class _DataEvents:
    """The SDK's SSE decoder, passing on only events that carry data, and reading
    no more bytes once the stream's grace has run out."""

    decoder: Any
    stream: ChunkStream

    def iter_bytes(self, iterator: Iterator[bytes]) -> Iterator[Any]:
        for event in self.decoder.iter_bytes(self._until_given_up(iterator)):
            if event.data.strip():
                yield event

    def _until_given_up(self, iterator: Iterator[bytes]) -> Iterator[bytes]:
        for piece in iterator:
            yield piece
            if self.stream.given_up():
                return


def print_delta(text: str) -> None:
    """Show a text delta at once (``flush`` matters in a notebook)."""
    print(text, end="", flush=True)

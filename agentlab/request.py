"""The decide phase: one model request, streamed or not, and its retries.

:func:`request_turn` sends the history and reads back text, tool calls and
usage. It relies only on what any OpenAI-compatible chat-completions service
returns, so ``run_agent`` works with any ``openai.OpenAI`` client, scripted
or real. A failing request never raises out of it: SDK errors (HTTP status,
connection, timeout) and replies we cannot use come back as
:class:`ModelFailure`, so the run can end with ``model_error`` and keep its
history.

:func:`decide` is that request as a phase of the loop: it runs within the
time left of the run's one deadline, counts every attempt in
``model_requests``, retries transient failures as ``retry.py`` says, and
writes one trace event per attempt.

Requests go through the SDK's ``client.post("/chat/completions", ...)``
rather than ``client.chat.completions.create``: the same bytes on the wire
(``tests/test_request.py`` checks), without ``create``'s walk over the whole
history on every call, which made a 200-step run ~20x slower (chapter 05 and
``benchmarks/README.md`` tell the story). It does not execute tools or
decide when to stop.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import openai
from openai import Stream
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from .deadline import TimedOut, run_within
from .failures import ModelFailure, failure_from, model_failure_class
from .i18n import tr
from .result import RunState, Stop
from .retry import retry_wait
from .streaming import Fragment, print_delta, read_stream


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

    def as_message(self) -> dict[str, Any]:
        """The assistant message that goes back into the history."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in self.calls
            ]
        return message


def decide(
    client: openai.OpenAI,
    model: str,
    schemas: list[dict[str, Any]],
    run: RunState,
    stream: bool = False,
    on_text: Callable[[str], None] | None = None,
) -> ModelTurn | Stop:
    """Ask the model for its next turn within the time left; retry transient failures."""
    for attempt in itertools.count():
        run.model_requests += 1
        started = time.monotonic()
        reply = _ask_in_time(client, model, schemas, run, stream, on_text)
        if reply is None:
            _trace_attempt(run, started, attempt, "timeout")
            message = tr("deadline.decide", seconds=run.deadline.max_seconds)
            return Stop("deadline", message, phase="decide")
        if isinstance(reply, ModelTurn):
            return _accept(reply, run, started, attempt)
        kind = model_failure_class(reply)
        _trace_attempt(run, started, attempt, "error", error_class=kind, message=reply.message)
        wait = retry_wait(attempt, reply, run.budget, run.deadline)
        if isinstance(wait, Stop):
            return wait
        run.deadline.sleep(wait)
    raise AssertionError("itertools.count() never ends")


def _ask_in_time(
    client: openai.OpenAI,
    model: str,
    schemas: list[dict[str, Any]],
    run: RunState,
    stream: bool,
    on_text: Callable[[str], None] | None,
) -> ModelTurn | ModelFailure | None:
    """One request within the time left of the deadline; ``None`` if time ran out."""
    given_up = threading.Event()  # an abandoned stream must stop printing

    def show(text: str) -> None:
        if on_text is not None and not given_up.is_set():
            on_text(text)

    def ask() -> ModelTurn | ModelFailure:
        timeout = run.deadline.remaining()
        return request_turn(client, model, list(run.messages), schemas, timeout, stream, show)

    try:
        return run_within(ask, run.deadline.remaining(), "decide")
    except TimedOut:
        given_up.set()
        return None


def _accept(turn: ModelTurn, run: RunState, started: float, attempt: int) -> ModelTurn:
    """Count the turn's tokens, warn about what is wrong with it, trace it."""
    run.tokens += turn.tokens
    run.last_turn_tokens = turn.tokens
    if not turn.usage_reported:
        run.warn(tr("model.no_usage"))
    if turn.finish_reason == "length":
        run.warn(tr("model.cut_off"))
    turn = _with_usable_ids(turn, run)
    _trace_attempt(
        run,
        started,
        attempt,
        "ok",
        tokens=turn.tokens,
        content=turn.content,
        calls=[{"id": c.id, "name": c.name, "arguments": c.arguments} for c in turn.calls],
        finish_reason=turn.finish_reason,
    )
    return turn


def _with_usable_ids(turn: ModelTurn, run: RunState) -> ModelTurn:
    """Give every tool call an id no earlier call in this run used.

    Each ``role: tool`` message must point at exactly one call. A service
    that sends no id, or reuses one (some send ``call_0`` every turn), would
    leave the history ambiguous, so such calls are renamed ``call_<step>_<i>``.
    """
    calls = list(turn.calls)
    for position, call in enumerate(calls):
        if not call.id or call.id in run.call_ids:
            fresh = f"call_{run.steps}_{position}"
            while fresh in run.call_ids:
                fresh += "_"
            run.warn(tr("model.call_id_renamed", id=repr(call.id)))
            calls[position] = replace(call, id=fresh)
        run.call_ids.add(calls[position].id)
    return replace(turn, calls=calls)


def _trace_attempt(run: RunState, started: float, attempt: int, status: str, **fields: Any) -> None:
    run.trace.event(
        event="phase",
        phase="decide",
        step=run.steps,
        status=status,
        attempt=attempt + 1,
        elapsed_s=round(time.monotonic() - started, 4),
        **fields,
    )


def request_turn(
    client: openai.OpenAI,
    model: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    timeout: float | None = None,
    stream: bool = False,
    on_text: Callable[[str], None] | None = print_delta,
) -> ModelTurn | ModelFailure:
    """Make one chat-completions request; with ``stream=True`` text goes to
    ``on_text`` as it arrives and the turn keeps the tool-call fragments."""
    try:
        reply = post_chat(client, request_body(model, messages, tools, stream), timeout)
        if not stream:
            return turn_from_completion(reply)
        with reply:
            streamed = read_stream(reply, on_text)
        calls = [CallRequest(*call) for call in streamed.calls]
        return make_turn(
            streamed.content, calls, streamed.usage, streamed.finish_reason, streamed.fragments
        )
    except Exception as exc:  # whatever the service or its reply does, the run survives
        return failure_from(exc, secret=getattr(client, "api_key", None))


def request_body(
    model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], stream: bool = False
) -> dict[str, Any]:
    """The JSON body of a chat-completions request."""
    body: dict[str, Any] = {"model": model, "messages": messages}
    if tools:
        body["tools"] = tools
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    return body


def post_chat(client: openai.OpenAI, body: dict[str, Any], timeout: float | None = None) -> Any:
    """``POST /chat/completions`` through the SDK: a ``ChatCompletion``, or a
    ``Stream[ChatCompletionChunk]`` when ``body["stream"]`` is true."""
    # The SDK's own retries stay off whatever the client says, so that
    # model_requests counts every request; the loop retries (retry.py).
    options: dict[str, Any] = {"max_retries": 0}
    if timeout is not None:  # the HTTP layer gives up too, not only our wait
        options["timeout"] = max(timeout, 0.001)
    return client.post(
        "/chat/completions",
        body=body,
        cast_to=ChatCompletion,
        options=options,
        stream=bool(body.get("stream")),
        stream_cls=Stream[ChatCompletionChunk],
    )


def turn_from_completion(response: Any) -> ModelTurn | ModelFailure:
    """Read text, tool calls and usage out of a parsed ``ChatCompletion``."""
    choices = getattr(response, "choices", None)
    if not choices:
        return ModelFailure("bad_reply", tr("model.no_choices"))
    message = choices[0].message
    calls = []
    for tc in message.tool_calls or []:
        function = getattr(tc, "function", None)
        if function is None:  # e.g. a "custom" tool call: not something we offered
            calls.append(CallRequest(tc.id, f"<{tc.type}>", ""))
        else:
            calls.append(CallRequest(tc.id, function.name, function.arguments or ""))
    usage = getattr(response, "usage", None)
    return make_turn(message.content, calls, usage, getattr(choices[0], "finish_reason", None))


def make_turn(
    content: str | None,
    calls: list[CallRequest],
    usage: Any,
    finish_reason: str | None,
    fragments: tuple[Fragment, ...] = (),
) -> ModelTurn:
    """A turn from a reply's parts, streamed or not; ``usage`` may be missing."""
    return ModelTurn(
        content=content,
        calls=calls,
        tokens=usage.total_tokens if usage else 0,
        usage_reported=usage is not None,
        finish_reason=finish_reason,
        fragments=fragments,
    )

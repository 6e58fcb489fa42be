"""The decide phase: one model request within the time left, retried when it is worth it.

:func:`decide` asks the model for its next turn (``agentlab.model.request``
sends it and reads the reply). It runs within the time left of the run's one
deadline, counts every attempt in ``model_requests``, retries transient
failures (:func:`retry_or_stop`), cleans the reply of the API key as it
enters the run, and writes one trace event per attempt. It does not execute
tools; the only stops it makes are its own phase's: ``deadline`` when the
time runs out during a request, ``model_error`` when the model cannot be used.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import openai

from ..deadline import Deadline, TimedOut, run_within
from ..i18n import described, tr
from ..model.failures import ModelFailure, model_failure_class
from ..model.request import request_turn
from ..model.retry import MAX_RETRY_WAIT_S, given_up, retry_wait
from ..model.turn import ModelTurn
from .budget import Budget
from .result import Stop
from .state import RunState


def decide(
    client: openai.OpenAI,
    model: str,
    schemas: list[dict[str, Any]],
    run: RunState,
    stream: bool = False,
    on_text: Callable[[str], None] | None = None,
    on_reasoning: Callable[[str], None] | None = None,
) -> ModelTurn | Stop:
    """Ask the model for its next turn within the time left; retry transient failures."""
    attempt = 0
    while True:
        run.model_requests += 1
        started = time.monotonic()
        try:
            reply = _ask_in_time(client, model, schemas, run, stream, on_text, on_reasoning)
        except TimedOut:
            _trace_attempt(run, started, attempt, "timeout")
            message = tr("deadline.decide", seconds=run.deadline.max_seconds)
            return Stop("deadline", message, phase="decide")
        reply = run.secret.cleaned(reply)  # a model or a proxy may echo the key
        if isinstance(reply, ModelTurn):
            return _accept(reply, run, started, attempt)
        run.tokens += reply.tokens  # a reply that arrived and failed still cost its tokens
        error_class = model_failure_class(reply)
        _trace_attempt(
            run, started, attempt, "error", error_class=error_class, message=reply.message
        )
        wait = retry_or_stop(attempt, reply, run.budget, run.deadline)
        if isinstance(wait, Stop):
            return wait
        run.deadline.sleep(wait)
        attempt += 1


def retry_or_stop(
    attempt: int, failure: ModelFailure, budget: Budget, deadline: Deadline
) -> float | Stop:
    """Seconds to wait before asking again, or the ``Stop`` that ends the run instead.

    A wait that cannot end before the deadline stops the run at once
    (``deadline``) instead of sleeping until it; a service asking for more
    than a minute is treated as a failed request (``model_error``).
    """
    wait = retry_wait(attempt, failure, budget.max_retries, budget.retry_backoff_s)
    if wait is None:
        return Stop("model_error", given_up(attempt, failure))
    left = deadline.remaining()
    if left is not None and wait >= left:  # no point sleeping until the deadline
        message = tr("deadline.no_time_to_retry", wait=f"{wait:.2f}", seconds=deadline.max_seconds)
        return Stop("deadline", message, phase="decide")
    if wait > MAX_RETRY_WAIT_S:
        message = tr("model.wait_too_long", detail=failure.message, wait=f"{wait:.0f}")
        return Stop("model_error", message)
    return wait


def _ask_in_time(
    client: openai.OpenAI,
    model: str,
    schemas: list[dict[str, Any]],
    run: RunState,
    stream: bool,
    on_text: Callable[[str], None] | None,
    on_reasoning: Callable[[str], None] | None,
) -> ModelTurn | ModelFailure:
    """One request within the time left of the deadline (``TimedOut`` if it runs out)."""
    # Set when the time runs out: an abandoned stream must stop printing. A plain
    # flag is enough (one thread writes it once, the other only reads it).
    given_up_waiting = False
    broken: list[str] = []  # a display callback that raised: the caller's bug, not the model's

    def shown_by(callback: Callable[[str], None] | None) -> Callable[[str], None]:
        def show(text: str) -> None:
            if callback is None or given_up_waiting or broken:
                return
            try:
                callback(text)
            except (Exception, SystemExit, GeneratorExit) as exc:  # stop showing; read on
                broken.append(described(exc))

        return run.secret.shown(show)  # a streamed key may come in pieces

    # Only a streamed reply is shown as it arrives; a plain one is read whole.
    show_text = shown_by(on_text) if stream else None
    show_reasoning = shown_by(on_reasoning) if stream else None

    def ask() -> ModelTurn | ModelFailure:
        return request_turn(
            client,
            model,
            list(run.messages),
            schemas,
            timeout=run.deadline.remaining(),
            stream=stream,
            on_text=show_text,
            on_reasoning=show_reasoning,
        )

    try:
        reply = run_within(ask, run.deadline.remaining(), "decide")
    except TimedOut:
        given_up_waiting = True
        raise
    if stream:
        show_reasoning.flush()
        show_text.flush()
    if broken:
        run.warn(tr("loop.display_failed", error=broken[0]))
    return reply


def _accept(turn: ModelTurn, run: RunState, started: float, attempt: int) -> ModelTurn:
    """Count the turn's tokens, warn about what is wrong with it, trace it."""
    run.tokens += turn.tokens
    run.last_turn_tokens = turn.tokens
    if not turn.usage_reported:
        run.warn(tr("model.no_usage"))
    for note in turn.notes:
        run.warn(note)
    if turn.finish_reason == "length" and not turn.calls:  # cut-off calls stop the run
        run.warn(tr("model.cut_off"))
    turn = _with_usable_ids(turn, run)
    _trace_attempt(
        run,
        started,
        attempt,
        "ok",
        tokens=turn.tokens,
        content=turn.content,
        reasoning=turn.reasoning,
        calls=[{"id": c.id, "name": c.name, "arguments": c.arguments} for c in turn.calls],
        finish_reason=turn.finish_reason,
    )
    return turn


def _with_usable_ids(turn: ModelTurn, run: RunState) -> ModelTurn:
    """Give every tool call an id no earlier call in this run used.

    Each ``role: tool`` message must point at exactly one call. A service
    that sends no id, or reuses one (some send ``call_0`` every turn, or one
    id for two calls of a turn), would leave the history ambiguous, so such
    calls are renamed ``call_<step>_<i>``.
    """
    ids = [call.id for call in turn.calls]
    if all(ids) and len(set(ids)) == len(ids) and run.call_ids.isdisjoint(ids):
        run.call_ids.update(ids)
        return turn  # the usual case: every id is new
    calls = list(turn.calls)
    for position, call in enumerate(calls):
        if not call.id or call.id in run.call_ids:
            fresh = f"call_{run.steps}_{position}"
            while fresh in run.call_ids:
                fresh += "_"
            run.warn(tr("model.call_id_renamed", id=repr(call.id or None)))
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

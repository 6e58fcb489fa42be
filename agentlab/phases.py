"""The three phases of a step, each bounded by the run's single deadline.

- :func:`decide`: one model request (streamed or not). Transient failures
  (timeouts, 429, 5xx, connection errors) are retried with backoff up to
  ``budget.max_retries``; every attempt counts in ``model_requests`` and the
  waits come out of the same deadline.
- :func:`run_calls`: the tool calls of one reply, each checked by the guards,
  executed within the time left (in a killable child process for isolated
  tools), truncated to ``max_tool_output_chars`` before the model sees them,
  fingerprinted for the no-progress guard and written to the trace.
- :func:`check_done`: the independent completion check, if the run has one.

Each returns what happened, or a :class:`~agentlab.budget.Stop` when the run
must end. The loop in ``loop.py`` strings them together.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import openai

from .budget import Budget, Guard, Refuse, Stop, canonical_arguments, normalized_arguments
from .context import fit_result, serialised
from .deadline import Deadline, TimedOut, run_in_child, run_within
from .errors import model_failure_class, tool_error_class
from .request import CallRequest, ModelFailure, ModelTurn, request_turn
from .result import RunState
from .streaming import stream_turn
from .tools.registry import Tool, ToolRegistry, ToolResult, checked_result, error, execute

CHECK_THE_KEY = " (the service refused the credentials: check the API key in .env)"
MAX_RETRY_WAIT_S = 60.0  # a Retry-After longer than this is not worth waiting for


def first_stop(verdicts: Iterable[Any]) -> Any:
    """The first verdict that is not ``None`` (guards are asked in order)."""
    return next((v for v in verdicts if v is not None), None)


def decide(
    client: openai.OpenAI,
    model: str,
    schemas: list[dict[str, Any]],
    run: RunState,
    budget: Budget,
    stream: bool,
    on_text: Callable[[str], None] | None,
) -> ModelTurn | Stop:
    """Ask the model for its next turn, retrying transient failures."""
    for attempt in range(budget.max_retries + 1):
        run.model_requests += 1
        started = time.monotonic()
        # silences streamed text from a request we may give up on (only a
        # request with a deadline can be given up on)
        quiet = threading.Event() if stream and run.deadline.at is not None else None
        request = partial(
            _request,
            client,
            model,
            list(run.messages),
            schemas,
            run.deadline,
            stream,
            on_text,
            quiet,
        )
        try:
            turn = run_within(request, run.deadline.remaining(), "decide")
        except TimedOut:
            if quiet is not None:
                quiet.set()
            _trace_phase(run, "decide", started, "timeout", attempt=attempt + 1)
            return Stop("deadline", _late("the model did not answer", run), phase="decide")

        if isinstance(turn, ModelTurn):
            run.tokens += turn.tokens
            if not turn.usage_reported:
                run.warn("the model service reported no usage; token counts are too low")
            if turn.finish_reason == "length":
                run.warn(
                    "a reply was cut off (finish_reason=length): its text or tool "
                    "arguments may be incomplete"
                )
            turn = _with_usable_ids(turn, run)
            calls = [c.name for c in turn.calls]
            _trace_phase(
                run, "decide", started, "ok", attempt=attempt + 1, tokens=turn.tokens, calls=calls
            )
            return turn

        kind = model_failure_class(turn)
        _trace_phase(
            run,
            "decide",
            started,
            "error",
            attempt=attempt + 1,
            error_class=kind,
            message=turn.message,
        )
        if kind != "transient" or attempt == budget.max_retries:
            tries = f" after {attempt + 1} attempts" if attempt else ""
            hint = CHECK_THE_KEY if kind == "permission" else ""
            message = f"model request failed ({kind}){tries}: {turn.message}{hint}"
            return Stop("model_error", message)
        # Wait as the backoff says, or longer if the service asked (Retry-After),
        # but never past the deadline: a wait that cannot end in time ends the run.
        wait = max(budget.retry_backoff_s * 2**attempt, turn.retry_after or 0.0)
        left = run.deadline.remaining()
        if left is not None and wait >= left:  # no point sleeping until the deadline
            return Stop(
                "deadline",
                _late(f"cannot retry: the next attempt is {wait:.2f} s away, not", run),
                "decide",
            )
        if wait > MAX_RETRY_WAIT_S:
            return Stop(
                "model_error",
                f"model request failed ({kind}): {turn.message}; the service asked to wait "
                f"{wait:.0f} s before retrying",
            )
        run.deadline.sleep(wait)
    raise AssertionError("unreachable: the last attempt returns")


def _with_usable_ids(turn: ModelTurn, run: RunState) -> ModelTurn:
    """Give every tool call an id no earlier call in this run used.

    Each ``role: tool`` message must point at exactly one call. A service
    that sends no id, or reuses one (some send ``call_0`` every turn), would
    leave the history ambiguous, so such calls are renamed, both in the
    assistant message and in the tool messages that answer them.
    """
    calls, renamed = list(turn.calls), False
    for position, call in enumerate(calls):
        if not call.id or call.id in run.call_ids:
            fresh = f"call_{run.steps}_{position}"
            while fresh in run.call_ids:
                fresh += "_"
            run.warn(f"a tool call came with a missing or repeated id ({call.id!r}); renamed")
            calls[position], renamed = replace(call, id=fresh), True
        run.call_ids.add(calls[position].id)
    return replace(turn, calls=calls) if renamed else turn


def _request(
    client: openai.OpenAI,
    model: str,
    messages: list[dict[str, Any]],
    schemas: list[dict[str, Any]],
    deadline: Deadline,
    stream: bool,
    on_text: Callable[[str], None] | None,
    quiet: threading.Event | None,
) -> ModelTurn | ModelFailure:
    if not stream:
        return request_turn(client, model, messages, schemas, deadline.remaining())

    def show(text: str) -> None:
        if on_text is not None and (quiet is None or not quiet.is_set()):
            on_text(text)

    return stream_turn(client, model, messages, schemas, show, deadline.remaining())


def run_calls(
    calls: list[CallRequest],
    tools: ToolRegistry,
    guards: list[Guard],
    run: RunState,
    budget: Budget,
    permission_errors: str,
) -> tuple[int, Stop | None]:
    """Handle one reply's tool calls; return (new fingerprints, stop or None)."""
    new = 0
    for position, call in enumerate(calls):
        verdict = first_stop(g.check_call(run, call, position) for g in guards)
        if isinstance(verdict, Stop):
            _record(run, call, error("NOT_RUN", f"the run stopped: {verdict.message}"), budget)
            _close_pending(run, calls[position + 1 :], budget, verdict)
            return new, verdict
        if isinstance(verdict, Refuse):
            _record(run, call, verdict.result, budget, fingerprint=None)
            continue

        started = time.monotonic()
        prepared = tools.prepare(call.name, call.arguments)
        result, stop, process = _execute(prepared, call, run)
        parsed = prepared[1] if isinstance(prepared, tuple) else None
        record, is_new = _record(
            run,
            call,
            result,
            budget,
            elapsed=time.monotonic() - started,
            process=process,
            parsed_arguments=parsed,
        )
        new += is_new
        if stop is None and record["error_class"] == "permission" and permission_errors == "stop":
            stop = Stop("policy_denied", f"{call.name} was refused: {result['error']['message']}")
        if stop is not None:
            _close_pending(run, calls[position + 1 :], budget, stop)
            return new, stop
    return new, None


def check_done(done_when: Callable[[str], Any], answer: str, run: RunState) -> bool | str | Stop:
    """``True`` when the independent check passes, else why not (or a deadline stop)."""
    started = time.monotonic()
    try:
        verdict = run_within(lambda: done_when(answer), run.deadline.remaining(), "complete")
    except TimedOut:
        _trace_phase(run, "complete", started, "timeout")
        return Stop("deadline", _late("the completion check did not finish", run), "complete")
    except Exception as exc:  # a broken check is a failed check, not a crash
        verdict = f"the completion check raised {type(exc).__name__}: {exc}"
    done = verdict is True or (bool(verdict) and not isinstance(verdict, str))
    reason = verdict if isinstance(verdict, str) and verdict else "the completion check failed"
    _trace_phase(
        run, "complete", started, "done" if done else "not_done", reason=None if done else reason
    )
    return True if done else reason


def fingerprint_of(result: ToolResult, as_json: str | None = None) -> str:
    """The tool's own fingerprint, or a hash of the whole result as JSON
    (``as_json``: that JSON if the caller already has it, untruncated)."""
    if result.get("fingerprint"):
        return str(result["fingerprint"])
    text = serialised(result) if as_json is None else as_json
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _execute(
    prepared: tuple[Tool, dict[str, Any]] | ToolResult, call: CallRequest, run: RunState
) -> tuple[ToolResult, Stop | None, dict[str, Any] | None]:
    """Run a prepared call (or pass on the registry's refusal) within the time left."""
    if isinstance(prepared, dict):
        return prepared, None, None
    tool, arguments = prepared

    def late() -> Stop:
        return Stop("deadline", _late(f"{call.name} did not return", run), phase="tool")

    if tool.isolated:
        outcome = run_in_child(tool.function, arguments, run.deadline.remaining())
        process = {"pid": outcome.pid, "exitcode": outcome.exitcode, "killed": outcome.killed}
        if outcome.killed:
            message = f"{call.name} was killed (SIGKILL) when the run's time ran out"
            return error("TOOL_KILLED", message), late(), process
        if outcome.error:
            return error("TOOL_EXCEPTION", f"{call.name} raised {outcome.error}"), None, process
        return checked_result(call.name, outcome.value), None, process
    try:
        return (
            run_within(lambda: execute(tool, arguments), run.deadline.remaining(), "tool"),
            None,
            None,
        )
    except TimedOut:
        message = (
            f"{call.name} did not return before the run's deadline; it was abandoned but is "
            "still running in the background (a thread cannot be killed)"
        )
        return error("TOOL_ABANDONED", message), late(), None


def _record(
    run: RunState,
    call: CallRequest,
    result: ToolResult,
    budget: Budget,
    *,
    fingerprint: str | None | bool = True,
    elapsed: float = 0.0,
    process: dict[str, Any] | None = None,
    parsed_arguments: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], bool]:
    """Record a call's result (as sent to the model) and trace it; is it new?"""
    code = (result.get("error") or {}).get("code")
    content, removed, saved = serialised(result), 0, None
    fp = fingerprint_of(result, content) if fingerprint is True else fingerprint
    limit = budget.max_tool_output_chars
    if limit and len(content) > limit:
        saved = run.trace.save_output(f"step{run.steps}-{call.id}", result)
        # The model is told where the full output is relative to the trace
        # folder, so what it reads does not depend on where runs are kept.
        shown_as = f"outputs/{Path(saved).name} beside the run trace" if saved else None
        sent, removed = fit_result(result, limit, shown_as)
        content = serialised(sent)
    record = {
        "call_id": call.id,
        "tool": call.name,
        "arguments": call.arguments,
        "normalized_args": (
            normalized_arguments(call.arguments)
            if parsed_arguments is None
            else canonical_arguments(parsed_arguments)  # already parsed by the registry
        ),
        "status": result["status"],
        "error_class": tool_error_class(code) if result["status"] == "error" else None,
        "fingerprint": fp,
        "truncated_chars": removed,
        "saved_to": saved,
        "process": process,
        "result": result,
    }
    is_new = run.record_tool(record, content)
    run.trace.event(
        event="phase",
        phase="tool",
        step=run.steps,
        tool=call.name,
        args=record["normalized_args"],
        status=result["status"],
        error_code=code,
        error_class=record["error_class"],
        fingerprint=fp,
        truncated_chars=removed,
        elapsed_s=round(elapsed, 4),
    )
    return record, is_new


def _close_pending(run: RunState, calls: list[CallRequest], budget: Budget, stop: Stop) -> None:
    """Answer calls that will never run, so the history stays well-formed."""
    for call in calls:
        _record(
            run,
            call,
            error("NOT_RUN", f"the run stopped ({stop.reason}) first"),
            budget,
            fingerprint=None,
        )


def _trace_phase(run: RunState, phase: str, started: float, status: str, **fields: Any) -> None:
    """One trace event for a phase that began at ``started`` (monotonic seconds)."""
    elapsed = round(time.monotonic() - started, 4)
    run.trace.event(
        event="phase", phase=phase, step=run.steps, status=status, **fields, elapsed_s=elapsed
    )


def _late(what: str, run: RunState) -> str:
    return f"{what} within the run's {run.deadline.max_seconds} s deadline"

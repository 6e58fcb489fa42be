"""How a run ends well: the independent completion check and the last word.

- :func:`check_done` is the *complete* phase: after the model answers, a
  check that does not trust the model (``done_when``) says whether the task
  is really done, within the time left of the run's one deadline. If it is
  not, the loop hands the model what is missing and goes on within budget.
- :func:`wrap_up` is the reserved last step of ``Budget(wrap_up=True)``: when
  a budget is about to run out, one tool-less request asks the model to sum
  up what it has. The run still ends out of budget; what the model says is
  its ``partial_answer``, not an answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import openai

from ..deadline import TimedOut, run_within
from ..i18n import described, tr
from ..tools.registry import error
from .decide import decide
from .result import RunResult, Stop
from .state import RunState


def wrap_up(
    client: openai.OpenAI,
    model: str,
    run: RunState,
    ending: Stop,
    stream: bool,
    on_text: Callable[[str], None] | None,
    on_reasoning: Callable[[str], None] | None,
) -> RunResult:
    """The reserved last step: no tools, just "sum up what you have".

    The run still ends with ``ending`` (a budget ran out) and outcome
    ``budget_exhausted``; what the model says is its ``partial_answer``.
    """
    run.steps += 1
    run.trace.event(event="wrap_up", step=run.steps, reason=ending.reason)
    run.messages.append({"role": "user", "content": tr("loop.wrap_up", reason=ending.message)})
    turn = decide(client, model, [], run, stream, on_text, on_reasoning)  # no tools on offer
    if isinstance(turn, Stop):  # e.g. the deadline came during the request
        return run.finish(turn)
    run.messages.append(turn.as_message())
    for call in turn.calls:  # a model may ask anyway: answer, so the history stays paired
        run.record_tool(call, error("NOT_RUN", tr("loop.no_tools_now")), ran=False)
    return run.finish(ending, partial_answer=turn.content or "")


def check_done(done_when: Callable[[str], Any], answer: str, run: RunState) -> Stop | str:
    """The complete phase: run the independent check within the time left.

    Returns ``Stop("answered")`` when the check says done, a deadline
    ``Stop`` when the time ran out, else a sentence saying what is missing
    (the loop hands it to the model and goes on). The check returns ``True``,
    ``False`` or such a sentence; anything else (``None`` from a forgotten
    ``return``, a list of problems) is not a yes, and a check that raises
    has failed.
    """
    started = time.monotonic()
    try:
        verdict = run_within(lambda: done_when(answer), run.deadline.remaining(), "complete")
    except TimedOut:
        _trace_complete(run, started, "timeout")
        message = tr("deadline.complete", seconds=run.deadline.max_seconds)
        return Stop("deadline", message, phase="complete")
    except (Exception, SystemExit, GeneratorExit) as exc:  # a broken check is a failed check
        verdict = tr("loop.check_raised", error=described(exc))
    # numpy's True counts too: a check written with pandas often returns one
    dtype_kind = getattr(getattr(verdict, "dtype", None), "kind", None)  # "b": boolean
    numpy_bool = dtype_kind == "b" and getattr(verdict, "shape", None) == ()
    is_bool = isinstance(verdict, bool) or numpy_bool
    if is_bool and verdict:
        _trace_complete(run, started, "done")
        return Stop("answered")
    if isinstance(verdict, str) and verdict.strip():  # a blank sentence says nothing
        missing = verdict
    elif is_bool:
        missing = tr("loop.check_failed")
    else:
        missing = tr("loop.check_not_a_verdict", shown=repr(verdict)[:80])
    _trace_complete(run, started, "not_done", reason=missing)
    return missing


def _trace_complete(run: RunState, started: float, status: str, reason: str | None = None) -> None:
    elapsed = round(time.monotonic() - started, 4)
    run.trace.event(
        event="phase",
        phase="complete",
        step=run.steps,
        status=status,
        reason=reason,
        elapsed_s=elapsed,
    )

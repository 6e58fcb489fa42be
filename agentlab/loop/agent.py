"""The agent loop: ask the model, run the tools it asks for, repeat — within budget.

One rule drives it: while the model's reply carries ``tool_calls``, execute
them, put the assistant message and one ``role: tool`` message per call
(with its ``tool_call_id``) back into the history, and ask again. A reply
without tool calls is the answer — unless an independent completion check
(``done_when``) says the task is not done, in which case that is fed back
and the loop goes on within budget.

``minimal.py`` is the same loop with nothing but a step cap; this one adds
what a run needs to always stop and always explain itself:

- before every step and around every tool call the budget's guards
  (``guards.py``) are consulted; the first that says stop ends the run;
- the three phases of a step — *decide* (the model request, ``decide.py``),
  *tool* (each call, :func:`run_tool_calls`) and *complete* (the check,
  :func:`check_done`) — each get only the time left of one deadline;
- every ending is a :class:`~agentlab.loop.result.RunResult` that keeps the full
  history and its trace. ``run_agent`` never raises for anything a model, a
  tool or a budget can do;
- when the client carries a real API key, the run keeps no copy of it: the
  model's replies and the tools' results are cleaned of it as they enter
  (``agentlab/model/secrets.py``).
"""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import openai

from ..deadline import Deadline, threads_available
from ..i18n import tr
from ..model.secrets import Secret
from ..model.streaming import print_delta
from ..model.turn import CallRequest
from ..tools.registry import ToolRegistry, error
from .budget import Budget
from .circles import NoProgressGuard, RepeatGuard
from .context import fold_history
from .decide import decide
from .ending import check_done, wrap_up
from .guards import CallsPerTurnGuard, DeadlineGuard, Guard, StepGuard, TokenGuard
from .result import RunResult, Stop
from .state import RunState
from .trace import Trace

DEFAULT_MODEL = "agentlab-scripted"


def default_system_prompt() -> str:
    """The system prompt a run starts with unless told otherwise: what the model
    reads follows the language switch with everything else it reads."""
    return tr("loop.system_prompt")


# task_id names the run's trace folder: word characters (Chinese too), "." "_" "-".
TASK_ID = re.compile(r"[\w.-]{1,64}")


def run_agent(
    task: str,
    *,
    client: openai.OpenAI,
    tools: ToolRegistry,
    budget: Budget | None = None,
    model: str = DEFAULT_MODEL,
    system_prompt: str | None = None,
    task_id: str | None = None,
    stream: bool = False,
    on_text: Callable[[str], None] | None = print_delta,
    on_reasoning: Callable[[str], None] | None = None,
    done_when: Callable[[str], Any] | None = None,
    permission_errors: str = "stop",
    fold_after_steps: int | None = None,
    trace_dir: str | Path | bool | None = None,
    on_event: Callable[[dict[str, Any]], None] | None = None,
) -> RunResult:
    """Run ``task`` to an ending: answered, out of budget, or failed.

    - ``budget``: every limit of the run (default ``Budget()``: only the step
      cap and output truncation); ``model`` and ``system_prompt`` go into
      every request as they are.
    - ``task_id`` names the run and its trace folder: 1 to 64 word characters,
      ``.``, ``_`` or ``-`` (default: 12 random hex digits). Any argument of
      the wrong kind (a bad ``task_id``, a ``tools`` that is not a
      ``ToolRegistry``, a ``budget`` that is not a ``Budget`` ...) raises at
      once, naming it: a caller's mistake, not the run's.
    - ``stream=True`` streams each request; text deltas go to ``on_text`` as
      they arrive (printed by default, ``None`` keeps quiet; with a real API
      key, cleaned of it, a few characters behind); a thinking
      model's reasoning goes to ``on_reasoning`` (not shown by default; every
      reply's reasoning is kept in ``RunResult.reasoning``).
    - ``done_when(answer)`` returns ``True`` when the task is really done, or
      ``False`` / a sentence saying what is missing.
    - ``permission_errors``: ``"stop"`` ends the run with ``policy_denied``
      on a refusal; ``"feed_back"`` hands it to the model like other errors.
    - ``fold_after_steps=k`` folds tool messages older than ``k`` steps.
    - ``trace_dir``: where the JSONL trace goes (``False``: no file), in a
      folder named ``task_id``; ``on_event`` also receives every trace
      event as it happens (one that raises is dropped, with a warning).
    """
    budget = Budget() if budget is None else budget
    system_prompt = default_system_prompt() if system_prompt is None else system_prompt
    _check_arguments(
        budget=budget, client=client, tools=tools, model=model, system_prompt=system_prompt,
        done_when=done_when, permission_errors=permission_errors,
        fold_after_steps=fold_after_steps, trace_dir=trace_dir,
    )  # fmt: skip
    if task_id is None:
        task_id = uuid.uuid4().hex[:12]
    elif not isinstance(task_id, str) or not TASK_ID.fullmatch(task_id) or task_id in (".", ".."):
        raise ValueError(tr("loop.bad_task_id", task_id=task_id))  # it names a folder
    deadline = Deadline(budget.max_seconds)
    trace = Trace.open(trace_dir, task_id, deadline.started, on_event)
    run = RunState(task_id, budget, deadline, trace, secret=Secret(client))
    guards = guards_for(budget)
    trace.event(
        event="start",
        task_id=task_id,
        task=task,
        model=model,
        stream=stream,
        budget=asdict(budget),
        started_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    )
    if deadline.at is not None and not threads_available():  # e.g. Pyodide
        run.warn(tr("isolation.no_threads", seconds=deadline.max_seconds))
    if not isinstance(task, str) and task is not None:
        return run.finish(Stop("invalid_task", tr("loop.task_not_text", type=type(task).__name__)))
    if not task or not task.strip():
        return run.finish(Stop("invalid_task", tr("loop.empty_task")))

    run.messages = [{"role": "system", "content": system_prompt}, {"role": "user", "content": task}]
    schemas = tools.schemas()
    while True:
        stop = first_stop(guard.before_step(run) for guard in guards)
        if stop:
            return run.finish(stop)
        if budget.wrap_up:
            ending = first_stop(guard.last_step(run) for guard in guards)
            if ending:
                return wrap_up(client, model, run, ending, stream, on_text, on_reasoning)
        run.steps += 1
        turn = decide(client, model, schemas, run, stream, on_text, on_reasoning)
        if isinstance(turn, Stop):
            return run.finish(turn)
        run.messages.append(turn.as_message())
        if turn.calls and turn.finish_reason == "length":  # cut off mid-call: run none of them
            stop = Stop("max_tokens", tr("provider.cut_off_calls", n=len(turn.calls)))
            _answer_unrun(turn.calls, run, stop)
            return run.finish(stop)

        if turn.calls:
            stop = run_tool_calls(turn.calls, tools, run, guards, permission_errors)
            if stop:
                return run.finish(stop)
        else:
            answer = turn.content or ""
            if not answer:  # say so: an empty reply is easy to mistake for a real answer
                run.warn(tr("loop.empty_answer"))
            if done_when is None:
                return run.finish(Stop("answered"), answer)
            verdict = check_done(done_when, answer, run)
            if isinstance(verdict, Stop):  # checked and done, or out of time
                run.verified = verdict.reason == "answered"
                return run.finish(verdict, answer)
            run.messages.append({"role": "user", "content": tr("loop.not_done", reason=verdict)})

        stop = first_stop(guard.after_step(run) for guard in guards)
        if stop:
            return run.finish(stop)
        if fold_after_steps:
            fold_history(run.messages, run.tool_results, run.steps, fold_after_steps)


def _check_arguments(
    *,
    budget: Any,
    client: Any,
    tools: Any,
    model: Any,
    system_prompt: Any,
    done_when: Any,
    permission_errors: Any,
    fold_after_steps: Any,
    trace_dir: Any,
) -> None:
    """Raise for an argument of the wrong kind, naming it.

    These are the caller's slips, not the model's: said at once, rather than
    as a confusing error (or a wasted budget, or HTTP 400) later in the run.
    """
    if not isinstance(budget, Budget):
        raise TypeError(tr("loop.bad_budget", type=type(budget).__name__))
    if not callable(getattr(client, "post", None)):  # what request.py sends requests with
        raise TypeError(tr("loop.bad_client", type=type(client).__name__))
    if not isinstance(tools, ToolRegistry):
        raise TypeError(tr("loop.bad_tools", type=type(tools).__name__))
    if trace_dir is not None and not isinstance(trace_dir, bool | str | os.PathLike):
        raise TypeError(tr("loop.bad_trace_dir", value=trace_dir))  # 0 is not False
    if isinstance(trace_dir, str) and not trace_dir.strip():  # not the working folder
        raise ValueError(tr("loop.bad_trace_dir", value=trace_dir))
    if not isinstance(model, str):
        raise TypeError(tr("loop.bad_model", value=model))
    if not model.strip():  # a real service answers HTTP 400 or 404
        raise ValueError(tr("loop.bad_model", value=model))
    if not isinstance(system_prompt, str):
        raise TypeError(tr("loop.bad_system_prompt", type=type(system_prompt).__name__))
    if done_when is not None and not callable(done_when):
        raise TypeError(tr("loop.bad_done_when", type=type(done_when).__name__))
    if permission_errors not in ("stop", "feed_back"):
        raise ValueError(tr("loop.bad_permission_errors", value=permission_errors))
    if fold_after_steps is not None and (
        not isinstance(fold_after_steps, int)
        or isinstance(fold_after_steps, bool)
        or fold_after_steps < 1
    ):
        raise ValueError(tr("loop.bad_fold", value=fold_after_steps))


def guards_for(budget: Budget) -> list[Guard]:
    """Fresh guards for one run, for the limits that are switched on."""
    guards: list[Guard] = [StepGuard(budget.max_steps)]
    if budget.max_seconds is not None:
        guards.append(DeadlineGuard())
    if budget.max_tokens is not None:
        guards.append(TokenGuard(budget.max_tokens))
    if budget.max_tool_calls_per_turn is not None:
        guards.append(CallsPerTurnGuard(budget.max_tool_calls_per_turn))
    if budget.max_repeats is not None or budget.repeat_hint_at is not None:
        guards.append(RepeatGuard(budget.repeat_hint_at, budget.max_repeats))
    if budget.max_no_progress is not None:
        guards.append(NoProgressGuard(budget.max_no_progress))
    return guards


def first_stop(verdicts: Iterable[Stop | None]) -> Stop | None:
    """The first guard's ``Stop``, if any (guards are asked in order)."""
    return next((v for v in verdicts if v is not None), None)


def run_tool_calls(
    calls: list[CallRequest],
    tools: ToolRegistry,
    run: RunState,
    guards: list[Guard],
    permission_errors: str,
) -> Stop | None:
    """The tool phase: each call checked by the guards, run within the time
    left, recorded in the history. Returns the ``Stop`` that ends the run, if any."""
    for position, call in enumerate(calls):
        objection, guard_name = None, None
        for guard in guards:
            objection = guard.check_call(run, call, position)
            if objection is not None:
                guard_name = type(guard).__name__
                break
        if isinstance(objection, Stop):
            not_run = error("NOT_RUN", tr("loop.not_run", message=objection.message))
            run.record_tool(call, not_run, ran=False, refused_by=guard_name)
            _answer_unrun(calls[position + 1 :], run, objection)
            return objection
        if objection is not None:  # a Refuse: the model gets the guard's explanation
            run.record_tool(call, objection.result, ran=False, refused_by=guard_name)
            continue

        started = time.monotonic()
        ran = tools.run(call.name, call.arguments, run.deadline.remaining())
        elapsed = time.monotonic() - started
        record = run.record_tool(
            call, ran.result, elapsed=elapsed, process=ran.process, as_json=ran.as_json
        )
        stop = None
        if ran.late:
            message = tr("deadline.tool", name=call.name, seconds=run.deadline.max_seconds)
            stop = Stop("deadline", message, phase="tool")
        elif record["error_class"] == "permission" and permission_errors == "stop":
            reason = record["result"]["error"]["message"]  # the result as kept (no key)
            stop = Stop("policy_denied", tr("loop.refused", name=call.name, reason=reason))
        if stop is not None:
            _answer_unrun(calls[position + 1 :], run, stop)
            return stop
    return None


def _answer_unrun(calls: list[CallRequest], run: RunState, stop: Stop) -> None:
    """Answer calls that will never run, so the history stays well-formed."""
    for call in calls:
        run.record_tool(
            call, error("NOT_RUN", tr("loop.stopped_first", reason=stop.reason)), ran=False
        )

"""The agent loop: ask the model, run the tools it asks for, repeat — within budget.

One rule drives it: while the model's reply carries ``tool_calls``, execute
them, put the assistant message and one ``role: tool`` message per call
(with its ``tool_call_id``) back into the history, and ask again. A reply
without tool calls is the answer — unless an independent completion check
(``done_when``) says the task is not done, in which case that is fed back
and the loop goes on within budget.

Before every step, and around every tool call, the budget's guards are
consulted; the first that says stop ends the run. ``run_agent`` never raises
for anything a model, a tool or a budget can do: every ending is a
:class:`~agentlab.result.RunResult` that keeps the full history and points
to its trace. The phases themselves live in ``phases.py``; the limits in
``budget.py``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import openai

from .budget import Budget, Stop
from .context import fold_history
from .deadline import Deadline
from .phases import check_done, decide, first_stop, run_calls
from .result import RunResult, RunState
from .streaming import print_delta
from .tools import ToolRegistry
from .trace import Trace

DEFAULT_MODEL = "agentlab-scripted"
DEFAULT_SYSTEM_PROMPT = (
    "You are a careful assistant. Use the tools to get facts; answer only from "
    "what the tools returned. If a tool fails, say so and do not guess. "
    "When you have enough, reply with the final answer in plain text."
)


def run_agent(
    task: str,
    *,
    client: openai.OpenAI,
    tools: ToolRegistry,
    budget: Budget | None = None,
    model: str = DEFAULT_MODEL,
    system_prompt: str = DEFAULT_SYSTEM_PROMPT,
    task_id: str | None = None,
    stream: bool = False,
    on_text: Callable[[str], None] | None = print_delta,
    done_when: Callable[[str], Any] | None = None,
    permission_errors: str = "stop",
    fold_after_steps: int | None = None,
    trace_dir: str | Path | bool | None = None,
    on_event: Callable[[dict[str, Any]], None] | None = None,
) -> RunResult:
    """Run ``task`` to an ending: answered, out of budget, or failed.

    - ``stream=True`` streams each request; text deltas go to ``on_text`` as
      they arrive (printed by default, ``None`` keeps quiet).
    - ``done_when(answer)`` returns ``True`` when the task is really done, or
      ``False`` / a sentence saying what is missing.
    - ``permission_errors``: ``"stop"`` ends the run with ``policy_denied``
      on a refusal; ``"feed_back"`` hands it to the model like other errors.
    - ``fold_after_steps=k`` folds tool messages older than ``k`` steps.
    - ``trace_dir``: where the JSONL trace goes (``False``: no trace);
      ``on_event`` also receives every trace event as it happens.
    """
    budget = budget or Budget()
    if permission_errors not in ("stop", "feed_back"):
        raise ValueError("permission_errors must be 'stop' or 'feed_back'")
    run = RunState(task_id=task_id or uuid.uuid4().hex[:12], deadline=Deadline(budget.max_seconds))
    run.trace = Trace.open(trace_dir, run.task_id, on_event)
    run.trace.event(event="start", task=task, model=model, stream=stream, budget=dict(vars(budget)))
    if not isinstance(task, str) or not task.strip():
        return run.finish("invalid_task", warning="the task is empty: no request was made")

    run.messages = [{"role": "system", "content": system_prompt}, {"role": "user", "content": task}]
    guards = budget.guards()
    schemas = tools.schemas()

    def end(stop: Stop, answer: str | None = None) -> RunResult:
        return run.finish(stop.reason, warning=stop.message, phase=stop.phase, answer=answer)

    while True:
        stop = first_stop(guard.before_step(run) for guard in guards)
        if stop:
            return end(stop)
        run.steps += 1
        turn = decide(client, model, schemas, run, budget, stream, on_text)
        if isinstance(turn, Stop):
            return end(turn)
        run.messages.append(turn.as_message())

        if turn.calls:
            new, stop = run_calls(turn.calls, tools, guards, run, budget, permission_errors)
            if stop:
                return end(stop)
        else:
            answer = turn.content or ""
            if done_when is None:
                return run.finish("answered", answer=answer)
            verdict = check_done(done_when, answer, run)
            if isinstance(verdict, Stop):
                return end(verdict, answer)
            if verdict is True:
                run.verified = True
                return run.finish("answered", answer=answer)
            run.messages.append({"role": "user", "content": f"Not done yet: {verdict}"})
            new = 0

        stop = first_stop(guard.after_step(run, new) for guard in guards)
        if stop:
            return end(stop)
        if fold_after_steps:
            fold_history(run.messages, run.tool_results, run.steps, fold_after_steps)

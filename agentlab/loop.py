"""The agent loop: ask the model, run the tools it asks for, repeat — within budget.

One rule drives it: while the model's reply carries ``tool_calls``, execute
them, put the assistant message and one ``role: tool`` message per call
(with its ``tool_call_id``) back into the history, and ask again. A reply
without tool calls is the answer. Before every step the budget's guards are
consulted; the first that says stop ends the run.

``run_agent`` never raises for anything a model, a tool or a budget can do:
every ending is a :class:`~agentlab.result.RunResult` that keeps the full
history. The loop itself holds no policy; guards (``budget.py``), tools
(``tools/``) and the model request (``request.py``) are named pieces it
consults.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

import openai

from .budget import Budget
from .request import ModelFailure, request_turn
from .result import RunResult, RunState
from .streaming import print_delta, stream_turn
from .tools import ToolRegistry

DEFAULT_MODEL = "agentlab-scripted"
NO_USAGE = "the model service reported no usage; token counts are too low"
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
) -> RunResult:
    """Run ``task`` to an ending: answered, out of budget, or failed.

    With ``stream=True`` each request is streamed: text deltas go to
    ``on_text`` as they arrive (printed by default; ``None`` keeps quiet)
    and tool calls are assembled from their fragments.
    """
    budget = budget or Budget()
    run = RunState(task_id=task_id or uuid.uuid4().hex[:12])
    if not isinstance(task, str) or not task.strip():
        return run.finish("invalid_task", warning="the task is empty: no request was made")

    run.messages = [
        {"role": "system", "content": system_prompt},
        {"role": "user", "content": task},
    ]
    guards = budget.guards()
    schemas = tools.schemas()

    while True:
        for guard in guards:
            stop = guard.before_step(run)
            if stop:
                return run.finish(stop.reason, warning=stop.message)

        run.steps += 1
        run.model_requests += 1
        if stream:
            turn = stream_turn(client, model, run.messages, schemas, on_text)
        else:
            turn = request_turn(client, model, run.messages, schemas)
        if isinstance(turn, ModelFailure):
            return run.finish("model_error", warning=f"model request failed: {turn.message}")
        run.tokens += turn.tokens
        if not turn.usage_reported and NO_USAGE not in run.warnings:
            run.warnings.append(NO_USAGE)
        run.messages.append(turn.as_message())

        if not turn.calls:
            return run.finish("answered", answer=turn.content or "")

        for call in turn.calls:
            result = tools.call(call.name, call.arguments)
            run.record_tool(call.id, call.name, call.arguments, result)

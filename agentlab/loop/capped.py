"""Rung 2 of the ladder: a cap that holds exactly, and an ending in the course's words (chapter 02).

The loop of ``minimal.py``, reporting how the run ended. One step is one
model request plus the handling of the tool calls it returned, so
``max_steps`` caps the requests: the check comes before every request, and
a run that is still calling tools when the cap is reached ends with stop
reason ``max_steps``, outcome ``budget_exhausted``.

Two statuses are kept apart: a tool's status (``ok``/``error``) is about one
execution; the run's outcome is about the whole run. An answer given right
after a tool failed is a reported failure, outcome ``tool_error``, not
``completed``.

It takes nothing from agentlab but rung 1's defaults. It leaves out the
guards and the deadline (``guarded.py``) and everything ``run_agent`` adds
(``agent.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import openai

from .minimal import MODEL, SYSTEM_PROMPT


@dataclass
class CappedResult:
    messages: list[dict[str, Any]]  # the full history, as the model saw it
    stop_reason: str  # "answered" or "max_steps"
    outcome: str  # "completed", "tool_error" or "budget_exhausted"
    steps: int  # model requests made
    answer: str | None  # the final answer, when there is one


def capped_loop(
    task: str,
    client: openai.OpenAI,
    tools: Any,
    max_steps: int = 4,
    model: str = MODEL,
    system_prompt: str = SYSTEM_PROMPT,
) -> CappedResult:
    question = {"role": "user", "content": task}
    messages: list[dict[str, Any]] = [{"role": "system", "content": system_prompt}, question]
    last_results: list[dict[str, Any]] = []  # the tool results of the latest step
    steps = 0
    while steps < max_steps:  # the cap is checked before every request
        steps += 1
        completion = client.chat.completions.create(
            model=model, messages=messages, tools=tools.schemas()
        )
        reply = completion.choices[0].message
        calls = reply.tool_calls or []
        assistant: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if calls:
            assistant["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.function.name, "arguments": c.function.arguments},
                }
                for c in calls
            ]
        messages.append(assistant)
        if not calls:  # the answer: completed, unless it follows a failed tool call
            failed = any(result["status"] == "error" for result in last_results)
            outcome = "tool_error" if failed else "completed"
            return CappedResult(messages, "answered", outcome, steps, reply.content or "")
        last_results = []
        for call in calls:
            result = tools.call(call.function.name, call.function.arguments)
            last_results.append(result)
            content = json.dumps(result, ensure_ascii=False)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    return CappedResult(messages, "max_steps", "budget_exhausted", steps, None)

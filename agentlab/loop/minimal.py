"""The whole agent loop in one screen, to be read (the reference for chapter 01).

This is what ``run_agent`` is underneath: ask the model, run the tools it
asks for, put both the assistant message and one ``role: tool`` message per
call back into the history, repeat; a reply without ``tool_calls`` is the
answer, and after ``max_steps`` requests we stop asking. On the course's
scripted models it produces exactly the same history as ``run_agent``
(``tests/test_minimal_loop.py`` checks that).

What it deliberately leaves out, and ``run_agent`` adds: a deadline, the
guards (repeated calls, no progress, tokens, calls per turn), retries and
error classes, catching a failed model request, streaming, truncating big
tool output, a completion check, a trace. Tool failures need no code here:
``tools.call`` already answers an unknown tool, bad arguments or a tool that
raises with a structured error result, which goes back to the model like
any other result.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import openai

from ..tools import ToolRegistry
from .agent import DEFAULT_MODEL, DEFAULT_SYSTEM_PROMPT
from .budget import DEFAULT_MAX_STEPS


class LoopResult(NamedTuple):
    messages: list[dict[str, Any]]  # the full history, as the model saw it
    ending: str  # "answered" or "max_steps"


def minimal_loop(
    task: str,
    client: openai.OpenAI,
    tools: ToolRegistry,
    max_steps: int = DEFAULT_MAX_STEPS,
    model: str = DEFAULT_MODEL,
    system_prompt: str = DEFAULT_SYSTEM_PROMPT,
) -> LoopResult:
    question = {"role": "user", "content": task}
    messages: list[dict[str, Any]] = [{"role": "system", "content": system_prompt}, question]
    for _step in range(max_steps):  # one step = one model request + its tool calls
        completion = client.chat.completions.create(
            model=model, messages=messages, tools=tools.schemas()
        )
        reply = completion.choices[0].message
        assistant: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            assistant["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.function.name, "arguments": call.function.arguments},
                }
                for call in reply.tool_calls
            ]
        messages.append(assistant)  # the model must see what it asked for
        if not reply.tool_calls:  # no tool calls: this is the final answer
            return LoopResult(messages, "answered")
        for call in reply.tool_calls:  # answer every call, in order, by its id
            result = tools.call(call.function.name, call.function.arguments)
            content = json.dumps(result, ensure_ascii=False)  # what the model will read
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    return LoopResult(messages, "max_steps")

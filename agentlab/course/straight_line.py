"""The first attempt everybody writes: one tool call, then print the reply.

``straight_line`` asks the model once; if the reply asks for tools it runs
the *first* call, asks once more and takes whatever comes back as the
answer. It hides an assumption: that the second reply is always the final
text. On a task that needs two tools (read, then write) the second reply is
another tool call, so the "answer" is ``None`` or a sentence about what the
model is about to do, and the task is left half done.

It exists only to be compared with :func:`agentlab.run_agent`, which loops.
It is deliberately naive: no budget, no error handling, no loop.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import openai

from ..loop.agent import DEFAULT_MODEL, default_system_prompt
from ..tools import ToolRegistry


@dataclass
class StraightLineResult:
    answer: str | None  # what the straight line would print
    tools_run: list[str]  # the tool calls it executed
    unfinished_calls: list[str]  # tool calls the model still wanted when it stopped
    messages: list[dict[str, Any]] = field(default_factory=list)


def straight_line(
    task: str,
    *,
    client: openai.OpenAI,
    tools: ToolRegistry,
    model: str = DEFAULT_MODEL,
    system_prompt: str | None = None,
) -> StraightLineResult:
    system_prompt = default_system_prompt() if system_prompt is None else system_prompt
    messages: list[dict[str, Any]] = [{"role": "system", "content": system_prompt}]
    messages.append({"role": "user", "content": task})
    schemas = tools.schemas()
    first = client.chat.completions.create(model=model, messages=messages, tools=schemas)
    reply = first.choices[0].message
    if not reply.tool_calls:
        return StraightLineResult(reply.content, [], [], messages)

    # The hidden assumption: one tool call is all it takes.
    tool_call = reply.tool_calls[0]
    result = tools.call(tool_call.function.name, tool_call.function.arguments)
    assistant = {"role": "assistant", "content": reply.content}
    messages.append(assistant | {"tool_calls": [tool_call.model_dump()]})
    result_text = json.dumps(result, ensure_ascii=False)
    messages.append({"role": "tool", "tool_call_id": tool_call.id, "content": result_text})
    second = client.chat.completions.create(model=model, messages=messages, tools=schemas)
    final = second.choices[0].message
    return StraightLineResult(
        answer=final.content,
        tools_run=[tool_call.function.name],
        unfinished_calls=[tc.function.name for tc in final.tool_calls or []],
        messages=messages,
    )

"""Rung 1 of the ladder: the whole agent loop in one screen (chapter 01).

Ask the model, run the tools it asks for, put both the assistant message
and one ``role: tool`` message per call back into the history, repeat. A
reply without ``tool_calls`` is the answer; after ``max_steps`` requests we
stop asking. It imports nothing of agentlab: ``tools`` is anything with
``schemas()`` and ``call(name, arguments_json)`` (a ``ToolRegistry`` is), and
``tools.call`` already answers an unknown tool, bad arguments or a tool that
raises with a structured error result, which goes back to the model like
any other result.

What it leaves out, and the next rungs add: an ending it reports in the
course's words (``capped.py``), the guards and one deadline
(``guarded.py``), and everything ``run_agent`` adds on top (``agent.py``).
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import openai

MAX_STEPS = 10
MODEL = "agentlab-scripted"
SYSTEM_PROMPT = (
    "你是一个严谨的助手。需要事实时先调用工具，只根据工具返回的结果回答；"
    "工具失败时如实说明，不要猜测。信息足够时，用中文给出最终回答。"
)


class LoopResult(NamedTuple):
    messages: list[dict[str, Any]]  # the full history, as the model saw it
    ending: str  # "answered" or "max_steps"


def minimal_loop(
    task: str,
    client: openai.OpenAI,
    tools: Any,
    max_steps: int = MAX_STEPS,
    model: str = MODEL,
    system_prompt: str = SYSTEM_PROMPT,
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

"""Shared by the tests of the exercises: Chinese by default, quiet runs, cached verdicts."""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

import agentlab.course.exercises as api
from agentlab.course.exercises.core import Verdict
from agentlab.course.exercises.running import judge
from agentlab.ops.exercises import starter_answer


@pytest.fixture(autouse=True)
def quiet_runs(tmp_path_factory, monkeypatch):
    """Chinese by default, and traces of runs made by answers go to a temporary folder."""
    monkeypatch.delenv("AGENTLAB_LANG", raising=False)
    monkeypatch.setenv("AGENTLAB_RUNS_DIR", str(tmp_path_factory.getbasetemp() / "runs"))


@functools.cache
def verdicts(exercise_id: str) -> dict[str, Any]:
    """The exercise's verdicts on its reference, its starter and each mistake (in Chinese)."""
    exercise = api.get(exercise_id)
    return {
        "reference": judge(exercise, exercise.reference),
        "starter": judge(exercise, starter_answer(exercise)),
        "wrong": [judge(exercise, answer) for _, answer in exercise.wrong],
    }


def mistake(exercise_id: str, label: str) -> Any:
    """The wrong answer of the exercise's mistake whose label starts with ``label``."""
    [answer] = [a for m, a in api.get(exercise_id).wrong if m.label.startswith(label)]
    return answer


def verdict(exercise_id: str, answer: Any, **kwargs: Any) -> Verdict:
    return judge(api.get(exercise_id), answer, **kwargs)


def has_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


# -- pieces of a student's loop, for loops written in other styles ----------------------


def ask(client: Any, messages: list[Any], tools: Any) -> Any:
    completion = client.chat.completions.create(
        model="agentlab-scripted", messages=messages, tools=tools.schemas()
    )
    return completion.choices[0].message


def assistant_message(reply: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": tc.id,
                "type": "function",
                "function": {"name": tc.function.name, "arguments": tc.function.arguments},
            }
            for tc in reply.tool_calls
        ]
    return message


def tool_message(tools: Any, tc: Any) -> dict[str, Any]:
    result = tools.call(tc.function.name, tc.function.arguments)
    content = json.dumps(result, ensure_ascii=False)
    return {"role": "tool", "tool_call_id": tc.id, "content": content}


def recursive_loop(task, client, tools, max_steps, messages=None):
    """Recursion for the loop, a system prompt of its own, a "name" on each tool message."""
    system = {"role": "system", "content": "You are careful. Use the tools, then answer."}
    messages = messages or [system, {"role": "user", "content": task}]
    if max_steps == 0:
        return messages
    reply = ask(client, messages, tools)
    messages.append(assistant_message(reply))
    if not reply.tool_calls:
        return messages
    for tc in reply.tool_calls:
        result = json.dumps(tools.call(tc.function.name, tc.function.arguments))
        messages.append(
            {"role": "tool", "tool_call_id": tc.id, "name": tc.function.name, "content": result}
        )
    return recursive_loop(task, client, tools, max_steps - 1, messages)

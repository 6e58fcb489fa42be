"""Rung 3 of the ladder: the guards of chapters 03-04 and one deadline, written plainly.

The capped loop of ``capped.py`` stops only when the steps run out. A loop
that always stops, and stops early when a run is going nowhere, also needs:

- **repeated calls**: the same tool with the same arguments (compared by a
  key of canonical JSON). The ``repeat_hint_at``-th identical call is not
  run, the model is told to change course; the ``max_repeats``-th ends the
  run (``repeat_call``).
- **no progress**: ``max_no_progress`` steps in a row whose tool results
  bring nothing the run has not seen before (``no_progress``).
- **one deadline**: ``max_seconds`` for the whole run, set once. The model
  request and each tool call get only the time that is left, never a fresh
  timeout of their own (``deadline``).
- **retries**: a model request that fails transiently (timeout, no
  connection, HTTP 408/409/429/5xx) is asked again up to ``max_retries``
  times, waiting ``backoff_s`` doubled each time, never past the deadline.
  Any other failure ends the run (``model_error``).
- **truncation**: a tool result longer than ``max_output_chars`` is cut,
  with a marker saying how much went, before the model reads it.

Every tool call is answered in the history, even one refused or never run.
This is what ``run_agent`` (``agent.py``) does with named guard objects, a
trace, streaming and the rest; on the runs where both apply they end the same
way (``tests/loop/test_ladder.py``).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import openai

from ..deadline import TimedOut, run_within
from ..i18n import tr
from ..tools.registry import error
from .minimal import MODEL, SYSTEM_PROMPT

TRANSIENT_STATUS = (408, 409, 429)  # and every 5xx


@dataclass
class GuardedResult:
    messages: list[dict[str, Any]]  # the full history, as the model saw it
    stop_reason: str  # answered, max_steps, deadline, repeat_call, no_progress, model_error
    outcome: str  # completed, tool_error, budget_exhausted or model_error
    steps: int
    model_requests: int  # every attempt, retries included
    answer: str | None


def repeat_key(name: str, arguments_json: str) -> str:
    """``name:{canonical JSON}``: the same call however its arguments are spelled."""
    try:
        arguments = json.loads(arguments_json or "{}")
    except json.JSONDecodeError:
        return f"{name}:{arguments_json}"  # unusable JSON: its own text is the key
    return f"{name}:{json.dumps(arguments, sort_keys=True, ensure_ascii=False)}"


def fitted(content: str, max_chars: int | None) -> str:
    """``content`` cut to ``max_chars`` characters, the marker included."""
    if max_chars is None or len(content) <= max_chars:
        return content
    marker = f"…[truncated: {len(content)} characters in all]"
    return content[: max(max_chars - len(marker), 0)] + marker


def guarded_loop(
    task: str,
    client: openai.OpenAI,
    tools: Any,
    *,
    max_steps: int = 8,
    max_seconds: float | None = None,
    repeat_hint_at: int | None = None,
    max_repeats: int | None = None,
    max_no_progress: int | None = None,
    max_retries: int = 0,
    backoff_s: float = 0.2,
    max_output_chars: int | None = None,
    model: str = MODEL,
    system_prompt: str = SYSTEM_PROMPT,
) -> GuardedResult:
    deadline = None if max_seconds is None else time.monotonic() + max_seconds

    def left() -> float | None:  # the one deadline: what remains of it
        return None if deadline is None else max(0.0, deadline - time.monotonic())

    question = {"role": "user", "content": task}
    messages: list[dict[str, Any]] = [{"role": "system", "content": system_prompt}, question]
    calls_seen: dict[str, int] = {}  # repeat key -> how often it was asked for
    results_seen: set[str] = set()  # what the tools have told the run so far
    no_progress = steps = requests = 0
    last_results: list[dict[str, Any]] = []

    def end(stop_reason: str, answer: str | None = None) -> GuardedResult:
        if stop_reason == "answered":
            failed = any(result["status"] == "error" for result in last_results)
            outcome = "tool_error" if failed else "completed"
        else:
            outcome = "model_error" if stop_reason == "model_error" else "budget_exhausted"
        return GuardedResult(messages, stop_reason, outcome, steps, requests, answer)

    def answer_call(call: Any, result: dict[str, Any]) -> None:
        content = fitted(json.dumps(result, ensure_ascii=False), max_output_chars)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": content})

    def not_run(calls: list[Any], reason: str) -> None:
        for call in calls:  # every call is answered, so the history stays paired
            answer_call(call, error("NOT_RUN", tr("loop.stopped_first", reason=reason)))

    def ask() -> Any:
        return client.chat.completions.create(
            model=model, messages=messages, tools=tools.schemas(), timeout=left()
        )

    while steps < max_steps:
        if left() == 0:
            return end("deadline")
        steps += 1
        attempt, completion = 0, None
        while completion is None:  # one request, and its retries
            requests += 1
            try:
                completion = run_within(ask, left(), "decide")
            except TimedOut:
                return end("deadline")
            except openai.APIError as exc:
                status = getattr(exc, "status_code", None) or 0
                transient = isinstance(exc, openai.APIConnectionError) or (
                    status in TRANSIENT_STATUS or status >= 500
                )
                if not transient or attempt >= max_retries:
                    return end("model_error")
                wait = backoff_s * 2**attempt
                if deadline is not None and wait >= left():
                    return end("deadline")  # no point sleeping until the deadline
                time.sleep(wait)
                attempt += 1

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
        if not calls:
            return end("answered", reply.content or "")

        results, learned = [], False  # what the tools that ran returned in this step
        for position, call in enumerate(calls):
            name, arguments = call.function.name, call.function.arguments
            key = repeat_key(name, arguments)
            calls_seen[key] = calls_seen.get(key, 0) + 1
            if max_repeats is not None and calls_seen[key] >= max_repeats:
                not_run(calls[position:], "repeat_call")
                return end("repeat_call")
            if repeat_hint_at is not None and calls_seen[key] >= repeat_hint_at:
                hint = tr("guard.repeat_hint", before=calls_seen[key] - 1)
                answer_call(call, error("REPEATED_CALL", hint))  # not run: no tool result
                continue
            ran = tools.run(name, arguments, left())  # within the time left
            results.append(ran.result)
            answer_call(call, ran.result)
            if ran.late:
                not_run(calls[position + 1 :], "deadline")
                return end("deadline")
            seen = json.dumps([ran.result.get("data"), ran.result.get("error")], sort_keys=True)
            learned = learned or seen not in results_seen
            results_seen.add(seen)
        last_results = results or last_results  # a step that ran nothing changes nothing
        no_progress = 0 if learned else no_progress + 1
        if max_no_progress is not None and no_progress >= max_no_progress:
            return end("no_progress")
    return end("max_steps")

"""The capstone of chapters 03 and 04: the student's own loop with their own guards.

``guarded_loop`` is the student's chapter 02 ``capped_loop`` with their ``repeat_key``,
``NoProgress`` and ``SharedDeadline`` put in (``03-guarded-loop``), then their
``error_class``, ``should_retry`` and a cut of long tool results (``04-guarded-loop``).
It is checked the way ``run_agent`` is (``tests/test_invariants.py``): on generated
runs. A seeded random generator draws scripted models and limits, always the same
list, smallest first; a few timed runs add models and tools that hang. On every run:

- never more model requests than ``max_steps * (1 + max_retries)``;
- never past ``max_seconds`` by more than :data:`SLACK_S`;
- every ``tool_call_id`` answered by exactly one tool message, in what the loop
  returns and in every request the model received;
- no tool message longer than ``max_output_chars``, and a cut one says so;
- the stop reason, the number of model requests and the tool calls that ran are
  those of agentlab's own rung, :func:`agentlab.loop.guarded.guarded_loop`.

The first run that breaks one is named, with why. :func:`guarded_loop` below is the
reference answer, written as a student would write it from the chapters' answers.
"""

from __future__ import annotations

import functools
import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import openai

from ...clients import Hang, HttpError, Reply, ScriptedClient, ToolCall, call, say
from ...deadline import TimedOut
from ...loop import guarded
from ...tools import Tool, ToolRegistry, error, ok
from .ch03 import NoProgress, SharedDeadline, repeat_key
from .ch04 import error_class, should_retry
from .core import Exercise, Judged, Runaway, Verdict, need_callable, passed, shown, wrong
from .loops import RUNAWAY_AFTER, SYSTEM_PROMPT, describe, normalise, runaway_guard
from .running import run_student
from .texts import tr

SLACK_S = 0.1  # past the deadline by at most this: thread wake-ups on a busy machine
MARKER = re.compile(r"truncated|截断|省略", re.IGNORECASE)

# -- the reference answer ------------------------------------------------------------------


def guarded_loop(
    task,
    client,
    tools,
    max_steps,
    max_seconds=None,
    max_repeats=None,
    max_no_progress=None,
    max_retries=0,
    max_output_chars=None,
    backoff_s=0.2,
):
    system = "你是一个谨慎的助手，只根据工具结果回答。"
    messages = [{"role": "system", "content": system}, {"role": "user", "content": task}]
    deadline = None if max_seconds is None else SharedDeadline(max_seconds)  # set once
    progress = None if max_no_progress is None else NoProgress(max_no_progress)
    asked = {}  # repeat key -> how often the model asked for it

    def within(work, phase):  # only what is left of the one deadline
        return work() if deadline is None else deadline.run(work, phase)

    def answer(tc, result):  # exactly one tool message for every call
        content = json.dumps(result, ensure_ascii=False)
        if max_output_chars is not None and len(content) > max_output_chars:
            room = max_output_chars - len(f"…[截断：删去 {len(content)} 个字符]")  # marker at most
            kept = content[: max(room, 0)]
            content = kept + f"…[截断：删去 {len(content) - len(kept)} 个字符]"
        messages.append({"role": "tool", "tool_call_id": tc.id, "content": content})

    def not_run(calls, reason):
        for tc in calls:
            answer(tc, error("NOT_RUN", f"运行已经停止（{reason}），这个调用没有执行"))

    def ask():
        return client.chat.completions.create(
            model="agentlab-scripted", messages=messages, tools=tools.schemas()
        )

    for _ in range(max_steps):
        attempt = 0
        while True:  # one request, and its retries
            try:
                completion = within(ask, "decide")
                break
            except TimedOut:
                return messages, "deadline"
            except openai.APIError as exc:
                attempt += 1
                kind = error_class(getattr(exc, "status_code", None) or "UNAVAILABLE")
                wait = backoff_s * 2 ** (attempt - 1)
                if not should_retry(kind, attempt, max_retries, wait, None):
                    return messages, "model_error"
                if deadline is not None and wait >= deadline.left():
                    return messages, "deadline"  # the wait would outlast the deadline
                time.sleep(wait)
        reply = completion.choices[0].message
        assistant = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            assistant["tool_calls"] = [
                {
                    "id": tc.id,
                    "type": "function",
                    "function": {"name": tc.function.name, "arguments": tc.function.arguments},
                }
                for tc in reply.tool_calls
            ]
        messages.append(assistant)
        if not reply.tool_calls:
            return messages, "answered"
        fingerprints = []
        for position, tc in enumerate(reply.tool_calls):
            key = repeat_key(tc.function.name, tc.function.arguments)
            asked[key] = asked.get(key, 0) + 1
            if max_repeats is not None and asked[key] >= max_repeats:
                not_run(reply.tool_calls[position:], "repeat_call")
                return messages, "repeat_call"
            try:
                run = functools.partial(tools.call, tc.function.name, tc.function.arguments)
                result = within(run, "tool")
            except TimedOut:
                not_run(reply.tool_calls[position:], "deadline")
                return messages, "deadline"
            answer(tc, result)
            fingerprints.append(json.dumps(result, sort_keys=True, ensure_ascii=False))
        if progress is not None and progress.after_step(fingerprints):
            return messages, "no_progress"
    return messages, "max_steps"


# -- the runs ------------------------------------------------------------------------------

CALLS = (
    ToolCall("echo", {"text": "a"}),
    ToolCall("echo", '{ "text":"a" }'),  # the same call, spelled otherwise
    ToolCall("echo", {"text": "b"}),
    ToolCall("flaky", {"n": 1}),
    ToolCall("flaky", {"n": 2}),  # fails: UNAVAILABLE
    ToolCall("no_such_tool", {}),
    ToolCall("echo", '{"text": '),  # broken JSON
)
LOG = ToolCall("log", {})
FIT_CHARS = 300  # the fits tool's result as JSON (or as str(): the same length), exactly
LOG_LINES = 40  # the log tool's output: about 500 characters as JSON, with no digit in it
TASK = "用工具把事情查清楚，然后回答。"


@dataclass(frozen=True, eq=False)  # compared and cached by identity
class Run:
    """One run a loop must handle: a scripted model and the limits it runs under."""

    script: tuple[Any, ...]
    limits: dict[str, Any]
    name: str = ""  # the timed runs' key in exercise.capstone.timed; "" when generated
    expect: tuple[str, int] | None = None  # the timed runs' (stop reason, requests)
    at_least_s: float = 0.0  # what the backoff waits must add up to

    def client(self) -> ScriptedClient:
        script = self.script

        def policy(conversation: Any) -> Any:  # past the script: its last turn again
            return script[min(conversation.request_number, len(script)) - 1]

        return ScriptedClient(runaway_guard(policy, self.cap + RUNAWAY_AFTER), name="capstone")

    @property
    def cap(self) -> int:
        return self.limits["max_steps"] * (1 + self.limits.get("max_retries", 0))


def tools(ran: list[str]) -> ToolRegistry:
    """The tools of every run; ``ran`` collects each call that really ran."""

    def logged(name: str, work: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
        def tool(**arguments: Any) -> dict[str, Any]:
            ran.append(f"{name}({json.dumps(arguments, sort_keys=True, ensure_ascii=False)})")
            return work(**arguments)

        return tool

    def nap(seconds: float) -> dict[str, Any]:
        time.sleep(seconds)
        return ok({"slept": seconds})

    def log() -> dict[str, Any]:
        # letters, not numbers: a digit in a cut log can only be the marker's count
        lines = [f"step {chr(ord('a') + i % 26)} ok" for i in range(LOG_LINES)]
        return ok({"log": "\n".join(["LOG-BEGIN", *lines, "LOG-END"])})

    def fits() -> dict[str, Any]:
        frame = json.dumps(ok("FIT-BEGIN" + "FIT-END"))
        return ok("FIT-BEGIN" + "f" * (FIT_CHARS - len(frame)) + "FIT-END")

    def schema(**types: str) -> dict[str, Any]:
        properties = {name: {"type": kind} for name, kind in types.items()}
        return {"type": "object", "properties": properties, "required": list(types)}

    return ToolRegistry(
        [
            Tool(
                "echo",
                "原样返回 text",
                schema(text="string"),
                logged("echo", lambda text: ok(text)),
            ),
            Tool(
                "flaky",
                "n 为偶数时失败",
                schema(n="integer"),
                logged("flaky", lambda n: ok(n) if n % 2 else error("UNAVAILABLE", "稍后再试")),
            ),
            Tool("nap", "睡一会儿", schema(seconds="number"), logged("nap", nap)),
            Tool("log", "一份构建日志", schema(), logged("log", log)),
            Tool("fits", f"正好 {FIT_CHARS} 个字符的结果", schema(), logged("fits", fits)),
        ]
    )


def generated(seed: int, count: int, chapter: str) -> tuple[Run, ...]:
    """``count`` runs drawn with ``random.Random(seed)``, smallest first."""
    rng = random.Random(seed)
    calls = CALLS + ((LOG,) if chapter == "04" else ())

    def calling() -> Reply:
        return Reply(tool_calls=tuple(rng.choice(calls) for _ in range(rng.choice((1, 1, 2, 3)))))

    def turn() -> Any:
        if chapter == "04" and rng.random() < 0.2:
            return HttpError(rng.choice((429, 500, 401)))
        return Reply(content=rng.choice(("完成", ""))) if rng.random() < 0.15 else calling()

    runs = []
    for _ in range(count):
        if rng.random() < 0.35:  # the same calls again and again, spelled two ways
            again = calling()
            script = [again if i % 2 else respelled(again) for i in range(rng.randint(2, 6))]
        else:
            script = [turn() for _ in range(rng.randint(1, 6))]
        limits = {
            "max_steps": rng.randint(1, 6),
            "max_seconds": rng.choice((None, None, 5.0)),
            "max_repeats": rng.choice((None, 2, 3)),
            "max_no_progress": rng.choice((None, 1, 2, 3)),
        }
        if chapter == "04":
            limits |= {
                "max_retries": rng.randint(0, 2),
                "max_output_chars": rng.choice((None, 300)),
                "backoff_s": 0.0,
            }
        runs.append(Run((*script, say("完成")), limits))
    return tuple(sorted(runs, key=lambda r: (r.limits["max_steps"], len(r.script))))


def respelled(reply: Reply) -> Reply:
    """The same calls with their arguments written out on several lines."""
    calls = [
        ToolCall(c.name, json.dumps(c.arguments, indent=1)) if isinstance(c.arguments, dict) else c
        for c in reply.tool_calls
    ]
    return Reply(tool_calls=tuple(calls))


def timed(chapter: str) -> tuple[Run, ...]:
    """Runs named for what they test, most against the clock: a hanging model, a hanging
    tool, both in one run; in chapter 04 also a backoff longer than the time that is left,
    a retry on the last step (a retry is no new step) and a backoff that doubles."""
    hang_tool = call("nap", seconds=1.0)
    runs = [
        Run((Hang(1.0),), {"max_steps": 4, "max_seconds": 0.2}, "model_hangs", ("deadline", 1)),
        Run((hang_tool,), {"max_steps": 4, "max_seconds": 0.2}, "tool_hangs", ("deadline", 1)),
        Run(
            (Hang(0.2, then=hang_tool),),
            {"max_steps": 4, "max_seconds": 0.3},
            "model_then_tool",
            ("deadline", 1),
        ),
    ]
    if chapter == "04":
        limits = {"max_steps": 4, "max_seconds": 0.3, "max_retries": 2, "backoff_s": 0.5}
        runs.append(Run((HttpError(429), say("完成")), limits, "long_backoff", ("deadline", 1)))
        limits = {"max_steps": 1, "max_retries": 1, "backoff_s": 0.0}
        runs.append(Run((HttpError(429), say("完成")), limits, "retry_last_step", ("answered", 2)))
        # waits 0.2 s, then 0.4 s: with ~0.3 s left the second no longer fits (0.2 s would)
        limits = {"max_steps": 2, "max_seconds": 0.5, "max_retries": 2, "backoff_s": 0.2}
        script = (HttpError(429), HttpError(429), say("完成"))
        runs.append(Run(script, limits, "backoff_doubles", ("deadline", 2), at_least_s=0.2))
        # waits 0.1, 0.2, then 0.4 s with about 0.7 s left: answered; a first wait of 0.2 s,
        # or a factor of 3, leaves too little for the third; no wait at all is too quick
        limits = {"max_steps": 1, "max_seconds": 1.0, "max_retries": 3, "backoff_s": 0.1}
        script = (HttpError(429), HttpError(503), HttpError(429), say("完成"))
        runs.append(Run(script, limits, "backoff_three", ("answered", 4), at_least_s=0.7))
        limits = {"max_steps": 2, "max_output_chars": FIT_CHARS}
        runs.append(Run((call("fits"), say("完成")), limits, "exact_fit", ("answered", 2)))
    return tuple(runs)


RUNS = {"03": generated(0, 24, "03"), "04": generated(2, 24, "04")}


@dataclass(frozen=True)
class Ending:
    """What a loop did on a run: its stop reason, its requests, the tool calls that ran."""

    stop_reason: str
    requests: int
    ran: tuple[str, ...]


@functools.cache
def expected(run: Run) -> Ending:
    """agentlab's own rung on ``run`` (cached: scripted, so it never changes)."""
    client, ran = run.client(), []
    limits = {**run.limits, "backoff_s": run.limits.get("backoff_s", 0.0)}
    limits["max_output_chars"] = limits.pop("max_output_chars", None)
    result = guarded.guarded_loop(TASK, client, tools(ran), **limits)
    return Ending(result.stop_reason, len(client.requests), tuple(ran))


def prepare(chapter: str) -> Callable[[], None]:
    def reference_runs() -> None:
        for run in RUNS[chapter]:
            expected(run)

    return reference_runs


# -- the check -----------------------------------------------------------------------------


def check(chapter: str) -> Callable[[Any], Verdict]:
    def check_guarded_loop(answer: Any) -> Verdict:
        need_callable(answer, "guarded_loop")
        runs = RUNS[chapter]
        for number, run in enumerate(runs, start=1):
            _judge_run(answer, run, _name(run, number, len(runs)))
        for run in timed(chapter):
            _judge_run(answer, run, _name(run, 0, 0))
        key = f"exercise.{chapter}-guarded-loop.passed"
        return passed(tr(key, count=len(runs), timed=len(timed(chapter))))

    return check_guarded_loop


def _judge_run(answer: Any, run: Run, name: str) -> None:
    """Raise Judged with the first promise ``answer`` breaks on ``run``."""

    def fail(key: str, **fields: Any) -> Judged:
        detail = tr(f"exercise.capstone.{key}", **fields)
        return Judged(wrong(tr("exercise.capstone.breaks", run=name, detail=detail)))

    client, ran = run.client(), []
    what = tr("exercise.capstone.what", run=name)
    started = time.monotonic()
    try:
        returned = run_student(answer, TASK, client, tools(ran), **run.limits, what=what)
    except Runaway as runaway:
        raise fail("runaway", requests=runaway.requests) from None
    elapsed = time.monotonic() - started
    if not isinstance(returned, list | tuple) or len(returned) != 2:
        raise fail("return_pair", got=shown(returned, 60))
    messages, stop_reason = returned
    if len(client.requests) > run.cap:
        raise fail("too_many_requests", got=len(client.requests), cap=run.cap)
    limit_s = run.limits.get("max_seconds")
    if limit_s is not None and elapsed > limit_s + SLACK_S:
        raise fail("past_deadline", limit=limit_s, slack=SLACK_S)
    if elapsed < run.at_least_s:
        raise fail("too_quick", seconds=run.at_least_s, got=f"{elapsed:.2f}")
    problem = _shape_problem(client.requests) if client.requests else None
    if problem:
        key, fields = problem
        raise Judged(wrong(tr("exercise.capstone.breaks", run=name, detail=tr(key, **fields))))
    histories = [("return", messages)] + [(r.number, r.messages) for r in client.requests]
    for where, history in histories:
        problem = _pairing_problem(history)
        if problem:
            key, call_id = problem
            where_ = tr(
                "exercise.capstone.returned" if where == "return" else "exercise.capstone.request",
                n=where,
            )
            raise fail(key, where=where_, id=call_id)
    if not isinstance(stop_reason, str):
        raise fail("stop_not_str", got=shown(stop_reason, 60))
    want = Ending(*run.expect, ()) if run.expect else expected(run)
    if stop_reason != want.stop_reason:
        raise fail(
            "stop_reason",
            expected=want.stop_reason,
            got=shown(stop_reason, 40),
            requests=want.requests,
        )
    if len(client.requests) != want.requests:
        raise fail(
            "requests", stop=want.stop_reason, expected=want.requests, got=len(client.requests)
        )
    if not run.expect and tuple(ran) != want.ran:
        raise fail("ran", expected=_calls(want.ran), got=_calls(ran))
    _check_cuts(messages, run.limits.get("max_output_chars"), ran.count("log({})"), fail)


def _pairing_problem(history: Any) -> tuple[str, str] | None:
    """("unanswered" | "answered_twice" | "stray", the call id), or None: every call the
    assistant asked for has exactly one tool message before the next assistant message."""
    pending: list[Any] = []
    answered: set[Any] = set()
    for message in (normalise(m) for m in (history if isinstance(history, list | tuple) else [])):
        if message.get("role") == "assistant":
            if pending:
                return "unanswered", str(pending[0])
            pending = [c.get("id") for c in message.get("tool_calls", []) if "id" in c]
        elif message.get("role") == "tool":
            call_id = message.get("tool_call_id")
            if call_id in pending:
                pending.remove(call_id)
                answered.add(call_id)
            else:
                return ("answered_twice" if call_id in answered else "stray"), str(call_id)
    return ("unanswered", str(pending[0])) if pending else None


def _shape_problem(requests: Any) -> tuple[str, dict[str, Any]] | None:
    """(catalog key, fields) for the first message a real service would refuse or misread:
    a system prompt with text, then the task; tool calls spelled as the API spells them;
    every message with a role, every tool message with a content."""
    first = [normalise(m) for m in requests[0].messages]
    if not first or first[0]["role"] != "system":
        return "exercise.loop.no_system", {"got": describe(first[0] if first else None)}
    if first[0]["content"] != SYSTEM_PROMPT:
        return "exercise.loop.system_no_text", {"got": shown(first[0]["content"])}
    if first[1:2] != [{"role": "user", "content": TASK}]:
        return "exercise.loop.no_task", {}
    for request in requests:
        n = request.number
        for message in (normalise(m) for m in request.messages):
            if message["role"] is None:
                got = shown(message.get("value", message), 80)
                return "exercise.capstone.no_role", {"n": n, "got": got}
            if message["role"] == "tool" and message["content"] is None:
                call_id = message.get("tool_call_id")
                return "exercise.capstone.tool_no_content", {"n": n, "id": call_id}
            for c in message.get("tool_calls", []):
                odd = "not_a_dict" in c or "arguments_not_str" in c or c["type"] != "function"
                if odd or None in (c["id"], c["name"]):
                    return "exercise.capstone.call_shape", {"n": n, "got": shown(c, 80)}
    return None


def _check_cuts(messages: Any, limit: int | None, logs: int, fail: Callable[..., Judged]) -> None:
    """Tool messages within ``limit``; a cut log says so; without a limit, logs whole."""
    contents = [
        m.get("content") for m in (normalise(m) for m in messages) if m.get("role") == "tool"
    ]
    texts = [c if isinstance(c, str) else json.dumps(c, ensure_ascii=False) for c in contents]
    for text in texts:
        if limit is not None and len(text) > limit:
            raise fail("too_long", length=len(text), limit=limit)
    if any("FIT-BEGIN" in t and MARKER.search(t) for t in texts):
        raise fail("cut_fitting", limit=limit, length=FIT_CHARS)
    shown_logs = [t for t in texts if "LOG-BEGIN" in t]
    if len(shown_logs) < logs:
        raise fail("log_lost", count=logs, shown=len(shown_logs))
    for text in shown_logs:
        if "LOG-END" in text:
            continue
        if limit is None:
            raise fail("log_cut")
        if not MARKER.search(text):
            raise fail("no_marker")
        if not re.search(r"\d", text):
            raise fail("no_count")


def _name(run: Run, number: int, count: int) -> str:
    limits = tr("exercise.capstone.sep").join(f"{k}={v}" for k, v in run.limits.items() if v)
    if run.name:
        return tr(
            "exercise.capstone.timed_run",
            name=tr(f"exercise.capstone.timed.{run.name}"),
            limits=limits,
        )
    shown_turns = [_turn(turn) for turn in run.script[: run.cap]]
    script = " → ".join(shown_turns + (["…"] if len(run.script) > run.cap else []))
    return tr(
        "exercise.capstone.generated_run", number=number, count=count, limits=limits, script=script
    )


def _turn(turn: Any) -> str:
    if isinstance(turn, HttpError):
        return f"HTTP {turn.status}"
    if isinstance(turn, Hang):
        return tr("exercise.capstone.hang", seconds=turn.seconds, then=_turn(turn.then))
    if not turn.tool_calls:
        return tr("exercise.capstone.answer")
    return " + ".join(_call(c) for c in turn.tool_calls)


def _call(tool_call: ToolCall) -> str:
    """The call as the model spells its arguments, on one line."""
    return f"{tool_call.name}({' '.join(tool_call.arguments_json().split())})"


def _calls(ran: Any) -> str:
    return "[" + tr("list.sep").join(ran) + "]" if ran else tr("exercise.loop.nothing")


EXERCISES = [
    Exercise("03-guarded-loop", check("03"), guarded_loop, prepare("03")),
    Exercise("04-guarded-loop", check("04"), guarded_loop, prepare("04")),
]

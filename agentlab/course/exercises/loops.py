"""Running a student's agent loop against scripted scenarios, and saying what is off.

The minbpe move: each scenario is run twice on fresh clients and sandboxes,
once with the student's loop and once with the reference,
:func:`agentlab.loop.minimal.minimal_loop`. The scripted models decide from
the history they receive, so as long as the student's history matches the
reference's, both get the same replies. The first request whose history
differs is then explained in words: an ``assistant`` message missing, a
``tool`` message before its ``assistant``, a ``tool_call_id`` missing or
unanswered, one request too many, no cap at all.

The scripted models here are guarded: after :data:`RUNAWAY_AFTER` requests
more than the scenario's cap they raise :class:`~agentlab.course.exercises.core.Runaway`,
which no ``except Exception`` catches, so a loop without a cap ends.

This module does not decide which scenarios an exercise uses.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...clients import BEHAVIOURS, Conversation, Reply, ScriptedClient, ToolCall, call, say
from ...i18n import language
from ...loop.minimal import minimal_loop
from ...tools import ToolRegistry, file_tools, sandbox_copy
from .core import Judged, Runaway, shown, type_name, wrong
from .running import run_student
from .texts import tr

TODO_TASK = "读一下 meeting.md，把里面所有以 TODO 开头的行抽出来，汇总写进 todo-list.md，然后汇报。"
RUNAWAY_AFTER = 12  # requests beyond the cap before the check steps in


def two_reads(conversation: Conversation) -> Reply:
    """Asks for two tools in one reply (with some text), then reports what came back."""
    if conversation.request_number == 1:
        return Reply(
            content="我先读两个文件。",
            tool_calls=(ToolCall("read_text", {"rel_path": "meeting.md"}), ToolCall("list_dir")),
        )
    statuses = [r.get("status", "?") for r in conversation.tool_results()]
    return say(f"两个工具的结果：{'、'.join(statuses)}。")


def asks_unknown_tool(conversation: Conversation) -> Reply:
    """Asks for a tool nobody registered, then reports the error it got back."""
    last = conversation.last_tool_result()
    if last is None:
        return call("delete_everything", rel_path="meeting.md")
    code = (last.get("error") or {}).get("code", "?")
    return say(f"这个工具不存在（{code}），我不删除任何东西。")


def lists_forever(conversation: Conversation) -> Reply:
    """Never answers: asks for the folder listing on every turn."""
    return call("list_dir")


def reads_two_forever(conversation: Conversation) -> Reply:
    """Never answers: asks for two tools on every turn (a step is a request, not a call)."""
    return Reply(
        tool_calls=(ToolCall("list_dir"), ToolCall("read_text", {"rel_path": "meeting.md"}))
    )


@dataclass(frozen=True)
class Scenario:
    """One scripted situation a loop must handle."""

    key: str  # names it in messages: exercise.scenario.<key>
    policy: Callable[[Conversation], Any] | str
    task: str
    max_steps: int
    calls_finish: str | None = None
    """The ``finish_reason`` sent with tool calls, where it is not the usual "tool_calls"."""

    @property
    def name(self) -> str:
        return tr(f"exercise.scenario.{self.key}")

    def client(self) -> ScriptedClient:
        policy = BEHAVIOURS[self.policy] if isinstance(self.policy, str) else self.policy
        guarded = runaway_guard(policy, self.max_steps + RUNAWAY_AFTER)

        def played(conversation: Conversation) -> Any:
            turn = guarded(conversation)
            if self.calls_finish and isinstance(turn, Reply) and turn.tool_calls:
                return dataclasses.replace(turn, finish_reason=self.calls_finish)
            return turn

        return ScriptedClient(played, name=self.key)


HONEST = Scenario("honest", "todo_clerk", TODO_TASK, 8)
TOOL_ERROR = Scenario(
    "tool_error", "todo_clerk", TODO_TASK.replace("meeting.md", "meeting-notes.md"), 8
)
TWO_CALLS = Scenario("two_calls", two_reads, "读 meeting.md，再列一下目录。", 8)
# Tool calls with finish_reason "stop": OpenAI itself may send it with tool calls (documented
# in ENTERPILOT/GoModel#124; vllm-project/vllm#25054 for tool_choice "required"), and Ollama's
# OpenAI API did for every call before ollama/ollama#5995. Only tool_calls decides.
UNKNOWN_TOOL = Scenario(
    "unknown_tool", asks_unknown_tool, "删掉 meeting.md", 8, calls_finish="stop"
)
NEVER_STOPS = Scenario("never_stops", lists_forever, "把沙盒里的文件都列出来", 3)
NEVER_STOPS_TWO_CALLS = Scenario("never_stops_two_calls", reads_two_forever, "把沙盒看个遍", 3)


def runaway_guard(policy: Callable[[Conversation], Any], limit: int) -> Callable[..., Any]:
    """``policy``, made to raise :class:`Runaway` on its ``limit + 1``-th request."""

    def guarded(conversation: Conversation) -> Any:
        if conversation.request_number > limit:
            raise Runaway(limit)
        return policy(conversation)

    return guarded


@contextlib.contextmanager
def sandbox() -> Iterator[tuple[Path, ToolRegistry]]:
    """A fresh copy of the teaching sandbox and its file tools, removed afterwards."""
    box = sandbox_copy()
    try:
        yield box, file_tools(box)
    finally:
        shutil.rmtree(box.parent, ignore_errors=True)


@dataclass
class Transcript:
    """What one run of a loop did: the requests the model got, and what came back."""

    requests: list[list[dict[str, Any]]]  # each request's messages, normalised
    tools_sent: list[bool]  # did each request offer the tools?
    tool_choices: list[Any]  # each request's tool_choice (None: not sent)
    returned: Any  # what the loop function returned
    runaway: bool = False


def reference_run(scenario: Scenario) -> tuple[Transcript, str]:
    """The reference loop on ``scenario``: its transcript and its ending.

    Cached: scenarios are frozen and scripted, so the reference run never changes
    within one language. Callers only read the transcript.
    """
    return _reference_run(scenario, language())


@functools.cache
def _reference_run(scenario: Scenario, lang: str) -> tuple[Transcript, str]:
    """The run itself, one per language: the tools' error messages it holds are
    worded in ``lang``, as a student's run after ``set_language`` would word them."""
    client = scenario.client()
    with sandbox() as (_, tools):
        result = minimal_loop(scenario.task, client, tools, scenario.max_steps)
    return transcript(client, result.messages), result.ending


def student_run(loop: Callable[..., Any], scenario: Scenario, name: str) -> Transcript:
    """The student's loop on ``scenario`` (raises Judged for crashes and hangs)."""
    client = scenario.client()
    with sandbox() as (_, tools):
        try:
            returned = run_student(
                loop,
                scenario.task,
                client,
                tools,
                scenario.max_steps,
                what=tr("exercise.loop.in_scenario", name=name, scenario=scenario.name),
            )
        except Runaway as runaway:
            requests, offered, choices = _requests(client)
            # the request that tripped the guard is not one the loop got an answer to
            requests = requests[: runaway.requests]
            return Transcript(requests, offered, choices, returned=None, runaway=True)
        except Judged:
            # A tool call that is not a dict breaks the scripted model (HTTP 500), and the
            # loop raises: hand the history over, so that compare() names the cause.
            requests, offered, choices = _requests(client)
            if any(_odd_call(message) for request in requests for message in request):
                return Transcript(requests, offered, choices, returned=None)
            raise
    return transcript(client, returned)


def transcript(client: ScriptedClient, returned: Any) -> Transcript:
    return Transcript(*_requests(client), returned=returned)


def _requests(client: ScriptedClient) -> tuple[list[list[dict[str, Any]]], list[bool], list[Any]]:
    made = client.requests
    return (
        [conversation(r.messages) for r in made],
        [bool(r.tools) for r in made],
        [r.tool_choice for r in made],
    )


# -- normalising messages, so that harmless differences do not count ------------


def conversation(messages: Any) -> list[dict[str, Any]]:
    """The messages, each normalised."""
    return [normalise(m) for m in list(messages)]


SYSTEM_PROMPT = "…"  # any system prompt with some text in it is as good as the reference's


def normalise(message: Any) -> dict[str, Any]:
    """One message as a plain dict with only what matters to the model."""
    if hasattr(message, "model_dump"):  # an SDK object put straight into the history
        message = message.model_dump()
    if not isinstance(message, dict):
        return {"role": None, "value": shown(message)}
    role = message.get("role")
    if role == "system":
        content = message.get("content")
        return {"role": role, "content": SYSTEM_PROMPT if _has_text(content) else content}
    if role == "assistant":
        out: dict[str, Any] = {"role": role, "content": message.get("content") or None}
        calls = [_call(c) for c in message.get("tool_calls") or []]
        if calls:
            out["tool_calls"] = calls
        return out
    if role == "tool":
        out = {"role": role, "content": _json_or_text(message.get("content"))}
        if "tool_call_id" in message:
            out["tool_call_id"] = message.get("tool_call_id")
        return out
    return {"role": role, "content": message.get("content")}


def _call(tool_call: Any) -> dict[str, Any]:
    if hasattr(tool_call, "model_dump"):  # an SDK object: the SDK sends it as this dict
        tool_call = tool_call.model_dump()
    if not isinstance(tool_call, dict):  # a string, a list...: see _not_a_dict
        return {"not_a_dict": type_name(tool_call), "value": shown(tool_call)}
    function = tool_call.get("function") or {}
    arguments = function.get("arguments")
    out = {
        "id": tool_call.get("id"),
        "type": tool_call.get("type"),  # OpenAI-compatible services answer 400 without it
        "name": function.get("name"),
        "arguments": _json_or_text(arguments),
    }
    if not isinstance(arguments, str):  # services take the JSON text, as the model sent it
        out["arguments_not_str"] = type_name(arguments)
    return out


def _not_a_dict(message: dict[str, Any] | None) -> dict[str, Any] | None:
    """The first tool call in ``message`` that was not a dict (as :func:`_call` marks it)."""
    calls = (message or {}).get("tool_calls") or []
    return next((c for c in calls if "not_a_dict" in c), None)


def _odd_call(message: dict[str, Any] | None) -> dict[str, Any] | None:
    """The first tool call in ``message`` that no service would take: not a dict, or
    arguments that are not the JSON text (the scripted model fails on it, HTTP 500)."""
    calls = (message or {}).get("tool_calls") or []
    return next((c for c in calls if "not_a_dict" in c or "arguments_not_str" in c), None)


def _has_text(content: Any) -> bool:
    return isinstance(content, str) and bool(content.strip())


def _json_or_text(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def describe(message: dict[str, Any] | None) -> str:
    """A message in a few words: role, and its ids."""
    if message is None:
        return tr("exercise.loop.nothing")
    role = message.get("role")
    if role == "assistant" and message.get("tool_calls"):
        ids = ", ".join(
            c["value"] if "not_a_dict" in c else str(c["id"]) for c in message["tool_calls"]
        )
        return f"role=assistant (tool_calls: {ids})"
    if role == "tool":
        return f"role=tool, tool_call_id={message.get('tool_call_id', '—')}"
    if role is None:
        return shown(message.get("value"))
    return f"role={role}"


# -- comparing a student's run with the reference --------------------------------


def compare(
    got: Transcript,
    ref: Transcript,
    scenario: Scenario,
    ref_ending: str,
) -> None:
    """Raise Judged with the first problem of ``got``; return if it matches ``ref``."""

    def fail(key: str, **fields: Any) -> Judged:
        detail = tr(key, **fields)
        return Judged(
            wrong(tr("exercise.loop.scenario_says", scenario=scenario.name, detail=detail))
        )

    if got.requests:
        first = got.requests[0]
        task = {"role": "user", "content": scenario.task}
        if task in first[2:]:  # messages from an earlier run came before this task
            raise fail("exercise.loop.leftover_history", k=first.index(task, 2) - 1)
        if not first or first[0].get("role") != "system":
            raise fail("exercise.loop.no_system", got=describe(first[0] if first else None))
        if first[0]["content"] != SYSTEM_PROMPT:
            raise fail("exercise.loop.system_no_text", got=shown(first[0]["content"]))
        if first[1:2] != [task]:
            raise fail("exercise.loop.no_task")
        if not got.tools_sent[0]:
            raise fail("exercise.loop.no_tools")
        # a later request without tools: the model cannot ask for one, so the loop "stops"
        later = next((n for n, sent in enumerate(got.tools_sent, start=1) if not sent), None)
        if later is not None:
            raise fail("exercise.loop.no_tools_later", n=later)
        # "required" (or a named tool) forces a call every time: no final answer can come
        for n, choice in enumerate(got.tool_choices, start=1):
            if choice not in (None, "auto"):
                raise fail("exercise.loop.tool_choice", n=n, got=shown(choice))
    for n, (mine, theirs) in enumerate(zip(got.requests, ref.requests, strict=False), start=1):
        if mine != theirs:
            key, fields = _history_problem(n, mine, theirs)
            raise fail(key, **fields)

    cap, made, needed = scenario.max_steps, len(got.requests), len(ref.requests)
    # more than the guard allows: a loop that caught the guard's Runaway and went on
    if got.runaway or made > cap + RUNAWAY_AFTER:
        raise fail("exercise.loop.no_cap", cap=cap, got=made)
    if made > needed:
        if ref_ending == "max_steps":
            raise fail("exercise.loop.one_too_many", cap=cap, got=made, extra=made - needed)
        raise fail("exercise.loop.after_answer", k=needed)
    if made < needed:
        if made == 0:
            raise fail("exercise.loop.no_request")
        # one request short, each reply asking for one tool: the loop's bound is off by
        # one, range(1, max_steps) (with two a reply, counting tool calls looks the same)
        off_by_one = made == cap - 1 and _one_call_a_reply(ref.requests[made])
        if ref_ending == "max_steps" and off_by_one:
            raise fail("exercise.loop.one_short_of_cap", cap=cap, got=made)
        if ref_ending == "max_steps" and made < cap:
            raise fail("exercise.loop.too_few_requests", cap=cap, got=made)
        reply = ref.requests[made][len(ref.requests[made - 1]) :]  # what reply `made` added
        assistant = next((m for m in reply if m.get("role") == "assistant"), {})
        names = tr("list.sep").join(str(c["name"]) for c in assistant.get("tool_calls", []))
        if assistant.get("content"):
            raise fail("exercise.loop.stopped_on_content", k=made, names=names)
        if scenario.calls_finish == "stop":
            raise fail("exercise.loop.stopped_on_finish_reason", k=made, names=names)
        if off_by_one:  # the last allowed request never sent
            raise fail("exercise.loop.one_short", k=made, names=names, cap=cap)
        raise fail("exercise.loop.stopped_early", k=made, names=names)


def _one_call_a_reply(history: list[dict[str, Any]]) -> bool:
    """Did every reply in ``history`` ask for one tool call at the most?"""
    replies = [m for m in history if m.get("role") == "assistant"]
    return all(len(m.get("tool_calls") or []) <= 1 for m in replies)


def _history_problem(
    n: int, mine: list[dict[str, Any]], theirs: list[dict[str, Any]]
) -> tuple[str, dict[str, Any]]:
    """(catalog key, fields) for the first difference in request ``n``'s history."""
    i = next(
        (k for k, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
        min(len(mine), len(theirs)),
    )
    expected = theirs[i] if i < len(theirs) else None
    got = mine[i] if i < len(mine) else None
    if expected is None:
        return ("exercise.loop.extra_message", {"n": n, "got": describe(got)})
    role = expected["role"]
    loose = _not_a_dict(got)
    if role == "assistant" and loose is not None:
        return (
            "exercise.loop.call_not_dict",
            {"n": n, "kind": loose["not_a_dict"], "value": loose["value"]},
        )
    odd = _odd_call(got)
    if role == "assistant" and odd is not None:
        return (
            "exercise.loop.arguments_not_str",
            {"n": n, "id": odd["id"], "kind": odd["arguments_not_str"]},
        )
    untyped = [
        c
        for c in (got or {}).get("tool_calls") or []
        if "not_a_dict" not in c and c["type"] != "function"
    ]
    if role == "assistant" and untyped:
        return (
            "exercise.loop.call_type",
            {"n": n, "id": untyped[0]["id"], "got": shown(untyped[0]["type"])},
        )
    if role == "assistant" and expected.get("tool_calls"):
        ids = ", ".join(str(c["id"]) for c in expected["tool_calls"])
        if got is not None and got.get("role") == "tool":
            later = any(m.get("role") == "assistant" and m.get("tool_calls") for m in mine[i:])
            key = "exercise.loop.tool_before_assistant" if later else "exercise.loop.no_assistant"
            return (key, {"n": n, "ids": ids})
        if got is None:
            return ("exercise.loop.no_assistant", {"n": n, "ids": ids})
        if got.get("role") == "assistant" and not got.get("tool_calls"):
            return ("exercise.loop.assistant_without_calls", {"n": n, "ids": ids})
    if role == "tool":
        call_id = expected.get("tool_call_id")
        if got is not None and got.get("role") == "tool":
            if "tool_call_id" not in got or got.get("tool_call_id") in (None, ""):
                return ("exercise.loop.tool_id_missing", {"n": n, "id": call_id})
            if got.get("tool_call_id") == call_id:
                if isinstance(got.get("content"), str):
                    return ("exercise.loop.tool_content_not_json", {"n": n, "id": call_id})
                return ("exercise.loop.tool_content_differs", {"n": n, "id": call_id})
        answered = {m.get("tool_call_id") for m in mine if m.get("role") == "tool"}
        if call_id not in answered:
            return ("exercise.loop.tool_unanswered", {"n": n, "id": call_id})
    return (
        "exercise.loop.history_differs",
        {"n": n, "i": i + 1, "expected": describe(expected), "got": describe(got)},
    )


def check_returned_messages(returned: Any, ref: Transcript, scenario: Scenario, name: str) -> None:
    """The messages a loop returns must be the whole history, final reply included."""

    def fail(key: str, **fields: Any) -> Judged:
        detail = tr(key, **fields)
        return Judged(
            wrong(tr("exercise.loop.scenario_says", scenario=scenario.name, detail=detail))
        )

    if not isinstance(returned, list | tuple):
        raise fail("exercise.loop.return_type", name=name, got=type_name(returned))
    pair = len(returned) == 2 and isinstance(returned[0], list | tuple)
    if pair and isinstance(returned[1], str):  # (messages, ending), as capped_loop returns
        raise fail("exercise.loop.return_pair", name=name, got=shown(returned[1]))
    mine, theirs = conversation(returned), conversation(ref.returned)
    if mine == theirs:
        return
    for i, message in enumerate(mine, start=1):
        loose = _not_a_dict(message)
        if loose is not None:
            raise fail(
                "exercise.loop.return_call_not_dict",
                i=i,
                kind=loose["not_a_dict"],
                value=loose["value"],
            )
    missing = theirs[len(mine) :]
    if mine == theirs[: len(mine)] and missing and all(m.get("role") == "tool" for m in missing):
        raise fail("exercise.loop.return_missing_tools", count=len(missing))
    if mine == theirs[:-1]:
        raise fail("exercise.loop.return_missing_last", expected=describe(theirs[-1]))
    i = next(
        (k for k, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
        min(len(mine), len(theirs)),
    )
    expected = theirs[i] if i < len(theirs) else None
    got = mine[i] if i < len(mine) else None
    raise fail(
        "exercise.loop.return_differs", i=i + 1, expected=describe(expected), got=describe(got)
    )

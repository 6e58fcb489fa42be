"""Chapter 01 exercises: the loop, the history, predictions, a tool of one's own, fragments.

Seed 003's hands-on checklist is here as exercises the student does: run the
TODO task and count the messages per request (``01-history``), a missing file
(``01-predict-missing``), ``max_steps=2`` on a three-step task
(``01-predict-cap2``), ``../mini_agent.py`` (``01-predict-escape``) and writing
``append_text`` (``01-append-text``).

Each exercise in turn: its reference answer (written as a student would write
it in the notebook), its named mistakes, its check. The starter code is in
``units/<id>.toml``.
"""

from __future__ import annotations

import contextlib
import dis
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from ... import Budget, run_agent
from ...clients import Chunking, Reply, ScriptedClient, ToolCall, scripted
from ...tools import (
    Tool,
    ToolRegistry,
    error,  # noqa: F401  01-append-text's named mistakes return error(...)
    ok,
    resolve_inside,
    sandbox_copy,
)
from ...tools import files as library_files
from .core import (
    Exercise,
    Judged,
    Verdict,
    clean,
    need_callable,
    need_prediction,
    not_done,
    passed,
    predict,
    shown,
    type_name,
    wrong,
)
from .loops import (
    HONEST,
    NEVER_STOPS,
    NEVER_STOPS_TWO_CALLS,
    TODO_TASK,
    TOOL_ERROR,
    TWO_CALLS,
    UNKNOWN_TOOL,
    check_returned_messages,
    compare,
    reference_run,
    sandbox,
    student_run,
)
from .running import run_student
from .texts import tr

# -- 01-loop ---------------------------------------------------------------------------


def my_loop(task, client, tools, max_steps):
    system = "你是一个谨慎的助手，只根据工具结果回答。"
    messages = [{"role": "system", "content": system}, {"role": "user", "content": task}]
    for _ in range(max_steps):
        completion = client.chat.completions.create(
            model="agentlab-scripted", messages=messages, tools=tools.schemas()
        )
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
            return messages
        for tc in reply.tool_calls:
            result = tools.call(tc.function.name, tc.function.arguments)
            content = json.dumps(result, ensure_ascii=False)
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": content})
    return messages


LOOP_SCENARIOS = (HONEST, TOOL_ERROR, TWO_CALLS, UNKNOWN_TOOL, NEVER_STOPS, NEVER_STOPS_TWO_CALLS)


def prepare_loop() -> None:
    for scenario in LOOP_SCENARIOS:
        reference_run(scenario)


def check_loop(answer: Any) -> Verdict:
    need_callable(answer, "my_loop")
    for scenario in LOOP_SCENARIOS:
        ref, ending = reference_run(scenario)
        got = student_run(answer, scenario, "my_loop")
        compare(got, ref, scenario, ending)
        check_returned_messages(got.returned, ref, scenario, "my_loop")
    names = tr("list.sep").join(s.name for s in LOOP_SCENARIOS)
    return passed(tr("exercise.01-loop.passed", count=len(LOOP_SCENARIOS), names=names))


# -- 01-history: seed 003, checklist 1 ---------------------------------------------------


def history_lengths(task, client, tools):
    run_agent(task, client=client, tools=tools)
    return [len(request.messages) for request in client.requests]


def check_history(answer: Any) -> Verdict:
    need_callable(answer, "history_lengths")
    first = None
    # the two-calls task: a round adds one message per tool call, not always two
    for scenario in (HONEST, TOOL_ERROR, TWO_CALLS):
        task, client = scenario.task, scenario.client()
        with sandbox() as (_, tools):
            run_agent(task, client=client, tools=tools, trace_dir=False)
        expected = [len(r.messages) for r in client.requests]
        first = first or expected
        given = scenario.client()
        with sandbox() as (_, tools):
            what = tr("exercise.01-history.what", task=task)
            got = run_student(answer, task, given, tools, what=what)
        if not given.requests:  # never ran, or ran a client of its own
            return wrong(tr("exercise.01-history.client_unused", task=task))
        if not isinstance(got, list | tuple) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in got
        ):
            return wrong(tr("exercise.need_int_list", got=type_name(got)))
        if len(got) != len(expected):
            return wrong(
                tr("exercise.01-history.count", task=task, requests=len(expected), got=len(got))
            )
        for k, (mine, theirs) in enumerate(zip(got, expected, strict=True), start=1):
            if mine != theirs:
                return wrong(
                    tr("exercise.01-history.length", task=task, k=k, expected=theirs, got=mine)
                )
    return passed(tr("exercise.01-history.passed", lengths=shown(first)))


# -- predict, then run: seed 003, checklist 2 to 4 ---------------------------------------

PREDICT_MISSING = {
    "status": "completed",
    "outcome": "completed",
    "stop_reason": "answered",
    "steps": 5,
    "tools": ["read_text", "list_dir", "read_text", "write_text"],
}


def check_predict_missing(answer: Any) -> Verdict:
    need_prediction(answer, list(PREDICT_MISSING))
    with sandbox() as (_, tools):
        run = run_agent(
            TOOL_ERROR.task, client=scripted("todo_clerk"), tools=tools, trace_dir=False
        )
    tools_called = [r["tool"] for r in run.tool_results]
    actual = {**_endings(run), "steps": run.steps, "tools": tools_called}
    return predict("01-predict-missing", answer, actual)


def _endings(run: Any) -> dict[str, Any]:
    return {"status": run.status, "outcome": run.outcome, "stop_reason": run.stop_reason}


PREDICT_CAP2 = {
    "status": "failed",
    "outcome": "budget_exhausted",
    "stop_reason": "max_steps",
    "steps": 2,
    "file_written": True,
}


def check_predict_cap2(answer: Any) -> Verdict:
    need_prediction(answer, list(PREDICT_CAP2))
    with sandbox() as (box, tools):
        budget = Budget(max_steps=2)
        client = scripted("todo_clerk")
        run = run_agent(TODO_TASK, client=client, tools=tools, budget=budget, trace_dir=False)
        written = (box / "todo-list.md").exists()
    actual = {**_endings(run), "steps": run.steps, "file_written": written}
    return predict("01-predict-cap2", answer, actual)


PREDICT_ESCAPE = {
    "error_code": "PATH_NOT_ALLOWED",
    "stop_reason": "policy_denied",
    "outcome": "tool_error",
    "steps": 1,
}


def check_predict_escape(answer: Any) -> Verdict:
    need_prediction(answer, list(PREDICT_ESCAPE))
    with sandbox() as (_, tools):
        task = "读一下 ../mini_agent.py"
        run = run_agent(task, client=scripted("todo_clerk"), tools=tools, trace_dir=False)
    actual = {
        "error_code": (run.tool_results[0]["result"]["error"] or {}).get("code"),
        "stop_reason": run.stop_reason,
        "outcome": run.outcome,
        "steps": run.steps,
    }
    return predict("01-predict-escape", answer, actual)


# -- 01-append-text: seed 003, checklist 5 -----------------------------------------------


def add_append_text(registry, box):
    def append_text(rel_path, text):
        path = resolve_inside(box, rel_path)
        if isinstance(path, dict):  # PATH_NOT_ALLOWED, already a tool result
            return path
        with path.open("a", encoding="utf-8") as handle:
            handle.write(text)
        return ok({"path": rel_path, "chars": len(text)}, [rel_path])

    schema = {
        "properties": {
            "rel_path": {"type": "string", "description": "沙盒内的相对路径"},
            "text": {"type": "string", "description": "要追加的文本"},
        },
        "required": ["text", "rel_path"],
    }
    registry.register(
        Tool("append_text", "在沙盒内的文件末尾追加文本，文件不存在时创建", schema, append_text)
    )


APPENDED = "TODO 会后补充：整理回滚预案\n"


def _library_functions_used(function: Any) -> list[str]:
    """Names of the library's ready-made file writers a function reaches: through its
    globals, a module it imported (``F.append_text``), or an import inside it."""
    ready_made = {library_files.append_text, library_files.write_text}
    found, codes = [], [getattr(function, "__code__", None)]
    namespace = getattr(function, "__globals__", {})
    while codes:
        code = codes.pop()
        if code is None:
            continue
        found += [name for name in code.co_names if namespace.get(name) in ready_made]
        # The same reached another way: F.append_text (F a module), or an import inside.
        loaded, imported = "", ""  # the global just loaded; the module just imported
        for step in dis.get_instructions(code):
            if step.opname in ("LOAD_ATTR", "LOAD_METHOD") and loaded:
                owner, where = loaded, namespace.get(loaded)
            elif step.opname == "IMPORT_FROM":
                owner, where = imported, sys.modules.get(imported)
            else:
                owner, where = "", None
            if owner and getattr(where, step.argval, None) in ready_made:
                found.append(f"{owner}.{step.argval}")
            if step.opname == "IMPORT_NAME":
                imported = step.argval
            loaded = step.argval if step.opname == "LOAD_GLOBAL" else ""
        codes.extend(c for c in code.co_consts if hasattr(c, "co_names"))
    return sorted(set(found))


class RecordingRegistry(ToolRegistry):
    """A registry that remembers the Tool objects registered into it."""

    def __init__(self) -> None:
        super().__init__()
        self.registered: dict[str, Tool] = {}

    def register(self, tool: Tool) -> Tool:
        registered = super().register(tool)
        self.registered[tool.name] = tool
        return registered


def check_append_text(answer: Any) -> Verdict:
    need_callable(answer, "add_append_text")
    box = sandbox_copy()
    # A tool that forgets box writes into the current folder: let that be an empty one of
    # ours, not the student's notebooks/ (and see there what it wrote).
    workdir = box.parent / "cwd"
    workdir.mkdir()
    try:
        with contextlib.chdir(workdir):
            return _check_append_text(answer, box)
    finally:
        shutil.rmtree(box.parent, ignore_errors=True)


def _check_append_text(answer: Any, box: Path) -> Verdict:
    registry = RecordingRegistry()
    run_student(answer, registry, box, what=tr("exercise.01-append-text.what_register"))
    tool = registry.registered.get("append_text")
    if tool is None:
        return wrong(tr("exercise.01-append-text.not_registered", names=registry.names))
    schema = tool.strict_parameters()
    required = schema.get("required") or []
    for field in ("rel_path", "text"):
        if field not in required:
            return wrong(tr("exercise.01-append-text.not_required", field=field))
        if (schema.get("properties") or {}).get(field, {}).get("type") != "string":
            return wrong(tr("exercise.01-append-text.not_string", field=field))
    used = _library_functions_used(tool.function)
    if used:
        return wrong(tr("exercise.01-append-text.library", names=", ".join(used)))

    def use(rel_path: str, text: str) -> dict[str, Any]:
        arguments = json.dumps({"rel_path": rel_path, "text": text}, ensure_ascii=False)
        what = tr("exercise.01-append-text.what_call", path=shown(rel_path))
        result = run_student(registry.call, "append_text", arguments, what=what)
        message = str(((result or {}).get("error") or {}).get("message", ""))
        if "NotImplementedError" in message:  # registered, but the body is still the starter's
            raise Judged(not_done(tr("exercise.01-append-text.body_starter")))
        return result

    before = (box / "meeting.md").read_text(encoding="utf-8")
    result = use("meeting.md", APPENDED)
    if _code(result) != "ok":
        return wrong(tr("exercise.01-append-text.failed", path="meeting.md", result=_said(result)))
    after = (box / "meeting.md").read_text(encoding="utf-8")
    if after == before and Path("meeting.md").exists():  # relative to the current folder
        return wrong(tr("exercise.01-append-text.wrote_in_cwd"))
    if after == APPENDED:
        return wrong(tr("exercise.01-append-text.overwrote"))
    if after != before + APPENDED:
        return wrong(tr("exercise.01-append-text.not_appended", got=shown(after[-60:])))
    result = use("new.md", "第一行\n")
    if _code(result) != "ok" or not (box / "new.md").is_file():
        return wrong(tr("exercise.01-append-text.not_created", result=_said(result)))
    # ../<box>.md: a check that only compares the start of the path text lets it through
    escapes = (
        ("relative", "../escape.md", shown("../escape.md")),
        ("prefix", f"../{box.name}.md", shown(f"../{box.name}.md")),
        ("absolute", str(box.parent / "absolute.md"), shown("/…/absolute.md")),
    )
    for kind, outside, label in escapes:
        result = use(outside, "不该写到沙盒外面\n")
        leaked = any((box / path).resolve().exists() for _, path, _ in escapes)
        refused = _code(result) == "PATH_NOT_ALLOWED"
        errored = isinstance(result, dict) and result.get("status") == "error"
        if not leaked and errored and not refused:
            key = "exercise.01-append-text.escape_other_error"  # refused, with another code
            return wrong(tr(key, path=label, result=_said(result)))
        if leaked or not refused:
            key = f"exercise.01-append-text.escaped_{kind}"
            return wrong(tr(key, path=label, result=_said(result)))
    return passed(tr("exercise.01-append-text.passed"))


def _said(result: Any) -> str:
    """A tool result in a few words: its error code and the registry's message, or "ok"."""
    code = _code(result)
    message = ((result.get("error") or {}) if isinstance(result, dict) else {}).get("message")
    if code == "ok" or not message:
        return code
    return tr("exercise.01-append-text.said", code=code, message=clean(str(message), 120))


def _code(result: Any) -> str:
    if not isinstance(result, dict):
        return type_name(result)
    if result.get("status") == "ok":
        return "ok"
    return str((result.get("error") or {}).get("code"))


# -- 01-fragments ------------------------------------------------------------------------


def join_fragments(fragments):
    calls = {}  # index -> the call being assembled
    for piece in fragments:
        slot = calls.setdefault(piece["index"], {"id": None, "name": None, "arguments": ""})
        if piece["id"]:
            slot["id"] = piece["id"]
        if piece["name"]:
            slot["name"] = piece["name"]
        slot["arguments"] += piece["arguments"] or ""
    return [calls[index] for index in sorted(calls)]


FRAGMENT_REPLIES = (
    (
        Reply(
            content="我先读两个文件。",
            tool_calls=(
                ToolCall("read_text", {"rel_path": "meeting.md"}),
                ToolCall("list_dir", {"rel_path": "."}),
            ),
        ),
        Chunking(argument_size=5),
    ),
    (
        Reply(
            tool_calls=(
                ToolCall("read_text", {"rel_path": "a.md"}),
                ToolCall("write_text", {"rel_path": "todo-list.md", "text": "TODO 一\nTODO 二\n"}),
                ToolCall("list_dir"),
            )
        ),
        Chunking(argument_size=3),
    ),
)


def stream_fragments(reply: Reply, chunking: Chunking) -> list[dict[str, Any]]:
    """The tool-call fragments of ``reply`` as the openai SDK hands them over when streaming."""
    client = ScriptedClient([reply], chunking=chunking)
    stream = client.chat.completions.create(
        model="agentlab-scripted", messages=[{"role": "user", "content": "x"}], stream=True
    )
    fragments = []
    for chunk in stream:
        for choice in chunk.choices:
            for piece in choice.delta.tool_calls or []:
                function = piece.function
                fragments.append(
                    {
                        "index": piece.index,
                        "id": piece.id,
                        "name": function.name if function else None,
                        "arguments": function.arguments if function else None,
                    }
                )
    return fragments


# The prompt says a field a piece does not carry is None: some services send arguments=None
# in the first piece (the SDK's own stream above always sends ""), so one set is hand-made.
NONE_FIRST = (
    {"index": 0, "id": "call_9_0", "name": "list_dir", "arguments": None},
    {"index": 0, "id": None, "name": None, "arguments": '{"rel_path": '},
    {"index": 0, "id": None, "name": None, "arguments": '"."}'},
)


def fragment_sets() -> list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """(fragments, the calls they make) for each set the check joins."""
    sets = []
    for reply, chunking in FRAGMENT_REPLIES:
        expected = [
            {"id": f"call_1_{i}", "name": tc.name, "arguments": tc.arguments_json()}
            for i, tc in enumerate(reply.tool_calls)
        ]
        sets.append((stream_fragments(reply, chunking), expected))
    joined = {"id": "call_9_0", "name": "list_dir", "arguments": '{"rel_path": "."}'}
    sets.append(([dict(f) for f in NONE_FIRST], [joined]))
    return sets


def check_fragments(answer: Any) -> Verdict:
    need_callable(answer, "join_fragments")
    for number, (fragments, expected) in enumerate(fragment_sets(), start=1):
        what = tr("exercise.01-fragments.what", n=number)
        try:
            got = run_student(answer, [dict(f) for f in fragments], what=what)
        except Judged:
            if fragments[0]["arguments"] is not None:
                raise
            return wrong(tr("exercise.01-fragments.none_arguments", n=number))
        if not isinstance(got, list | tuple) or not all(isinstance(c, dict) for c in got):
            return wrong(tr("exercise.need_dict_list", got=type_name(got)))
        if len(got) != len(expected):
            key, pieces = "exercise.01-fragments.count", len(fragments)
            return wrong(tr(key, n=number, pieces=pieces, expected=len(expected), got=len(got)))
        for mine, theirs in zip(got, expected, strict=True):
            if "function" in mine and "name" not in mine:  # the history's shape, not this one
                return wrong(tr("exercise.01-fragments.nested", n=number))
            for key in ("id", "name", "arguments"):
                if mine.get(key) != theirs[key]:
                    return wrong(
                        tr(
                            "exercise.01-fragments.field",
                            n=number,
                            call=theirs["id"],
                            field=key,
                            expected=shown(theirs[key]),
                            got=shown(mine.get(key)),
                        )
                    )
    # The second call's pieces first: the list is still in index order, not arrival order.
    reply, chunking = FRAGMENT_REPLIES[0]
    late_first = sorted(stream_fragments(reply, chunking), key=lambda f: -(f["index"] or 0))
    what = tr("exercise.01-fragments.what_late")
    got = run_student(answer, [dict(f) for f in late_first], what=what)
    names = [c.get("name") for c in got] if isinstance(got, list | tuple) else None
    if names != [tc.name for tc in reply.tool_calls]:
        return wrong(tr("exercise.01-fragments.order", got=shown(names)))
    return passed(tr("exercise.01-fragments.passed", n=len(FRAGMENT_REPLIES) + 1))


EXERCISES = [
    Exercise("01-loop", check_loop, my_loop, prepare_loop),
    Exercise("01-history", check_history, history_lengths),
    Exercise("01-predict-missing", check_predict_missing, PREDICT_MISSING),
    Exercise("01-predict-cap2", check_predict_cap2, PREDICT_CAP2),
    Exercise("01-predict-escape", check_predict_escape, PREDICT_ESCAPE),
    Exercise("01-append-text", check_append_text, add_append_text),
    Exercise("01-fragments", check_fragments, join_fragments),
]

"""Chapter 01 exercises: the loop, the history, streamed fragments, adding a tool.

Seed 003's hands-on checklist is here as exercises the student does: run
the TODO task and count the messages per request (``01-history``), a missing
file (``01-predict-missing``), ``max_steps=2`` on a three-step task
(``01-predict-cap2``), ``../mini_agent.py`` (``01-predict-escape``) and
writing ``append_text`` (``01-append-text``).

Checks only; reference and wrong answers live in ``solutions.py`` and
``wrong.py``.
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
from ...tools import Tool, ToolRegistry, sandbox_copy
from ...tools import files as library_files
from . import solutions, wrong
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
    run_student,
    shown,
    type_name,
)
from .core import wrong as wrong_verdict
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
from .texts import tr

# -- 01-loop ---------------------------------------------------------------------

LOOP_STARTER = '''\
import json

def my_loop(task, client, tools, max_steps):
    """你的 Agent 循环：返回完整的 messages 列表（最后一条是模型的最终回答）。"""
    system = "你是一个谨慎的助手，只根据工具结果回答。"
    messages = [{"role": "system", "content": system}, {"role": "user", "content": task}]
    # 最多请求 max_steps 次模型，每次：
    #   response = client.chat.completions.create(
    #       model="agentlab-scripted", messages=messages, tools=tools.schemas())
    #   reply = response.choices[0].message
    # 1) 把 assistant 消息放回 messages（有 reply.tool_calls 时连同 tool_calls 一起）
    # 2) reply 没有 tool_calls：这就是最终回答，返回 messages
    # 3) 否则对每个调用 result = tools.call(名字, 参数 JSON 字符串)，然后追加一条 tool 消息：
    #    {"role": "tool", "tool_call_id": 调用的 id,
    #     "content": json.dumps(result, ensure_ascii=False)}
    raise NotImplementedError("在这里写循环")
'''

LOOP_SCENARIOS = (HONEST, TOOL_ERROR, TWO_CALLS, UNKNOWN_TOOL, NEVER_STOPS, NEVER_STOPS_TWO_CALLS)


def check_loop(answer: Any) -> Verdict:
    need_callable(answer, "my_loop")
    for scenario in LOOP_SCENARIOS:
        ref, ending = reference_run(scenario)
        got = student_run(answer, scenario, "my_loop")
        compare(got, ref, scenario, ending)
        check_returned_messages(got.returned, ref, scenario, "my_loop")
    names = tr("list.sep").join(s.name for s in LOOP_SCENARIOS)
    return passed(tr("exercise.01-loop.passed", count=len(LOOP_SCENARIOS), names=names))


# -- 01-history: seed 003, checklist 1 -----------------------------------------------

HISTORY_STARTER = '''\
from agentlab import run_agent

def history_lengths(task, client, tools):
    """用 run_agent 跑一遍 task，返回每一次模型请求时 messages 的条数，例如 [2, 4, ...]。"""
    # 提示：ScriptedClient 把收到的每一次请求记在 client.requests 里，
    #       每个请求的 .messages 就是那一次发给模型的完整历史。
    raise NotImplementedError("在这里写")
'''


def check_history(answer: Any) -> Verdict:
    need_callable(answer, "history_lengths")
    first = None
    # the two-calls task: a round adds one message per tool call, not always two
    for scenario in (HONEST, TOOL_ERROR, TWO_CALLS):
        task = scenario.task
        client = scenario.client()
        with sandbox() as (_, tools):
            run_agent(task, client=client, tools=tools, trace_dir=False)
        expected = [len(r.messages) for r in client.requests]
        first = first or expected
        given = scenario.client()
        with sandbox() as (_, tools):
            got = run_student(
                answer, task, given, tools, what=tr("exercise.01-history.what", task=task)
            )
        if not given.requests:  # never ran, or ran a client of its own
            return wrong_verdict(tr("exercise.01-history.client_unused", task=task))
        if not isinstance(got, list | tuple) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in got
        ):
            return wrong_verdict(tr("exercise.need_int_list", got=type_name(got)))
        if len(got) != len(expected):
            return wrong_verdict(
                tr("exercise.01-history.count", task=task, requests=len(expected), got=len(got))
            )
        for k, (mine, theirs) in enumerate(zip(got, expected, strict=True), start=1):
            if mine != theirs:
                return wrong_verdict(
                    tr("exercise.01-history.length", task=task, k=k, expected=theirs, got=mine)
                )
    return passed(tr("exercise.01-history.passed", lengths=shown(first)))


# -- predict, then run ----------------------------------------------------------------


PREDICT_MISSING_STARTER = """\
# 任务把文件名写错了：meeting-notes.md（沙盒里只有 meeting.md）。先预测，再运行检查。
prediction_missing = {
    "status": ...,       # 运行状态："completed" 还是 "failed"？
    "outcome": ...,      # 结局：completed / tool_error / budget_exhausted / model_error
    "stop_reason": ...,  # 停止原因，例如 "answered"、"max_steps"
    "steps": ...,        # 一共几步（几次模型请求）？
    "tools": ...,        # 按顺序调用了哪些工具，例如 ["read_text", "write_text"]
}
"""


def check_predict_missing(answer: Any) -> Verdict:
    need_prediction(answer, ["status", "outcome", "stop_reason", "steps", "tools"])
    with sandbox() as (_, tools):
        run = run_agent(
            TOOL_ERROR.task, client=scripted("todo_clerk"), tools=tools, trace_dir=False
        )
    actual = {
        "status": run.status,
        "outcome": run.outcome,
        "stop_reason": run.stop_reason,
        "steps": run.steps,
        "tools": [r["tool"] for r in run.tool_results],
    }
    return predict("01-predict-missing", answer, actual)


PREDICT_CAP2_STARTER = """\
# 读 → 写 → 汇报 需要 3 步；这次只给 max_steps=2。先预测，再运行检查。
prediction_cap2 = {
    "status": ...,
    "outcome": ...,
    "stop_reason": ...,
    "steps": ...,
    "file_written": ...,  # todo-list.md 写出来了吗？True / False
}
"""


def check_predict_cap2(answer: Any) -> Verdict:
    need_prediction(answer, ["status", "outcome", "stop_reason", "steps", "file_written"])
    with sandbox() as (box, tools):
        run = run_agent(
            TODO_TASK,
            client=scripted("todo_clerk"),
            tools=tools,
            budget=Budget(max_steps=2),
            trace_dir=False,
        )
        written = (box / "todo-list.md").exists()
    actual = {
        "status": run.status,
        "outcome": run.outcome,
        "stop_reason": run.stop_reason,
        "steps": run.steps,
        "file_written": written,
    }
    return predict("01-predict-cap2", answer, actual)


PREDICT_ESCAPE_STARTER = """\
# 任务是“读一下 ../mini_agent.py”，用 run_agent 的默认设置。先预测，再运行检查。
prediction_escape = {
    "error_code": ...,   # 工具结果里的错误码
    "stop_reason": ...,
    "outcome": ...,
    "steps": ...,
}
"""


def check_predict_escape(answer: Any) -> Verdict:
    need_prediction(answer, ["error_code", "stop_reason", "outcome", "steps"])
    with sandbox() as (_, tools):
        run = run_agent(
            "读一下 ../mini_agent.py", client=scripted("todo_clerk"), tools=tools, trace_dir=False
        )
    actual = {
        "error_code": (run.tool_results[0]["result"]["error"] or {}).get("code"),
        "stop_reason": run.stop_reason,
        "outcome": run.outcome,
        "steps": run.steps,
    }
    return predict("01-predict-escape", answer, actual)


# -- 01-append-text: seed 003, checklist 5 --------------------------------------------

APPEND_STARTER = '''\
from agentlab.tools import Tool, error, ok, resolve_inside

def add_append_text(registry, box):
    """把工具 append_text 加进 registry：函数、schema、注册，三处都在这里写。"""

    # 1) 函数：只能写 box 里面的文件
    def append_text(rel_path, text):
        # path = resolve_inside(box, rel_path) 返回 Path，或一个 PATH_NOT_ALLOWED 的错误结果（dict）
        # 文件不存在时创建；以追加模式写入；返回 ok({...})
        raise NotImplementedError("在这里写函数")

    # 2) schema：参数 rel_path 和 text，都是字符串，都必填
    schema = ...

    # 3) 注册：registry.register(Tool("append_text", "说明", schema, append_text))
    raise NotImplementedError("在这里注册")
'''

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


class RecordingRegistry(ToolRegistry):
    """A registry that remembers the Tool objects registered into it."""

    def __init__(self) -> None:
        super().__init__()
        self.registered: dict[str, Tool] = {}

    def register(self, tool: Tool) -> Tool:
        registered = super().register(tool)
        self.registered[tool.name] = tool
        return registered


def _check_append_text(answer: Any, box: Any) -> Verdict:
    registry = RecordingRegistry()
    run_student(answer, registry, box, what=tr("exercise.01-append-text.what_register"))
    tool = registry.registered.get("append_text")
    if tool is None:
        return wrong_verdict(tr("exercise.01-append-text.not_registered", names=registry.names))
    schema = tool.strict_parameters()
    required = schema.get("required") or []
    for field in ("rel_path", "text"):
        if field not in required:
            return wrong_verdict(tr("exercise.01-append-text.not_required", field=field))
        if (schema.get("properties") or {}).get(field, {}).get("type") != "string":
            return wrong_verdict(tr("exercise.01-append-text.not_string", field=field))
    used = _library_functions_used(tool.function)
    if used:
        return wrong_verdict(tr("exercise.01-append-text.library", names=", ".join(used)))

    def use(rel_path: str, text: str) -> dict[str, Any]:
        arguments = {"rel_path": rel_path, "text": text}
        result = run_student(
            registry.call,
            "append_text",
            _json(arguments),
            what=tr("exercise.01-append-text.what_call", path=shown(rel_path)),
        )
        message = str(((result or {}).get("error") or {}).get("message", ""))
        if "NotImplementedError" in message:  # registered, but the body is still the starter's
            raise Judged(not_done(tr("exercise.01-append-text.body_starter")))
        return result

    before = (box / "meeting.md").read_text(encoding="utf-8")
    result = use("meeting.md", APPENDED)
    if _status(result) != "ok":
        return wrong_verdict(
            tr("exercise.01-append-text.failed", path="meeting.md", result=_said(result))
        )
    after = (box / "meeting.md").read_text(encoding="utf-8")
    if after == before and Path("meeting.md").exists():  # relative to the current folder
        return wrong_verdict(tr("exercise.01-append-text.wrote_in_cwd"))
    if after == APPENDED:
        return wrong_verdict(tr("exercise.01-append-text.overwrote"))
    if after != before + APPENDED:
        return wrong_verdict(tr("exercise.01-append-text.not_appended", got=shown(after[-60:])))
    result = use("new.md", "第一行\n")
    if _status(result) != "ok" or not (box / "new.md").is_file():
        return wrong_verdict(tr("exercise.01-append-text.not_created", result=_said(result)))
    # ../<box>.md: a check that only compares the start of the path text lets it through
    escapes = (
        ("relative", "../escape.md", shown("../escape.md")),
        ("prefix", f"../{box.name}.md", shown(f"../{box.name}.md")),
        ("absolute", str(box.parent / "absolute.md"), shown("/…/absolute.md")),
    )
    for kind, outside, label in escapes:
        result = use(outside, "不该写到沙盒外面\n")
        leaked = any((box / path).resolve().exists() for _, path, _ in escapes)
        if not leaked and _status(result) == "error" and _code(result) != "PATH_NOT_ALLOWED":
            return wrong_verdict(
                tr("exercise.01-append-text.escape_other_error", path=label, result=_said(result))
            )
        if leaked or _code(result) != "PATH_NOT_ALLOWED":
            return wrong_verdict(
                tr(f"exercise.01-append-text.escaped_{kind}", path=label, result=_said(result))
            )
    return passed(tr("exercise.01-append-text.passed"))


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _status(result: Any) -> Any:
    return result.get("status") if isinstance(result, dict) else None


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

FRAGMENTS_STARTER = '''\
def join_fragments(fragments):
    """把流式 tool_calls 碎片拼回完整调用。

    fragments 是按到达顺序排好的字典列表，每个都有 "index"、"id"、"name"、"arguments"
    （这一片没带的字段是 None）。返回按 index 排序的
    [{"id": ..., "name": ..., "arguments": 完整的 JSON 字符串}, ...]。
    """
    raise NotImplementedError("在这里写")
'''

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
            return wrong_verdict(tr("exercise.01-fragments.none_arguments", n=number))
        if not isinstance(got, list | tuple) or not all(isinstance(c, dict) for c in got):
            return wrong_verdict(tr("exercise.need_dict_list", got=type_name(got)))
        if len(got) != len(expected):
            return wrong_verdict(
                tr(
                    "exercise.01-fragments.count",
                    n=number,
                    pieces=len(fragments),
                    expected=len(expected),
                    got=len(got),
                )
            )
        for mine, theirs in zip(got, expected, strict=True):
            if "function" in mine and "name" not in mine:  # the history's shape, not this one
                return wrong_verdict(tr("exercise.01-fragments.nested", n=number))
            for key in ("id", "name", "arguments"):
                if mine.get(key) != theirs[key]:
                    return wrong_verdict(
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
    got = run_student(
        answer, [dict(f) for f in late_first], what=tr("exercise.01-fragments.what_late")
    )
    names = [c.get("name") for c in got] if isinstance(got, list | tuple) else None
    if names != [tc.name for tc in reply.tool_calls]:
        return wrong_verdict(tr("exercise.01-fragments.order", got=shown(names)))
    return passed(tr("exercise.01-fragments.passed", n=len(FRAGMENT_REPLIES) + 1))


EXERCISES = [
    Exercise(
        "01-loop",
        "01",
        "code",
        "my_loop",
        LOOP_STARTER,
        check_loop,
        solutions.my_loop,
        wrong.LOOP,
    ),
    Exercise(
        "01-history",
        "01",
        "code",
        "history_lengths",
        HISTORY_STARTER,
        check_history,
        solutions.history_lengths,
        wrong.HISTORY,
    ),
    Exercise(
        "01-predict-missing",
        "01",
        "predict",
        "prediction_missing",
        PREDICT_MISSING_STARTER,
        check_predict_missing,
        solutions.PREDICT_MISSING,
        wrong.PREDICT_MISSING,
    ),
    Exercise(
        "01-predict-cap2",
        "01",
        "predict",
        "prediction_cap2",
        PREDICT_CAP2_STARTER,
        check_predict_cap2,
        solutions.PREDICT_CAP2,
        wrong.PREDICT_CAP2,
    ),
    Exercise(
        "01-predict-escape",
        "01",
        "predict",
        "prediction_escape",
        PREDICT_ESCAPE_STARTER,
        check_predict_escape,
        solutions.PREDICT_ESCAPE,
        wrong.PREDICT_ESCAPE,
    ),
    Exercise(
        "01-append-text",
        "01",
        "code",
        "add_append_text",
        APPEND_STARTER,
        check_append_text,
        solutions.add_append_text,
        wrong.APPEND_TEXT,
    ),
    Exercise(
        "01-fragments",
        "01",
        "code",
        "join_fragments",
        FRAGMENTS_STARTER,
        check_fragments,
        solutions.join_fragments,
        wrong.FRAGMENTS,
    ),
]

"""Plausible wrong answers: each exercise's check must catch every one of them.

These are the mistakes students really make (many are listed in the seeds
and the teaching review): a tool message without ``tool_call_id``, the cap
checked after the request, a per-phase timeout instead of one deadline, a
repeat key that does not sort its keys... ``python -m agentlab.course.exercises
verify`` and ``tests/test_exercises.py`` run every check on every answer here
and require that each fails, each with its own message.

The chapter modules (``ch01.py`` … ``ch05.py``) import it to name each
exercise's wrong answers, and chapter 02's stub-test check runs a
student's test against the wrong loops here. Students never need to import it.
"""

from __future__ import annotations

import concurrent.futures
import json
import time

from agentlab import run_agent
from agentlab.clients import ScriptedClient, call
from agentlab.deadline import run_within
from agentlab.tools import Tool, error, ok, resolve_inside, sales_tools
from agentlab.tools import files as library_files
from agentlab.tools.files import append_text as library_append_text
from agentlab.tools.files import path_param, text_param

from . import solutions
from .core import Wrong

# -- chapter 01: the loop -------------------------------------------------------------


def _assistant(reply):
    message = {"role": "assistant", "content": reply.content}
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


def _ask(client, messages, tools):
    completion = client.chat.completions.create(
        model="agentlab-scripted", messages=messages, tools=tools.schemas()
    )
    return completion.choices[0].message


def _start(task):
    return [{"role": "system", "content": "助手"}, {"role": "user", "content": task}]


def _result(tools, tc):
    return json.dumps(tools.call(tc.function.name, tc.function.arguments), ensure_ascii=False)


def loop_without_tool_call_id(task, client, tools, max_steps):
    messages = _start(task)
    for _ in range(max_steps):
        reply = _ask(client, messages, tools)
        messages.append(_assistant(reply))
        if not reply.tool_calls:
            return messages
        for tc in reply.tool_calls:
            messages.append({"role": "tool", "content": _result(tools, tc)})
    return messages


def loop_tool_before_assistant(task, client, tools, max_steps):
    messages = _start(task)
    for _ in range(max_steps):
        reply = _ask(client, messages, tools)
        if not reply.tool_calls:
            messages.append(_assistant(reply))
            return messages
        for tc in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": _result(tools, tc)})
        messages.append(_assistant(reply))
    return messages


def loop_without_assistant(task, client, tools, max_steps):
    messages = _start(task)
    for _ in range(max_steps):
        reply = _ask(client, messages, tools)
        if not reply.tool_calls:
            messages.append(_assistant(reply))
            return messages
        for tc in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": _result(tools, tc)})
    return messages


def loop_first_call_only(task, client, tools, max_steps):
    messages = _start(task)
    for _ in range(max_steps):
        reply = _ask(client, messages, tools)
        messages.append(_assistant(reply))
        if not reply.tool_calls:
            return messages
        tc = reply.tool_calls[0]
        messages.append({"role": "tool", "tool_call_id": tc.id, "content": _result(tools, tc)})
    return messages


def loop_cap_after_request(task, client, tools, max_steps):
    messages = _start(task)
    step = 0
    while True:
        reply = _ask(client, messages, tools)
        messages.append(_assistant(reply))
        if not reply.tool_calls:
            return messages
        for tc in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": _result(tools, tc)})
        if step >= max_steps:  # checked after the request: one request too many
            return messages
        step += 1


def loop_stops_on_content(task, client, tools, max_steps):
    messages = _start(task)
    for _ in range(max_steps):
        reply = _ask(client, messages, tools)
        messages.append(_assistant(reply))
        if reply.content:  # "the model said something, so it is done"
            return messages
        for tc in reply.tool_calls or []:
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": _result(tools, tc)})
    return messages


def loop_counts_tool_calls(task, client, tools, max_steps):
    messages = _start(task)
    calls_made = 0
    while calls_made < max_steps:  # a step is one request, not one tool call
        reply = _ask(client, messages, tools)
        messages.append(_assistant(reply))
        if not reply.tool_calls:
            return messages
        for tc in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": _result(tools, tc)})
            calls_made += 1
    return messages


def loop_without_cap(task, client, tools, max_steps):
    messages = _start(task)
    while True:
        reply = _ask(client, messages, tools)
        messages.append(_assistant(reply))
        if not reply.tool_calls:
            return messages
        for tc in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": _result(tools, tc)})


def loop_swallows_the_stop(task, client, tools, max_steps):
    messages = _start(task)
    while True:  # no cap; "whatever goes wrong with the request, stop and return"
        try:
            reply = _ask(client, messages, tools)
        except BaseException:
            return messages
        messages.append(_assistant(reply))
        if not reply.tool_calls:
            return messages
        for tc in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": _result(tools, tc)})


def loop_without_call_type(task, client, tools, max_steps):
    messages = _start(task)
    for _ in range(max_steps):
        reply = _ask(client, messages, tools)
        assistant = _assistant(reply)
        for tc in assistant.get("tool_calls", []):
            del tc["type"]  # "the id and the function are all the model needs"
        messages.append(assistant)
        if not reply.tool_calls:
            return messages
        for tc in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": _result(tools, tc)})
    return messages


def loop_calls_as_json_text(task, client, tools, max_steps):
    messages = _start(task)
    for _ in range(max_steps):
        reply = _ask(client, messages, tools)
        assistant = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:  # "the API speaks JSON, so send each call as JSON text"
            assistant["tool_calls"] = [tc.model_dump_json() for tc in reply.tool_calls]
        messages.append(assistant)
        if not reply.tool_calls:
            return messages
        for tc in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": _result(tools, tc)})
    return messages


def loop_tools_on_the_first_request_only(task, client, tools, max_steps):
    messages = _start(task)
    for step in range(max_steps):
        offered = {"tools": tools.schemas()} if step == 0 else {}  # "it knows them by now"
        completion = client.chat.completions.create(
            model="agentlab-scripted", messages=messages, **offered
        )
        reply = completion.choices[0].message
        messages.append(_assistant(reply))
        if not reply.tool_calls:
            return messages
        for tc in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": _result(tools, tc)})
    return messages


def loop_arguments_as_dicts(task, client, tools, max_steps):
    messages = _start(task)
    for _ in range(max_steps):
        reply = _ask(client, messages, tools)
        assistant = _assistant(reply)
        for tc in assistant.get("tool_calls", []):  # "tidier as a dict than as JSON text"
            tc["function"]["arguments"] = json.loads(tc["function"]["arguments"])
        messages.append(assistant)
        if not reply.tool_calls:
            return messages
        for tc in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": _result(tools, tc)})
    return messages


def loop_returns_a_pair(task, client, tools, max_steps):
    return solutions.capped_loop(task, client, tools, max_steps)  # chapter 02's, with the ending


LOOP = (
    Wrong("tool message without tool_call_id", loop_without_tool_call_id),
    Wrong("tool results appended before the assistant message", loop_tool_before_assistant),
    Wrong("assistant message never appended", loop_without_assistant),
    Wrong("only the first of two parallel calls answered", loop_first_call_only),
    Wrong("cap checked after the request (one request too many)", loop_cap_after_request),
    Wrong("stops when the reply has content, not when it has no tool_calls", loop_stops_on_content),
    Wrong("no step cap at all", loop_without_cap),
    Wrong("no step cap, and a bare except swallows the checker's stop", loop_swallows_the_stop),
    Wrong("counts tool calls, not requests, against the cap", loop_counts_tool_calls),
    Wrong(
        'tool_calls without "type": "function" (real services answer 400)', loop_without_call_type
    ),
    Wrong("each tool call sent as a JSON string, not a dict", loop_calls_as_json_text),
    Wrong("tools offered on the first request only", loop_tools_on_the_first_request_only),
    Wrong("function.arguments sent back as a dict, not the JSON text", loop_arguments_as_dicts),
    Wrong("returns (messages, ending), as chapter 02's capped_loop", loop_returns_a_pair),
)


def history_request_numbers(task, client, tools):
    run_agent(task, client=client, tools=tools)
    return [request.number for request in client.requests]


def history_final_length_only(task, client, tools):
    result = run_agent(task, client=client, tools=tools)
    return [len(result.messages)]


def history_two_per_round(task, client, tools):
    result = run_agent(task, client=client, tools=tools)
    return [2 + 2 * k for k in range(result.steps)]  # true only with one call per round


def history_of_its_own_client(task, client, tools):
    from agentlab.clients import scripted

    mine = scripted("todo_clerk")  # a client of its own: the one passed in is never asked
    run_agent(task, client=mine, tools=tools)
    return [len(request.messages) for request in client.requests]


HISTORY = (
    Wrong("request numbers instead of message counts", history_request_numbers),
    Wrong("a formula: two more messages every round", history_two_per_round),
    Wrong("only the final history length", history_final_length_only),
    Wrong("runs a client of its own, not the one passed in", history_of_its_own_client),
)

PREDICT_MISSING = (
    Wrong(
        "a tool error means the run failed",
        {**solutions.PREDICT_MISSING, "status": "failed", "outcome": "tool_error"},
    ),
    Wrong(
        "the model retries without looking around",
        {
            **solutions.PREDICT_MISSING,
            "steps": 4,
            "tools": ["read_text", "read_text", "write_text"],
        },
    ),
)

PREDICT_CAP2 = (
    Wrong(
        "the cap counts tool calls, so the report still comes",
        {**solutions.PREDICT_CAP2, "status": "completed", "outcome": "completed"},
    ),
    Wrong("nothing happens when the run fails", {**solutions.PREDICT_CAP2, "file_written": False}),
    Wrong("the right answer in quotes: 'True'", {**solutions.PREDICT_CAP2, "file_written": "True"}),
    Wrong("the right answer as 1, not True", {**solutions.PREDICT_CAP2, "file_written": 1}),
)

PREDICT_ESCAPE = (
    Wrong(
        "the refusal is fed back and the model answers (seed 003's loop)",
        {**solutions.PREDICT_ESCAPE, "stop_reason": "answered", "steps": 2},
    ),
    Wrong(
        "a missing file, not a refused path",
        {**solutions.PREDICT_ESCAPE, "error_code": "FILE_NOT_FOUND"},
    ),
)


# -- chapter 01: append_text ------------------------------------------------------------


def _register(registry, function, required=("rel_path", "text")):
    schema = {
        "properties": {"rel_path": {"type": "string"}, "text": {"type": "string"}},
        "required": list(required),
    }
    registry.register(Tool("append_text", "追加文本", schema, function))


def append_without_path_check(registry, box):
    def append_text(rel_path, text):
        with (box / rel_path).open("a", encoding="utf-8") as handle:
            handle.write(text)
        return ok({"path": rel_path})

    _register(registry, append_text)


def append_with_prefix_check(registry, box):
    def append_text(rel_path, text):
        path = (box / rel_path).resolve()
        if not str(path).startswith(str(box.resolve())):  # ../<box>.md starts the same
            return error("PATH_NOT_ALLOWED", f"{rel_path!r} is outside the sandbox")
        with path.open("a", encoding="utf-8") as handle:
            handle.write(text)
        return ok({"path": rel_path})

    _register(registry, append_text)


def append_overwrites(registry, box):
    def append_text(rel_path, text):
        path = resolve_inside(box, rel_path)
        if isinstance(path, dict):
            return path
        path.write_text(text, encoding="utf-8")  # "w": the old content is gone
        return ok({"path": rel_path})

    _register(registry, append_text)


def append_text_not_required(registry, box):
    def append_text(rel_path, text=""):
        path = resolve_inside(box, rel_path)
        if isinstance(path, dict):
            return path
        with path.open("a", encoding="utf-8") as handle:
            handle.write(text)
        return ok({"path": rel_path})

    _register(registry, append_text, required=("rel_path",))


def append_wraps_the_library(registry, box):
    """What chapter 01 showed before issue 15: the work is imported, not written."""

    def append_in_box(rel_path, text):
        return library_append_text(box, rel_path, text)

    schema = {
        "properties": {"rel_path": path_param(), "text": text_param()},
        "required": ["text", "rel_path"],
    }
    registry.register(Tool("append_text", "追加文本", schema, append_in_box))


def append_wraps_the_library_module(registry, box):
    """The same, the library reached through its module."""

    def append_in_box(rel_path, text):
        return library_files.append_text(box, rel_path, text)

    schema = {
        "properties": {"rel_path": path_param(), "text": text_param()},
        "required": ["text", "rel_path"],
    }
    registry.register(Tool("append_text", "追加文本", schema, append_in_box))


def append_refuses_with_its_own_code(registry, box):
    def append_text(rel_path, text):
        path = (box / rel_path).resolve()
        if not path.is_relative_to(box.resolve()):  # refused, but not as the course's tools do
            return error("OUTSIDE_SANDBOX", "this path is outside the sandbox")
        with path.open("a", encoding="utf-8") as handle:
            handle.write(text)
        return ok({"path": rel_path})

    _register(registry, append_text)


def append_forgets_the_box(registry, box):
    def append_text(rel_path, text):
        if ".." in rel_path or rel_path.startswith("/"):
            return error("PATH_NOT_ALLOWED", f"{rel_path!r} is outside the sandbox")
        with open(rel_path, "a", encoding="utf-8") as handle:  # box forgotten: the cwd
            handle.write(text)
        return ok({"path": rel_path})

    _register(registry, append_text)


APPEND_TEXT = (
    Wrong("no path check: ../ escapes the sandbox", append_without_path_check),
    Wrong("path text compared with startswith: ../<box>.md escapes", append_with_prefix_check),
    Wrong("opens with 'w': overwrites instead of appending", append_overwrites),
    Wrong("schema does not require text", append_text_not_required),
    Wrong("wraps the library's append_text instead of writing it", append_wraps_the_library),
    Wrong("the same through the module: files.append_text", append_wraps_the_library_module),
    Wrong(
        "refuses escapes with its own code, not PATH_NOT_ALLOWED", append_refuses_with_its_own_code
    ),
    Wrong(
        "opens rel_path as it is: writes in the current folder, not in box", append_forgets_the_box
    ),
)


# -- chapter 01: streamed fragments ------------------------------------------------------


def fragments_one_call(fragments):
    call = {"id": None, "name": None, "arguments": ""}
    for piece in fragments:
        call["id"] = call["id"] or piece["id"]
        call["name"] = call["name"] or piece["name"]
        call["arguments"] += piece["arguments"] or ""
    return [call]


def fragments_to_last_call(fragments):
    calls = []
    for piece in fragments:
        if piece["id"]:  # a new call starts; later pieces go to the newest one
            calls.append({"id": piece["id"], "name": piece["name"], "arguments": ""})
        calls[-1]["arguments"] += piece["arguments"] or ""
    return calls


def fragments_by_id(fragments):
    calls = {}
    for piece in fragments:
        slot = calls.setdefault(piece["id"], {"id": piece["id"], "name": None, "arguments": ""})
        slot["name"] = slot["name"] or piece["name"]
        slot["arguments"] += piece["arguments"] or ""
    return list(calls.values())


def fragments_in_arrival_order(fragments):
    calls = {}
    for piece in fragments:
        slot = calls.setdefault(piece["index"], {"id": None, "name": None, "arguments": ""})
        slot["id"] = slot["id"] or piece["id"]
        slot["name"] = slot["name"] or piece["name"]
        slot["arguments"] += piece["arguments"] or ""
    return list(calls.values())  # in the order the calls first arrived, not by index


def fragments_without_none_guard(fragments):
    calls = {}
    for piece in fragments:
        slot = calls.setdefault(
            piece["index"], {"id": piece["id"], "name": piece["name"], "arguments": ""}
        )
        slot["arguments"] += piece["arguments"]  # a piece may carry arguments=None
    return [calls[index] for index in sorted(calls)]


def fragments_in_the_api_shape(fragments):
    calls = {}
    for piece in fragments:  # the shape the history needs, not the one asked for here
        slot = calls.setdefault(
            piece["index"], {"id": None, "type": "function", "function": {"name": None}}
        )
        slot["id"] = slot["id"] or piece["id"]
        function = slot["function"]
        function["name"] = function["name"] or piece["name"]
        function["arguments"] = function.get("arguments", "") + (piece["arguments"] or "")
    return [calls[index] for index in sorted(calls)]


FRAGMENTS = (
    Wrong("every fragment joined into one call", fragments_one_call),
    Wrong("calls returned in arrival order, not by index", fragments_in_arrival_order),
    Wrong(
        "continuations appended to the newest call (breaks on interleaving)", fragments_to_last_call
    ),
    Wrong("joined by id (continuations carry no id)", fragments_by_id),
    Wrong("arguments += piece's arguments with no None guard", fragments_without_none_guard),
    Wrong(
        'the API\'s nested shape: {"function": {"name", "arguments"}}', fragments_in_the_api_shape
    ),
)


# -- chapter 02 --------------------------------------------------------------------------

PREDICT_CAP1 = (
    Wrong(
        "the cap counts tool calls, not requests",
        {
            **solutions.PREDICT_CAP1,
            "status": "completed",
            "outcome": "completed",
            "stop_reason": "answered",
            "steps": 2,
        },
    ),
    Wrong("no tool runs when the cap is hit", {**solutions.PREDICT_CAP1, "tool_calls": 0}),
)

PREDICT_FOUR_OK = (
    Wrong(
        "every tool said ok, so the run completed",
        {**solutions.PREDICT_FOUR_OK, "status": "completed", "outcome": "completed"},
    ),
    Wrong(
        "an ok-only run is a tool_error?",
        {**solutions.PREDICT_FOUR_OK, "outcome": "tool_error"},
    ),
    Wrong("the fifth reply still comes", {**solutions.PREDICT_FOUR_OK, "steps": 5}),
)

PREDICT_RECOVER = (
    Wrong(
        "any tool error makes the run fail",
        {**solutions.PREDICT_RECOVER, "status": "failed", "outcome": "tool_error"},
    ),
    Wrong("a recovered error is not counted", {**solutions.PREDICT_RECOVER, "tool_errors": 0}),
)

PREDICT_BOUNDARY = (
    Wrong(
        "an empty file is an invalid CSV",
        {
            **solutions.PREDICT_BOUNDARY,
            "empty.csv": "INVALID_CSV",
            "header_only.csv": "INVALID_CSV",
        },
    ),
    Wrong("negative quantities are accepted", {**solutions.PREDICT_BOUNDARY, "negative.csv": "ok"}),
    Wrong(
        "../ is just another missing file",
        {**solutions.PREDICT_BOUNDARY, "../sales.csv": "FILE_NOT_FOUND"},
    ),
)


def dispatch_without_whitelist(tools, name, arguments_json):
    arguments = json.loads(arguments_json) if arguments_json.strip() else {}
    return tools[name](**arguments)  # KeyError for a name nobody registered


def dispatch_trusts_json(tools, name, arguments_json):
    if name not in tools:
        return {
            "status": "error",
            "data": None,
            "source": [],
            "error": {"code": "UNKNOWN_TOOL", "message": name},
        }
    return tools[name](**json.loads(arguments_json or "{}"))


def dispatch_lets_tools_raise(tools, name, arguments_json):
    if name not in tools:
        return {
            "status": "error",
            "data": None,
            "source": [],
            "error": {"code": "UNKNOWN_TOOL", "message": name},
        }
    try:
        arguments = json.loads(arguments_json) if arguments_json.strip() else {}
    except json.JSONDecodeError:
        arguments = None
    if not isinstance(arguments, dict):
        return {
            "status": "error",
            "data": None,
            "source": [],
            "error": {"code": "INVALID_ARGUMENTS", "message": arguments_json},
        }
    return tools[name](**arguments)


def dispatch_key_error_is_unknown(tools, name, arguments_json):
    try:
        arguments = json.loads(arguments_json) if arguments_json.strip() else {}
    except json.JSONDecodeError:
        return error("INVALID_ARGUMENTS", "arguments are not valid JSON")
    if not isinstance(arguments, dict):
        return error("INVALID_ARGUMENTS", "arguments must be a JSON object")
    try:
        return tools[name](**arguments)
    except KeyError:  # meant for tools[name]; a tool's own KeyError lands here too
        return error("UNKNOWN_TOOL", name)
    except Exception as exc:
        return error("TOOL_EXCEPTION", str(exc))


def dispatch_falsy_is_empty(tools, name, arguments_json):
    if name not in tools:
        return error("UNKNOWN_TOOL", name)
    try:
        arguments = json.loads(arguments_json or "{}") or {}  # null and [] become {}
    except json.JSONDecodeError:
        return error("INVALID_ARGUMENTS", "arguments are not valid JSON")
    if not isinstance(arguments, dict):
        return error("INVALID_ARGUMENTS", "arguments must be a JSON object")
    try:
        return tools[name](**arguments)
    except Exception as exc:
        return error("TOOL_EXCEPTION", str(exc))


def dispatch_bare_dicts(tools, name, arguments_json):
    if name not in tools:
        return {"error": "UNKNOWN_TOOL"}  # not a tool result: no status, no message
    try:
        arguments = json.loads(arguments_json) if arguments_json.strip() else {}
    except json.JSONDecodeError:
        return {"error": "INVALID_ARGUMENTS"}
    if not isinstance(arguments, dict):
        return {"error": "INVALID_ARGUMENTS"}
    try:
        return tools[name](**arguments)
    except Exception:
        return {"error": "TOOL_EXCEPTION"}


DISPATCH = (
    Wrong("no whitelist: tools[name] raises KeyError", dispatch_without_whitelist),
    Wrong("broken JSON raises instead of INVALID_ARGUMENTS", dispatch_trusts_json),
    Wrong("a tool's own exception escapes", dispatch_lets_tools_raise),
    Wrong("except KeyError as UNKNOWN_TOOL: a tool's own KeyError", dispatch_key_error_is_unknown),
    Wrong('json.loads(text or "{}") or {}: null runs the tool', dispatch_falsy_is_empty),
    Wrong('bare {"error": code} dicts, not error(...) results', dispatch_bare_dicts),
)


def capped_one_extra(task, client, tools, max_steps):
    messages = _start(task)
    for _ in range(max_steps + 1):  # "up to and including max_steps"
        reply = _ask(client, messages, tools)
        messages.append(_assistant(reply))
        if not reply.tool_calls:
            return messages, "answered"
        for tc in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": _result(tools, tc)})
    return messages, "max_steps"


def capped_one_short(task, client, tools, max_steps):
    messages = _start(task)
    for _ in range(1, max_steps):  # "steps 1 to max_steps"
        reply = _ask(client, messages, tools)
        messages.append(_assistant(reply))
        if not reply.tool_calls:
            return messages, "answered"
        for tc in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": _result(tools, tc)})
    return messages, "max_steps"


def capped_cap_before_answer(task, client, tools, max_steps):
    messages = _start(task)
    for step in range(max_steps):
        reply = _ask(client, messages, tools)
        messages.append(_assistant(reply))
        if step == max_steps - 1:  # the last step is "over budget", even with an answer
            return messages, "max_steps"
        if not reply.tool_calls:
            return messages, "answered"
        for tc in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": _result(tools, tc)})
    return messages, "max_steps"


def capped_always_answered(task, client, tools, max_steps):
    messages = _start(task)
    for _ in range(max_steps):
        reply = _ask(client, messages, tools)
        messages.append(_assistant(reply))
        if not reply.tool_calls:
            break
        for tc in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": _result(tools, tc)})
    return messages, "answered"  # whatever happened


def capped_counts_tool_calls(task, client, tools, max_steps):
    # chapter 01's loop that counts tool calls as steps, with an ending added
    messages = loop_counts_tool_calls(task, client, tools, max_steps)
    last = messages[-1]
    answered = last["role"] == "assistant" and not last.get("tool_calls")
    return messages, "answered" if answered else "max_steps"


def capped_raises(task, client, tools, max_steps):
    messages = _start(task)
    for _ in range(max_steps):
        reply = _ask(client, messages, tools)
        messages.append(_assistant(reply))
        if not reply.tool_calls:
            return messages, "answered"
        for tc in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": _result(tools, tc)})
    raise RuntimeError(f"too many steps (max_steps={max_steps})")


def capped_reversed_pair(task, client, tools, max_steps):
    messages, ending = solutions.capped_loop(task, client, tools, max_steps)
    return ending, messages  # the pair the other way round


def capped_skips_last_tools(task, client, tools, max_steps):
    messages = _start(task)
    for step in range(1, max_steps + 1):
        reply = _ask(client, messages, tools)
        messages.append(_assistant(reply))
        if not reply.tool_calls:
            return messages, "answered"
        if step == max_steps:  # "no step left to use the results, so do not run the tools"
            break
        for tc in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": _result(tools, tc)})
    return messages, "max_steps"


def capped_ending_as_bool(task, client, tools, max_steps):
    messages, ending = solutions.capped_loop(task, client, tools, max_steps)
    return messages, ending == "answered"  # "answered?" as True / False


CAPPED_LOOP = (
    Wrong("range(max_steps + 1): one request too many", capped_one_extra),
    Wrong("range(1, max_steps): one request too few", capped_one_short),
    Wrong("an answer at the last allowed step reported as max_steps", capped_cap_before_answer),
    Wrong("always reports answered", capped_always_answered),
    Wrong("raises at the cap instead of returning", capped_raises),
    Wrong("counts tool calls, not requests, against the cap", capped_counts_tool_calls),
    Wrong("returns (ending, messages): the pair reversed", capped_reversed_pair),
    Wrong("skips the tools of the last step", capped_skips_last_tools),
    Wrong("the ending as a bool (answered or not)", capped_ending_as_bool),
)


def stub_test_checks_only_ending(loop):
    cap = 4
    stub = ScriptedClient([call("analyze_csv", relative_path="sales.csv")] * 100)
    _, ending = loop("分析 sales.csv", stub, sales_tools(), cap)
    assert ending == "max_steps"


def stub_test_checks_only_requests(loop):
    cap = 4
    stub = ScriptedClient([call("analyze_csv", relative_path="sales.csv")] * 100)
    loop("分析 sales.csv", stub, sales_tools(), cap)
    assert len(stub.requests) <= cap


def stub_test_expects_every_reply(loop):
    cap = 4
    stub = ScriptedClient([call("analyze_csv", relative_path="sales.csv")] * 100)
    loop("分析 sales.csv", stub, sales_tools(), cap)
    assert len(stub.requests) == 100, "the stub's 100 replies should all be used"


def stub_test_checks_the_name(loop):
    assert loop.__name__ == "capped_loop"  # tells the reference apart by name, tests nothing


def stub_test_returns_a_bool(loop):
    cap = 4
    stub = ScriptedClient([call("analyze_csv", relative_path="sales.csv")] * 100)
    _, ending = loop("分析 sales.csv", stub, sales_tools(), cap)
    return len(stub.requests) <= cap and ending == "max_steps"  # nobody reads it


def stub_test_catches_its_assertion(loop):
    cap = 4
    stub = ScriptedClient([call("analyze_csv", relative_path="sales.csv")] * 100)
    _, ending = loop("分析 sales.csv", stub, sales_tools(), cap)
    try:
        assert len(stub.requests) <= cap
        assert ending == "max_steps"
    except AssertionError:
        print("the loop is wrong")  # reported, and the test still passes


STUB_TEST = (
    Wrong("asserts only the ending: misses one request too many", stub_test_checks_only_ending),
    Wrong("checks the loop's name, not what it does", stub_test_checks_the_name),
    Wrong("asserts only the request count: misses a lying ending", stub_test_checks_only_requests),
    Wrong("expects all 100 replies used: fails the correct loop", stub_test_expects_every_reply),
    Wrong("returns a bool instead of asserting", stub_test_returns_a_bool),
    Wrong("catches its own AssertionError", stub_test_catches_its_assertion),
)


# -- chapter 03 --------------------------------------------------------------------------


def key_raw_text(name, arguments_json):
    return f"{name}:{arguments_json}"


def key_unsorted(name, arguments_json):
    try:
        return f"{name}:{json.dumps(json.loads(arguments_json or '{}'), ensure_ascii=False)}"
    except json.JSONDecodeError:
        return f"{name}:{arguments_json}"


def key_without_paths(name, arguments_json):
    try:
        parsed = json.loads(arguments_json or "{}")
    except json.JSONDecodeError:
        return f"{name}:{arguments_json}"
    return f"{name}:{json.dumps(parsed, sort_keys=True, ensure_ascii=False)}"


def key_name_only(name, arguments_json):
    return name  # "the same tool again" counts as a repeat


def key_strips_every_dot_slash(name, arguments_json):
    try:
        parsed = json.loads(arguments_json or "{}")
    except json.JSONDecodeError:
        return f"{name}:{arguments_json}"
    if isinstance(parsed, dict):  # every string treated as a path
        parsed = {k: v.removeprefix("./") if isinstance(v, str) else v for k, v in parsed.items()}
    return f"{name}:{json.dumps(parsed, sort_keys=True, ensure_ascii=False)}"


def key_lstrips_dots(name, arguments_json):
    try:
        parsed = json.loads(arguments_json or "{}")
    except json.JSONDecodeError:
        return f"{name}:{arguments_json}"
    if isinstance(parsed, dict):  # lstrip("./") eats "../" too: one folder up is lost
        parsed = {
            k: v.lstrip("./") if isinstance(v, str) and k.endswith("path") else v
            for k, v in parsed.items()
        }
    return f"{name}:{json.dumps(parsed, sort_keys=True, ensure_ascii=False)}"


def key_name_only_when_broken(name, arguments_json):
    try:
        return solutions.repeat_key(name, json.dumps(json.loads(arguments_json or "{}")))
    except json.JSONDecodeError:
        return name  # "broken JSON: just the tool, then"


def key_empty_when_broken(name, arguments_json):
    try:
        return solutions.repeat_key(name, json.dumps(json.loads(arguments_json or "{}")))
    except Exception:
        return ""  # every broken call, of any tool, gets the same key


REPEAT_KEY = (
    Wrong("raw argument text: whitespace makes a new call", key_raw_text),
    Wrong("json.dumps without sort_keys: key order makes a new call", key_unsorted),
    Wrong("paths not normalised: ./sales.csv is a new call", key_without_paths),
    Wrong("tool name only: different files look like repeats", key_name_only),
    Wrong("strips ./ from every string, not only paths", key_strips_every_dot_slash),
    Wrong("lstrip('./'): ../secret.md and secret.md look the same", key_lstrips_dots),
    Wrong("broken JSON: the tool name alone", key_name_only_when_broken),
    Wrong('broken JSON: "" for every tool', key_empty_when_broken),
)


class NoProgressComparesLastStep:
    """Progress = "different from the step before", not "never seen before"."""

    def __init__(self, limit):
        self.limit, self.last, self.streak = limit, None, 0

    def after_step(self, fingerprints):
        self.streak = self.streak + 1 if fingerprints == self.last else 0
        self.last = fingerprints
        return self.streak >= self.limit


class NoProgressNeverResets:
    def __init__(self, limit):
        self.limit, self.seen, self.streak = limit, set(), 0

    def after_step(self, fingerprints):
        if not set(fingerprints) - self.seen:
            self.streak += 1  # a step with something new does not reset the count
        self.seen.update(fingerprints)
        return self.streak >= self.limit


class NoProgressOneLate:
    def __init__(self, limit):
        self.limit, self.seen, self.streak = limit, set(), 0

    def after_step(self, fingerprints):
        new = set(fingerprints) - self.seen
        self.seen.update(fingerprints)
        self.streak = 0 if new else self.streak + 1
        return self.streak > self.limit


def no_progress_as_a_function(limit):
    seen, streak = set(), [0]

    def after_step(fingerprints):
        streak[0] = streak[0] + 1 if set(fingerprints) <= seen else 0
        seen.update(fingerprints)
        return streak[0] >= limit

    return after_step  # the check itself, not an object that has an after_step


class NoProgressSharedByClass:
    """The state on the class: every counter shares one set of fingerprints."""

    seen = set()  # one set for the class, not one per counter

    def __init__(self, limit):
        self.limit, self.streak = limit, 0

    def after_step(self, fingerprints):
        new = set(fingerprints) - self.seen
        self.seen.update(fingerprints)
        self.streak = 0 if new else self.streak + 1
        return self.streak >= self.limit


class NoProgressSaysWords(solutions.NoProgress):
    """The reference's decision, said in words: "continue" is truthy too."""

    def after_step(self, fingerprints):
        return "stop" if super().after_step(fingerprints) else "continue"


class NoProgressForgetsReturn(solutions.NoProgress):
    """The reference's decision, stored and never returned."""

    def after_step(self, fingerprints):
        self.stop = super().after_step(fingerprints)


NO_PROGRESS = (
    Wrong(
        "compares with the previous step only (alternating results never stop)",
        NoProgressComparesLastStep,
    ),
    Wrong("the streak is not reset by a step with something new", NoProgressNeverResets),
    Wrong("stops one step late (> instead of >=)", NoProgressOneLate),
    Wrong("a function, not a class", no_progress_as_a_function),
    Wrong("the fingerprints kept on the class, shared by every counter", NoProgressSharedByClass),
    Wrong('after_step returns "stop" / "continue"', NoProgressSaysWords),
    Wrong("after_step never returns its decision", NoProgressForgetsReturn),
)


class DeadlinePerPhase:
    """Each phase gets a fresh, full budget: three phases, three times the time."""

    def __init__(self, seconds, clock=time.monotonic):
        self.seconds, self.clock = seconds, clock
        self.started = clock()

    def left(self):
        self.started = self.clock()  # a new phase starts a new timer
        return self.seconds - (self.clock() - self.started)

    def run(self, work, name):
        return run_within(work, self.left(), name)


class DeadlineGoesNegative:
    def __init__(self, seconds, clock=time.monotonic):
        self.seconds, self.clock = seconds, clock
        self.at = clock() + seconds

    def left(self):
        return self.at - self.clock()

    def run(self, work, name):
        return run_within(work, self.left(), name)


class DeadlineNeverStopsWaiting(solutions.SharedDeadline):
    """The reference, but run() ignores the time left."""

    def run(self, work, name):
        return work()  # the time left is computed, then never used


class DeadlineRunGetsWholeBudget(solutions.SharedDeadline):
    """The reference, but run() hands the work the whole budget."""

    def run(self, work, name):
        return run_within(work, self.seconds, name)  # left() is right, and never used here


class DeadlineSwallowsTimedOut(solutions.SharedDeadline):
    """The reference, but run() catches the TimedOut and returns None."""

    def run(self, work, name):
        try:
            return run_within(work, self.left(), name)
        except Exception:  # "a time-out must not crash the run"
            return None


class DeadlineLeftReadsItsOwnClock(solutions.SharedDeadline):
    """The reference, but left() reads time.monotonic(), not the clock it was given."""

    def left(self):
        return max(0.0, self.at - time.monotonic())


class DeadlineSkipsWhenNoneLeft(solutions.SharedDeadline):
    """The reference, but run() with no time left skips the work and returns None."""

    def run(self, work, name):
        if self.left() <= 0:
            return None  # "no time left: skip this phase"
        return run_within(work, self.left(), name)


class DeadlineRaisesTimeoutError(solutions.SharedDeadline):
    """The reference, but run() waits with concurrent.futures: its TimeoutError, not TimedOut."""

    def run(self, work, name):
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        try:
            return pool.submit(work).result(timeout=self.left())
        finally:
            pool.shutdown(wait=False)


DEADLINE = (
    Wrong("per-phase timeout: every phase gets the full budget", DeadlinePerPhase),
    Wrong("run() gives the work the whole budget, not the time left", DeadlineRunGetsWholeBudget),
    Wrong("left() goes below zero", DeadlineGoesNegative),
    Wrong("run() calls work() without a timeout", DeadlineNeverStopsWaiting),
    Wrong("run() catches TimedOut and returns None", DeadlineSwallowsTimedOut),
    Wrong("left() reads time.monotonic(), not self.clock()", DeadlineLeftReadsItsOwnClock),
    Wrong("run() with no time left returns None, work skipped", DeadlineSkipsWhenNoneLeft),
    Wrong(
        "run() raises concurrent.futures' TimeoutError, not TimedOut", DeadlineRaisesTimeoutError
    ),
)

PREDICT_ALTERNATE = (
    Wrong(
        "the repeat guard fires first, at the 4th identical call",
        {**solutions.PREDICT_ALTERNATE, "stop_reason": "repeat_call", "steps": 7},
    ),
    Wrong(
        "no progress from the second step on",
        {**solutions.PREDICT_ALTERNATE, "steps": 5, "repeated_call_refusals": 1},
    ),
)

PREDICT_NO_PROGRESS = (
    Wrong(
        "a new argument counts as progress",
        {
            **solutions.PREDICT_NO_PROGRESS,
            "stop_reason": "max_steps",
            "steps": 25,
            "tool_errors": 25,
        },
    ),
    Wrong(
        "the first failure is not new either",
        {**solutions.PREDICT_NO_PROGRESS, "steps": 2, "tool_errors": 2},
    ),
)

PREDICT_THRESHOLD = (
    Wrong(
        "different spellings are different calls",
        {**solutions.PREDICT_THRESHOLD, "stop_reason": "no_progress", "steps": 5},
    ),
    Wrong(
        "the strict policy: stop at the second",
        {**solutions.PREDICT_THRESHOLD, "steps": 2, "refused_at_step": None},
    ),
    Wrong("the right step in a list", {**solutions.PREDICT_THRESHOLD, "refused_at_step": [3]}),
)

PREDICT_ABANDON = (
    Wrong(
        "an abandoned tool has stopped",
        {**solutions.PREDICT_ABANDON, "in_process_still_running": False},
    ),
    Wrong(
        "the run waits for the tool",
        {**solutions.PREDICT_ABANDON, "stop_reason": "answered", "phase": None},
    ),
    Wrong("both are killed", {**solutions.PREDICT_ABANDON, "in_process_code": "TOOL_KILLED"}),
)


# -- chapter 04 --------------------------------------------------------------------------


def class_forgets_permission(failure):
    if isinstance(failure, int):
        return "transient" if failure in (408, 409, 429) or failure >= 500 else "invalid_input"
    return solutions.error_class(failure)


def class_only_429_transient(failure):
    if isinstance(failure, int):
        if failure == 429:
            return "transient"
        return "permission" if failure in (401, 403) else "invalid_input"
    return solutions.error_class(failure)


def class_common_5xx_only(failure):
    if isinstance(failure, int) and failure >= 500 and failure not in (500, 502, 503, 504):
        return "invalid_input"  # "the 5xx I have seen": 529 (overloaded) and the rest forgotten
    return solutions.error_class(failure)


def class_logic_as_input(failure):
    found = solutions.error_class(failure)
    return "invalid_input" if found == "logic" else found


def class_unknown_is_transient(failure):
    known = (
        "TESTS_FAILED",
        "CHECK_FAILED",
        "PATH_NOT_ALLOWED",
        "PERMISSION_DENIED",
        "POLICY_DENIED",
    )
    if isinstance(failure, str) and failure not in known:
        return "transient"  # "no idea what went wrong: try again"
    return solutions.error_class(failure)


def class_409_as_input(failure):
    return "invalid_input" if failure == 409 else solutions.error_class(failure)


def class_by_substring(failure):
    if isinstance(failure, int):
        return solutions.error_class(failure)
    if "DENIED" in failure or "NOT_ALLOWED" in failure:
        return "permission"
    if "FAIL" in failure:  # READ_FAILED and WRITE_FAILED are not failing checks
        return "logic"
    return solutions.error_class(failure)


CLASSIFY = (
    Wrong("401/403 as invalid input (forgets permission)", class_forgets_permission),
    Wrong("409 (a conflict: try again) as invalid input", class_409_as_input),
    Wrong("only 429 is transient (5xx not retried)", class_only_429_transient),
    Wrong("only 500/502/503/504 are transient, not every 5xx", class_common_5xx_only),
    Wrong("failing tests as invalid input", class_logic_as_input),
    Wrong("unknown codes retried as transient", class_unknown_is_transient),
    Wrong('substring rules: "FAIL" in a code means logic', class_by_substring),
)


def retry_all_but_permission(error_class, attempt, max_retries, wait_s, time_left_s):
    if error_class == "permission" or attempt > max_retries:
        return False
    return time_left_s is None or wait_s < time_left_s


def retry_ignoring_the_deadline(error_class, attempt, max_retries, wait_s, time_left_s):
    return error_class == "transient" and attempt <= max_retries


def retry_one_short(error_class, attempt, max_retries, wait_s, time_left_s):
    if error_class != "transient" or attempt >= max_retries:
        return False
    return time_left_s is None or wait_s < time_left_s


def retry_zero_left_is_no_deadline(error_class, attempt, max_retries, wait_s, time_left_s):
    if error_class != "transient" or attempt > max_retries:
        return False
    return not (time_left_s and wait_s >= time_left_s)  # 0.0 left reads as "no deadline"


SHOULD_RETRY = (
    Wrong("retries invalid input and logic errors too", retry_all_but_permission),
    Wrong("sleeps past the deadline", retry_ignoring_the_deadline),
    Wrong("attempt >= max_retries: one retry short", retry_one_short),
    Wrong(
        "if time_left_s and ...: 0.0 s left counts as no deadline", retry_zero_left_is_no_deadline
    ),
)


def done_when_trusts_the_answer(box, expected_total):
    def done_when(answer):
        return True if "写好" in answer else "还没写好"

    return done_when


def done_when_says_false(box, expected_total):
    def done_when(answer):
        report = box / "report.md"
        return report.exists() and f"总销售额 {expected_total}" in report.read_text(
            encoding="utf-8"
        )

    return done_when


def done_when_existence_only(box, expected_total):
    def done_when(answer):
        return True if (box / "report.md").exists() else "report.md 还不存在"

    return done_when


def done_when_hard_coded(box, expected_total):
    def done_when(answer):
        report = box / "report.md"
        if report.exists() and "总销售额 9692" in report.read_text(encoding="utf-8").splitlines():
            return True
        return "报告里没有总销售额 9692"

    return done_when


def done_when_substring(box, expected_total):
    def done_when(answer):
        report = box / "report.md"
        if report.exists() and f"总销售额 {expected_total}" in report.read_text(encoding="utf-8"):
            return True  # "总销售额 96920" contains it too
        return f"报告里没有总销售额 {expected_total}"

    return done_when


def done_when_not_returned(box, expected_total):
    def done_when(answer):
        return solutions.make_done_when(box, expected_total)(answer)

    # the inner function is defined, and never handed back


DONE_WHEN = (
    Wrong("believes the model's own 'done'", done_when_trusts_the_answer),
    Wrong("returns False without a reason", done_when_says_false),
    Wrong("checks only that the file exists", done_when_existence_only),
    Wrong("the total 9692 written into the check", done_when_hard_coded),
    Wrong("the total found as a substring: 96920 passes", done_when_substring),
    Wrong("forgets return done_when", done_when_not_returned),
)


def shrink_cuts_the_end(text, limit):
    return text[:limit]


def shrink_head_and_tail(text, limit):
    if len(text) <= limit:
        return text
    half = (limit - 40) // 2
    head = text[:half].rsplit("\n", 1)[0]
    tail = text[-half:].split("\n", 1)[1]
    return f"{head}\n…[truncated]\n{tail}"


def shrink_without_marker(text, limit):
    if len(text) <= limit:
        return text
    kept = solutions.shrink(text, limit)
    return "\n".join(line for line in kept.splitlines() if "truncated" not in line)


def shrink_one_line_ends_bare_marker(text, limit):
    if len(text) <= limit:
        return text
    lines = text.splitlines()
    middle = [line for line in lines[1:-1] if solutions.KEY_LINE.search(line)]
    return "\n".join([lines[0], *middle, lines[-1], "[truncated]"])


def shrink_marker_without_count(text, limit):
    if len(text) <= limit:
        return text
    kept = solutions.shrink(text, limit)
    return "\n".join("…[truncated]" if "truncated" in line else line for line in kept.splitlines())


def shrink_fixed_line_counts(text, limit):
    if len(text) <= limit:
        return text
    lines = text.splitlines()
    keep = {*range(5), *range(len(lines) - 5, len(lines))}  # never looks at limit again
    keep |= {i for i, line in enumerate(lines) if solutions.KEY_LINE.search(line)}
    out, previous = [], -1
    for i in sorted(keep):
        if i > previous + 1:
            out.append(f"…[truncated: {i - previous - 1} lines]")
        out.append(lines[i])
        previous = i
    return "\n".join(out)


TRUNCATE = (
    Wrong("text[:limit]: the end (often the conclusion) is lost", shrink_cuts_the_end),
    Wrong("head and tail only: the error lines are lost", shrink_head_and_tail),
    Wrong("no marker: the model takes the cut output for all of it", shrink_without_marker),
    Wrong("one line each end, a bare marker at the very end", shrink_one_line_ends_bare_marker),
    Wrong("markers that do not say how much was removed", shrink_marker_without_count),
    Wrong("5 head and 5 tail lines, whatever their length", shrink_fixed_line_counts),
)


def story_counts_decide_events(events):
    story = solutions.trace_story(events)
    decides = [e for e in events if e["event"] == "phase" and e.get("phase") == "decide"]
    return {**story, "steps": len(decides)}  # a retried request is not a step


def story_codes_of_every_call(events):
    story = solutions.trace_story(events)
    tools = [e for e in events if e["event"] == "phase" and e.get("phase") == "tool"]
    return {**story, "error_codes": [e.get("error_code") for e in tools]}


def story_reason_from_status(events):
    story = solutions.trace_story(events)
    return {**story, "stop_reason": events[-1].get("status")}


TRACE = (
    Wrong("steps = decide events (counts a retried request twice)", story_counts_decide_events),
    Wrong("error codes of every call, ok ones included", story_codes_of_every_call),
    Wrong("stop reason read from the run status", story_reason_from_status),
)

PREDICT_RETRY = (
    Wrong(
        "the SDK retries by itself", {**solutions.PREDICT_RETRY, "no_retry_stop_reason": "answered"}
    ),
    Wrong("a retry is a new step", {**solutions.PREDICT_RETRY, "retry_steps": 3}),
    Wrong(
        "a retried request is not counted", {**solutions.PREDICT_RETRY, "retry_model_requests": 2}
    ),
)

PREDICT_LOGIC = (
    Wrong(
        "a failing test is a tool failure",
        {**solutions.PREDICT_LOGIC, "outcome": "tool_error", "tool_errors": 1},
    ),
    Wrong(
        "counted as an error although it completed", {**solutions.PREDICT_LOGIC, "tool_errors": 1}
    ),
    Wrong(
        "failing tests are invalid input",
        {**solutions.PREDICT_LOGIC, "first_error_class": "invalid_input"},
    ),
)


# -- chapter 05 --------------------------------------------------------------------------


def completion_over_every_task(results, cap):
    at_cap = results[results["cap"] == cap]
    return (at_cap["outcome"] == "completed").mean() if len(at_cap) else 0.0


def completion_over_every_cap(results, cap):
    able = results[results["could_complete"]]
    return (able["outcome"] == "completed").mean() if len(able) else 0.0


def completion_in_percent(results, cap):
    return 100 * solutions.completion_rate(results, cap)


def completion_as_series(results, cap):
    from agentlab.course.experiments import summarize

    summary = summarize(results)
    return summary.loc[summary["cap"] == cap, "completion_rate"]  # a Series, not a number


def completion_rounded(results, cap):
    return round(solutions.completion_rate(results, cap), 2)  # 2/3 becomes 0.67


def completion_by_stop_reason(results, cap):
    at_cap = results[results["cap"] == cap]
    able = at_cap[at_cap["could_complete"]]
    return (able["stop_reason"] == "answered").mean() if len(able) else 0.0  # not the outcome


COMPLETION_RATE = (
    Wrong("divides by every task, runaways included", completion_over_every_task),
    Wrong("forgets to pick the cap", completion_over_every_cap),
    Wrong("a percentage, not a rate", completion_in_percent),
    Wrong("rounded to 2 decimals", completion_rounded),
    Wrong("the rate as a one-row Series", completion_as_series),
    Wrong(
        "answered counted as completed (an answer after a tool error)", completion_by_stop_reason
    ),
)


def wasted_every_step(results, cap):
    return int(results.loc[results["cap"] == cap, "steps"].sum())


def wasted_counts_runs(results, cap):
    at_cap = results[results["cap"] == cap]
    return int((at_cap["outcome"] == "budget_exhausted").sum())


def wasted_includes_tool_errors(results, cap):
    at_cap = results[results["cap"] == cap]
    failed = at_cap["outcome"].isin(["budget_exhausted", "tool_error"])
    return int(at_cap.loc[failed, "steps"].sum())


def wasted_cap_per_run(results, cap):
    at_cap = results[results["cap"] == cap]
    return int((at_cap["outcome"] == "budget_exhausted").sum()) * cap  # a guard stops sooner


def wasted_only_max_steps(results, cap):
    at_cap = results[results["cap"] == cap]
    return int(at_cap.loc[at_cap["stop_reason"] == "max_steps", "steps"].sum())


def wasted_model_requests(results, cap):
    at_cap = results[results["cap"] == cap]
    return int(at_cap.loc[at_cap["outcome"] == "budget_exhausted", "model_requests"].sum())


WASTED_STEPS = (
    Wrong("every step at that cap, completed runs included", wasted_every_step),
    Wrong("cap steps for each exhausted run", wasted_cap_per_run),
    Wrong("only runs stopped by max_steps", wasted_only_max_steps),
    Wrong("counts runs, not steps", wasted_counts_runs),
    Wrong("tool_error runs counted as waste too", wasted_includes_tool_errors),
    Wrong("model requests, not steps (a retried request is no step)", wasted_model_requests),
)


def pick_strictly_above(summary, target):
    reached = summary[summary["completion_rate"] > target]
    return int(reached["cap"].min()) if len(reached) else None


def pick_first_row(summary, target):
    for _, row in summary.iterrows():  # assumes the rows are sorted by cap
        if row["completion_rate"] >= target:
            return int(row["cap"])
    return None


def pick_raises_when_unreachable(summary, target):
    return int(summary.loc[summary["completion_rate"] >= target, "cap"].min())


def pick_as_array(summary, target):
    reached = summary[summary["completion_rate"] >= target].sort_values("cap")
    return reached["cap"].values[:1] if len(reached) else None  # array([5]), not 5


def pick_as_series(summary, target):
    reached = summary[summary["completion_rate"] >= target].sort_values("cap")
    return reached["cap"].head(1) if len(reached) else None  # a one-row Series


PICK_CAP = (
    Wrong("> instead of >=", pick_strictly_above),
    Wrong("first row in table order (rows not sorted by cap)", pick_first_row),
    Wrong("int(NaN) when no cap reaches the target", pick_raises_when_unreachable),
    Wrong("a one-element array: array([5]) != 5 is falsy", pick_as_array),
    Wrong("a one-row Series", pick_as_series),
)


def robust_smallest(summaries, target):
    caps = [solutions.pick_cap(s, target) for s in summaries]
    return None if None in caps else min(caps)


def robust_mean(summaries, target):
    caps = [solutions.pick_cap(s, target) for s in summaries]
    return None if None in caps else round(sum(caps) / len(caps))


def robust_first_sample(summaries, target):
    return solutions.pick_cap(summaries[0], target)


def robust_skips_unreachable(summaries, target):
    caps = [c for c in (solutions.pick_cap(s, target) for s in summaries) if c is not None]
    return max(caps) if caps else None


ROBUST_CAP = (
    Wrong("the smallest of the per-seed caps", robust_smallest),
    Wrong("the mean of the per-seed caps", robust_mean),
    Wrong("only the first sample", robust_first_sample),
    Wrong("samples that never reach the target are ignored", robust_skips_unreachable),
)

PREDICT_SEEDS = (
    Wrong("the seed does not matter", {1: 13, 2: 13, 3: 13}),
    Wrong("one short for seed 1", {**solutions.PREDICT_SEEDS, 1: 12}),
    Wrong("one too many for seed 1", {**solutions.PREDICT_SEEDS, 1: 14}),
)

READ_SWEEP = (
    Wrong(
        "the completion of every task, not of those that could complete",
        {**solutions.READING, "completion_at_8": 0.333},
    ),
    Wrong("wasted steps counted as runs", {**solutions.READING, "wasted_at_24": 9}),
    Wrong("the cap of the longest task plus a margin", {**solutions.READING, "best_cap_95": 16}),
)

"""Reference answers to every exercise, in one place outside the notebooks.

Written the way a student would write them in a notebook cell: plain code,
no imports from the checker. ``python -m agentlab.course.exercises verify`` runs
each check on its answer here and expects it to pass; predictions are the
values the real runs produce today, so a change in the library that changes
a run shows up as a failing ``verify``.

The chapter modules (``ch01.py`` … ``ch05.py``) import it to name each
exercise's reference answer, and chapter 02's stub-test check runs a
student's test against the loop here. Students never need to import it.
"""

from __future__ import annotations

import json
import posixpath
import re
import time

from agentlab import run_agent
from agentlab.clients import ScriptedClient, call
from agentlab.deadline import run_within
from agentlab.tools import Tool, error, ok, resolve_inside, sales_tools

# -- chapter 01 ---------------------------------------------------------------------


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


def history_lengths(task, client, tools):
    run_agent(task, client=client, tools=tools)
    return [len(request.messages) for request in client.requests]


PREDICT_MISSING = {
    "status": "completed",
    "outcome": "completed",
    "stop_reason": "answered",
    "steps": 5,
    "tools": ["read_text", "list_dir", "read_text", "write_text"],
}

PREDICT_CAP2 = {
    "status": "failed",
    "outcome": "budget_exhausted",
    "stop_reason": "max_steps",
    "steps": 2,
    "file_written": True,
}

PREDICT_ESCAPE = {
    "error_code": "PATH_NOT_ALLOWED",
    "stop_reason": "policy_denied",
    "outcome": "tool_error",
    "steps": 1,
}


def add_append_text(registry, box):
    def append_text(rel_path, text):
        path = resolve_inside(box, rel_path)
        if isinstance(path, dict):  # PATH_NOT_ALLOWED, already a tool result
            return path
        if path.is_dir():
            return error("NOT_A_FILE", f"{rel_path!r} is a folder")
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


# -- chapter 02 ---------------------------------------------------------------------

PREDICT_CAP1 = {
    "status": "failed",
    "outcome": "budget_exhausted",
    "stop_reason": "max_steps",
    "steps": 1,
    "tool_calls": 1,
}

PREDICT_FOUR_OK = {
    "status": "failed",
    "outcome": "budget_exhausted",
    "stop_reason": "max_steps",
    "steps": 4,
    "tool_errors": 0,
}

PREDICT_RECOVER = {
    "status": "completed",
    "outcome": "completed",
    "stop_reason": "answered",
    "steps": 3,
    "tool_errors": 1,
}

PREDICT_BOUNDARY = {
    "sales.csv": "ok",
    "empty.csv": "EMPTY_CSV",
    "header_only.csv": "EMPTY_CSV",
    "no_price.csv": "INVALID_CSV",
    "negative.csv": "INVALID_ROW",
    "missing.csv": "FILE_NOT_FOUND",
    "../sales.csv": "PATH_NOT_ALLOWED",
}


def dispatch(tools, name, arguments_json):
    if name not in tools:  # the whitelist: only registered names run
        return error("UNKNOWN_TOOL", f"no tool named {name!r}; allowed: {', '.join(tools)}")
    try:
        arguments = json.loads(arguments_json) if arguments_json.strip() else {}
    except json.JSONDecodeError as exc:
        return error("INVALID_ARGUMENTS", f"arguments are not valid JSON: {exc.msg}")
    if not isinstance(arguments, dict):
        return error("INVALID_ARGUMENTS", "arguments must be a JSON object")
    try:
        return tools[name](**arguments)
    except Exception as exc:  # a broken tool must not break the loop
        return error("TOOL_EXCEPTION", f"{name} raised {type(exc).__name__}: {exc}")


def capped_loop(task, client, tools, max_steps):
    system = "你是一个谨慎的助手，只根据工具结果回答。"
    messages = [{"role": "system", "content": system}, {"role": "user", "content": task}]
    for _ in range(max_steps):  # the cap is decided before every request
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
            return messages, "answered"
        for tc in reply.tool_calls:
            result = tools.call(tc.function.name, tc.function.arguments)
            content = json.dumps(result, ensure_ascii=False)
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": content})
    return messages, "max_steps"


def test_step_cap(loop):
    cap = 4
    stub = ScriptedClient([call("analyze_csv", relative_path="sales.csv")] * 100, name="stub")
    messages, ending = loop("分析 sales.csv", stub, sales_tools(), cap)
    assert len(stub.requests) <= cap, f"{len(stub.requests)} requests with max_steps={cap}"
    assert ending == "max_steps", ending


# -- chapter 03 ---------------------------------------------------------------------


def repeat_key(name, arguments_json):
    try:
        arguments = json.loads(arguments_json) if arguments_json.strip() else {}
    except json.JSONDecodeError:
        return f"{name}:{arguments_json.strip()}"  # unusable JSON: its own text is the key

    def normalise(value, key=""):
        if isinstance(value, dict):
            return {k: normalise(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [normalise(v) for v in value]
        if isinstance(value, str) and key.endswith("path"):
            return posixpath.normpath(value.strip())
        return value

    canonical = json.dumps(
        normalise(arguments), sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return f"{name}:{canonical}"


class NoProgress:
    def __init__(self, limit):
        self.limit = limit
        self.seen = set()  # every fingerprint the run has produced
        self.streak = 0  # steps in a row that brought nothing new

    def after_step(self, fingerprints):
        new = [f for f in fingerprints if f not in self.seen]
        self.seen.update(fingerprints)
        self.streak = 0 if new else self.streak + 1
        return self.streak >= self.limit


class SharedDeadline:
    def __init__(self, seconds, clock=time.monotonic):
        self.seconds = seconds
        self.clock = clock
        self.at = clock() + seconds  # ONE absolute deadline, set once, at the start

    def left(self):
        return max(0.0, self.at - self.clock())

    def run(self, work, name):
        return run_within(work, self.left(), name)


PREDICT_ALTERNATE = {"stop_reason": "no_progress", "steps": 6, "repeated_call_refusals": 2}

PREDICT_NO_PROGRESS = {"stop_reason": "no_progress", "steps": 3, "tool_errors": 3}

PREDICT_THRESHOLD = {"stop_reason": "repeat_call", "steps": 4, "refused_at_step": 3}

PREDICT_ABANDON = {
    "stop_reason": "deadline",
    "phase": "tool",
    "in_process_code": "TOOL_ABANDONED",
    "in_process_still_running": True,
    "isolated_code": "TOOL_KILLED",
    "isolated_exitcode": -9,
}


# -- chapter 04 ---------------------------------------------------------------------


def error_class(failure):
    if isinstance(failure, int):  # an HTTP status from the model service
        if failure in (408, 409, 429) or failure >= 500:
            return "transient"  # wait and try again
        if failure in (401, 403):
            return "permission"  # check the key: retrying will not help
        return "invalid_input"
    if failure in ("TIMEOUT", "UNAVAILABLE", "RATE_LIMITED"):
        return "transient"
    if failure in ("PATH_NOT_ALLOWED", "PERMISSION_DENIED", "POLICY_DENIED"):
        return "permission"
    if failure in ("TESTS_FAILED", "CHECK_FAILED"):
        return "logic"  # the work is not right yet: feedback, not a broken tool
    return "invalid_input"  # anything else: tell the model, do not retry


def should_retry(error_class, attempt, max_retries, wait_s, time_left_s):
    if error_class != "transient":
        return False
    if attempt > max_retries:  # the first attempt plus max_retries retries are used up
        return False
    return time_left_s is None or wait_s < time_left_s


def make_done_when(box, expected_total):
    report = box / "report.md"

    def done_when(answer):
        if not report.exists():
            return "report.md 还不存在：先用 write_text 写出报告"
        lines = report.read_text(encoding="utf-8").splitlines()
        if f"总销售额 {expected_total}" not in [line.strip() for line in lines]:
            return f"report.md 里没有“总销售额 {expected_total}”这一行"
        return True

    return done_when


KEY_LINE = re.compile(r"error|fail|exception|traceback", re.IGNORECASE)


def shrink(text, limit):
    if len(text) <= limit:
        return text
    lines = text.splitlines()
    keys = [i for i, line in enumerate(lines) if KEY_LINE.search(line)]
    keep = {0, len(lines) - 1, *keys}  # always kept
    # Room for more head and tail: what those lines and up to len(keys) + 1 markers leave.
    room = limit - sum(len(lines[i]) + 1 for i in keep) - 40 * (len(keys) + 1)
    used = 0
    for i in range(1, len(lines)):  # head
        used += len(lines[i]) + 1
        if used > room // 2:
            break
        keep.add(i)
    used = 0
    for i in range(len(lines) - 2, 0, -1):  # tail
        used += len(lines[i]) + 1
        if used > room // 2:
            break
        keep.add(i)
    out, previous = [], -1
    for i in sorted(keep):
        if i > previous + 1:
            out.append(f"…[truncated: {i - previous - 1} lines]")
        out.append(lines[i])
        previous = i
    return "\n".join(out)


def trace_story(events):
    stop = next(e for e in events if e["event"] == "stop")
    tool_events = [e for e in events if e["event"] == "phase" and e.get("phase") == "tool"]
    return {
        "steps": stop["step"],
        "stop_reason": stop["stop_reason"],
        "tools": [e["tool"] for e in tool_events],
        "error_codes": [e["error_code"] for e in tool_events if e["status"] == "error"],
    }


PREDICT_RETRY = {
    "no_retry_stop_reason": "model_error",
    "retry_outcome": "completed",
    "retry_steps": 2,
    "retry_model_requests": 3,
}

PREDICT_LOGIC = {"outcome": "completed", "tool_errors": 0, "first_error_class": "logic"}


# -- chapter 05 ---------------------------------------------------------------------


def completion_rate(results, cap):
    at_cap = results[results["cap"] == cap]
    able = at_cap[at_cap["could_complete"]]
    if len(able) == 0:
        return 0.0
    return (able["outcome"] == "completed").mean()


def wasted_steps(results, cap):
    at_cap = results[results["cap"] == cap]
    return int(at_cap.loc[at_cap["outcome"] == "budget_exhausted", "steps"].sum())


def pick_cap(summary, target):
    reached = summary[summary["completion_rate"] >= target]
    if len(reached) == 0:
        return None
    return int(reached["cap"].min())


def robust_cap(summaries, target):
    caps = [pick_cap(summary, target) for summary in summaries]
    if None in caps:
        return None
    return max(caps)  # enough for every sample we have seen


PREDICT_SEEDS = {1: 13, 2: 13, 3: 15}

READING = {"completion_at_8": 0.588, "wasted_at_24": 216, "best_cap_95": 13}

"""Chapter 04 exercises: error classes, retries, completion checks, truncation, traces.

The expected error classes come from :mod:`agentlab.model.failures` itself, so the
exercise and the loop cannot drift apart.

Each exercise in turn: its reference answer, its named mistakes, its check.
The starter code is in ``units/<id>.toml``.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ... import Budget, run_agent
from ...clients import ScriptedClient, call, say, scripted
from ...clients.behaviours import honest_analyst
from ...loop.trace import read_trace
from ...model.failures import ModelFailure, model_failure_class
from ...tools import Tool, ToolRegistry, error, file_tools, ok, sales_tools, sandbox_copy
from ...tools.result import tool_error_class
from ...tools.sales import COURSE_DATA_DIR
from ..faults import fault_tools, flaky, huge_log, keeps_calling
from .core import (
    Exercise,
    Verdict,
    need_callable,
    need_prediction,
    passed,
    predict,
    shown,
    type_name,
    wrong,
)
from .loops import TOOL_ERROR
from .running import run_student
from .texts import tr

# -- 04-classify -------------------------------------------------------------------------


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


# HTTP statuses (529 too: "5xx 全部算瞬时", not only the 500/502/503/504 everyone has seen),
# then error codes (the file tools' READ_FAILED, WRITE_FAILED: "FAIL" in a name is no logic)
CLASSIFY_PROBES: tuple[int | str, ...] = (
    *(429, 500, 503, 529, 408, 409, 401, 403, 400, 404, 422),
    *"UNAVAILABLE TIMEOUT RATE_LIMITED PATH_NOT_ALLOWED PERMISSION_DENIED POLICY_DENIED".split(),
    *"TESTS_FAILED CHECK_FAILED FILE_NOT_FOUND INVALID_ARGUMENTS UNKNOWN_TOOL".split(),
    *"INVALID_ROW READ_FAILED WRITE_FAILED".split(),
)


def expected_class(failure: int | str) -> str:
    """What the loop itself does with ``failure`` (agentlab.model.failures)."""
    if isinstance(failure, int):
        return model_failure_class(ModelFailure("http_status", "", failure))
    return tool_error_class(failure)


def check_classify(answer: Any) -> Verdict:
    need_callable(answer, "error_class")
    for failure in CLASSIFY_PROBES:
        label = f"HTTP {failure}" if isinstance(failure, int) else failure
        got = run_student(answer, failure, what=tr("exercise.04-classify.what", failure=label))
        expected = expected_class(failure)
        if got != expected:
            why = tr(f"exercise.04-classify.why.{expected}")
            key = "exercise.04-classify.mismatch"
            return wrong(tr(key, failure=label, expected=expected, why=why, got=shown(got)))
    return passed(tr("exercise.04-classify.passed", count=len(CLASSIFY_PROBES)))


# -- 04-should-retry ---------------------------------------------------------------------


def should_retry(error_class, attempt, max_retries, wait_s, time_left_s):
    if error_class != "transient":
        return False
    if attempt > max_retries:  # the first attempt plus max_retries retries are used up
        return False
    return time_left_s is None or wait_s < time_left_s


# (why key, arguments, expected)
RETRY_PROBES = (
    ("first_retry", ("transient", 1, 2, 0.2, None), True),
    ("second_retry", ("transient", 2, 2, 0.4, None), True),
    ("used_up", ("transient", 3, 2, 0.8, None), False),
    ("input", ("invalid_input", 1, 2, 0.2, None), False),
    ("permission", ("permission", 1, 2, 0.2, None), False),
    ("logic", ("logic", 1, 2, 0.2, None), False),
    ("past_deadline", ("transient", 1, 2, 0.5, 0.3), False),
    ("before_deadline", ("transient", 1, 2, 0.2, 0.3), True),
    ("at_deadline", ("transient", 1, 2, 0.3, 0.3), False),
    ("no_time_left", ("transient", 1, 2, 0.2, 0.0), False),  # 0.0 is a deadline, not None
    ("no_retries", ("transient", 1, 0, 0.2, None), False),
)


def check_should_retry(answer: Any) -> Verdict:
    need_callable(answer, "should_retry")
    for why, arguments, expected in RETRY_PROBES:
        shown_call = "should_retry" + repr(arguments)
        got = run_student(answer, *arguments, what=shown_call)
        if not isinstance(got, bool) or got is not expected:
            reason = tr(f"exercise.04-should-retry.why.{why}")
            key = "exercise.04-should-retry.mismatch"
            return wrong(tr(key, call=shown_call, expected=expected, why=reason, got=shown(got)))
    return passed(tr("exercise.04-should-retry.passed"))


# -- 04-done-when ------------------------------------------------------------------------


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


def _total(data_dir: Path | None = None) -> int:
    result = sales_tools(data_dir).call("analyze_csv", '{"relative_path": "sales.csv"}')
    return int(result["data"]["total_revenue"])


def _temp_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="agentlab-exercise-"))


def check_done_when(answer: Any) -> Verdict:
    need_callable(answer, "make_done_when")
    box = _temp_dir()
    try:
        return _check_done_when(answer, box)
    finally:
        shutil.rmtree(box, ignore_errors=True)


def _check_done_when(answer: Any, box: Path) -> Verdict:
    total = _total()
    what = tr("exercise.04-done-when.what")
    done_when = run_student(answer, box, total, what=what)
    if done_when is None:
        return wrong(tr("exercise.04-done-when.returned_none"))
    need_callable(done_when, "done_when")
    report = box / "report.md"

    def verdict_for(answer_text: str) -> Any:
        return run_student(done_when, answer_text, what=what)

    got = verdict_for("报告写好了！")
    if got is True:
        return wrong(tr("exercise.04-done-when.trusts_answer"))
    if not isinstance(got, str) or not got.strip():
        return wrong(tr("exercise.04-done-when.no_reason", got=shown(got)))
    # a wrong total, and one that merely contains the right one (96920 holds 9692)
    for wrong_total in (total - 692, total * 10):
        report.write_text(f"# 销售报告\n总销售额 {wrong_total}\n", encoding="utf-8")
        if verdict_for("写好了") is True:
            return wrong(tr("exercise.04-done-when.wrong_total", wrong=wrong_total, total=total))
    report.write_text(f"# 销售报告\n总销售额 {total}\n", encoding="utf-8")
    got = verdict_for("写好了")
    if got is not True:
        return wrong(tr("exercise.04-done-when.rejects_good", total=total, got=shown(got)))

    other = _other_total()
    other_box = _temp_dir()
    try:
        (other_box / "report.md").write_text(f"总销售额 {other}\n", encoding="utf-8")
        other_check = run_student(answer, other_box, other, what=what)
        if run_student(other_check, "写好了", what=what) is not True:
            return wrong(tr("exercise.04-done-when.hard_coded", total=total, other=other))
    finally:
        shutil.rmtree(other_box, ignore_errors=True)

    report.unlink()
    eager = ScriptedClient(
        [
            say("报告写好了！"),
            call("write_text", rel_path="report.md", text=f"# 销售报告\n总销售额 {total}\n"),
            say("这次真的写好了。"),
        ]
    )
    run = run_student(
        run_agent,
        "写销售报告",
        client=eager,
        tools=file_tools(box),
        done_when=done_when,
        trace_dir=False,
        what=tr("exercise.04-done-when.what_run"),
    )
    if run.outcome != "completed" or run.steps != 3:
        return wrong(tr("exercise.04-done-when.run", outcome=run.outcome, steps=run.steps))
    return passed(tr("exercise.04-done-when.passed"))


def _other_total() -> int:
    """The total of a copy of the data where 键盘 sold 100, not 12 (as chapter 02 does)."""
    data = _temp_dir() / "data"
    try:
        shutil.copytree(COURSE_DATA_DIR, data)
        csv_path = data / "input" / "sales.csv"
        text = csv_path.read_text(encoding="utf-8").replace("键盘,12,199", "键盘,100,199")
        csv_path.write_text(text, encoding="utf-8")
        return _total(data)
    finally:
        shutil.rmtree(data.parent, ignore_errors=True)


# -- 04-truncate -------------------------------------------------------------------------

KEY_LINE = re.compile(r"error|fail|exception|traceback", re.IGNORECASE)


def shrink(text, limit):
    if len(text) <= limit:
        return text
    lines = text.splitlines()
    keep = {0, len(lines) - 1} | {i for i, line in enumerate(lines) if KEY_LINE.search(line)}

    def joined(kept):
        out, previous = [], -1
        for i in sorted(kept):
            if i > previous + 1:
                out.append(f"…[truncated: {i - previous - 1} lines]")
            out.append(lines[i])
            previous = i
        return "\n".join(out)

    if len(joined(keep)) > limit:  # even these do not fit: the limit wins, cut by characters
        room = limit - len(f"\n…[truncated: {len(text)} chars]\n")  # the longest marker
        head, tail = text[: room - room // 2], text[len(text) - room // 2 :]
        return f"{head}\n…[truncated: {len(text) - len(head) - len(tail)} chars]\n{tail}"
    head, tail = 1, len(lines) - 2
    while head <= tail and len(joined(keep | {head, tail})) <= limit:  # a line each end
        keep |= {head, tail}
        head, tail = head + 1, tail - 1
    return joined(keep)


MARKER = re.compile(r"truncated|省略", re.IGNORECASE)


def _traceback_log() -> str:
    rows = [f"step {i:03d} ok" for i in range(300)]
    rows[120:124] = [
        "Traceback (most recent call last):",
        '  File "agent.py", line 42, in run',
        "ValueError: the budget must be positive",
        "retrying with defaults",
    ]
    rows[200] = "FAILED test_deadline.py::test_shared - assert 0.14 < 0.1"
    rows.append("done in 3.2 s")
    return "\n".join(rows)


def _long_line_log() -> str:
    """200 lines of 150 characters: a fixed number of lines kept is over any limit."""
    rows = [f"[{i:04d}] " + "x" * 143 for i in range(200)]
    rows[100] = "[0100] ERROR: disk quota exceeded while writing the cache"
    return "\n".join(rows)


def _many_errors_log() -> str:
    """400 lines, 12 of them errors: keeping only the first few is not keeping them all."""
    rows = [f"[{i:04d}] request ok" for i in range(400)]
    for i in range(30, 390, 30):
        rows[i] = f"[{i:04d}] ERROR: upstream timed out (attempt {i // 30})"
    return "\n".join(rows)


def truncate_cases() -> Iterator[tuple[str, str, int]]:
    """(name key, text, limit)."""
    yield "short", "第一行\n第二行\n", 100
    exact = _traceback_log()[:600]
    yield "exact", exact, len(exact)  # within the limit: `len(text) < limit` cuts it
    yield "build_log", huge_log(), 1200
    yield "traceback", _traceback_log(), 800
    yield "long_lines", _long_line_log(), 1500
    yield "many_errors", _many_errors_log(), 1500
    # the head, the tail and the key lines alone are over the limit: the limit wins
    records = [{"id": i, "name": f"item {i}", "tags": ["a", "b"]} for i in range(2000)]
    yield "one_line", json.dumps(records), 3000
    yield "all_errors", "\n".join(f"[{i:04d}] ERROR: retry {i} failed" for i in range(500)), 1000


def check_truncate(answer: Any) -> Verdict:
    need_callable(answer, "shrink")
    for name, text, limit in truncate_cases():
        label = tr(f"exercise.04-truncate.case.{name}")
        got = run_student(answer, text, limit, what=tr("exercise.04-truncate.what", case=label))
        if not isinstance(got, str):
            return wrong(tr("exercise.04-truncate.not_str", got=type_name(got)))
        problem = _truncation_problem(text, limit, got)
        if problem:
            key, fields = problem
            return wrong(tr(f"exercise.04-truncate.{key}", case=label, limit=limit, **fields))
    return passed(tr("exercise.04-truncate.passed"))


def _numbers(marker: str) -> list[int]:
    return [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", marker)]


def _truncation_problem(text: str, limit: int, got: str) -> tuple[str, dict[str, Any]] | None:
    if len(text) <= limit:
        return None if got == text else ("changed_short", {})
    lines, kept = text.splitlines(), got.splitlines()
    keys = [line for line in lines if KEY_LINE.search(line)]
    needed = sum(len(line) + 1 for line in {lines[0], lines[-1], *keys})
    if needed > limit:  # whole lines cannot fit: the limit wins
        return _cut_problem(text, limit, got, needed)
    if len(got) > limit:
        return "too_long", {"length": len(got)}
    if lines[0] not in kept:
        return "no_head", {"line": shown(lines[0])}
    if lines[-1] not in kept:
        return "no_tail", {"line": shown(lines[-1])}
    missing = Counter(keys) - Counter(kept)  # each key line, as often as it occurs
    if missing:
        return "no_key_line", {"line": shown(next(iter(missing)))}
    for line in (lines[1], lines[-2]):  # "a few lines" of head and tail: more than one
        if line not in kept:
            return "too_few_ends", {"line": shown(line)}
    if not any(MARKER.search(line) for line in kept if line not in lines):
        return "no_marker", {}
    origin: list[int | None] = []  # each kept line's index in the text; None for a marker
    position = 0
    for line in kept:
        if line in lines[position:]:
            position = lines.index(line, position) + 1
            origin.append(position - 1)
        elif not MARKER.search(line):
            return "out_of_order", {"line": shown(line)}
        else:
            origin.append(None)
    for at, line in enumerate(kept):
        if origin[at] is not None:
            if at and origin[at - 1] is not None and origin[at] > origin[at - 1] + 1:
                fields = {"before": shown(kept[at - 1]), "after": shown(line)}
                return "gap_unmarked", {**fields, "count": origin[at] - origin[at - 1] - 1}
            continue
        before = next((i for i in reversed(origin[:at]) if i is not None), -1)
        after = next((i for i in origin[at + 1 :] if i is not None), len(lines))
        removed = lines[before + 1 : after]
        if not removed:  # nothing was removed where it stands
            return "marker_misplaced", {"line": shown(line)}
        chars = sum(map(len, removed))  # with or without the line ends
        if not any(n == len(removed) or chars <= n <= chars + len(removed) for n in _numbers(line)):
            fields = {"line": shown(line), "lines": len(removed), "chars": chars}
            return "marker_count", fields
    return None


def _cut_problem(text: str, limit: int, got: str, needed: int) -> tuple[str, dict[str, Any]] | None:
    """What is off in a text cut by characters: a head, one marker line, a tail."""
    if len(got) > limit:
        return "cut_too_long", {"length": len(got), "needed": needed}
    kept = got.splitlines()
    markers = [i for i, line in enumerate(kept) if MARKER.search(line)]
    if len(markers) != 1:
        return "cut_shape", {}
    head, tail = "\n".join(kept[: markers[0]]), "\n".join(kept[markers[0] + 1 :])
    if not head or not tail or not text.startswith(head) or not text.endswith(tail):
        return "cut_shape", {}
    removed = len(text) - len(head) - len(tail)
    if not any(abs(n - removed) <= 2 for n in _numbers(kept[markers[0]])):  # the line ends
        return "cut_count", {"line": shown(kept[markers[0]]), "chars": removed}
    return None


# -- 04-trace ----------------------------------------------------------------------------


def trace_story(events):
    last = events[-1]  # the stop event; a trace cut short (the run was killed) has none
    tool_events = [e for e in events if e["event"] == "phase" and e.get("phase") == "tool"]
    return {
        "steps": last.get("step"),
        "stop_reason": last.get("stop_reason"),
        "tools": [e["tool"] for e in tool_events],
        "error_codes": [e["error_code"] for e in tool_events if e["status"] == "error"],
    }


def _trace_runs() -> Iterator[tuple[str, Any]]:
    """(scenario key, a function that makes the run, given a trace folder)."""
    yield (
        "missing_file",
        lambda folder: _with_sandbox(
            lambda tools: run_agent(
                TOOL_ERROR.task, client=scripted("todo_clerk"), tools=tools, trace_dir=folder
            )
        ),
    )
    yield (
        "repeats",
        lambda folder: run_agent(
            "等夜间构建跑完",
            client=ScriptedClient(keeps_calling("same_result", {"job": "nightly"})),
            tools=fault_tools()[0],
            budget=Budget.seed_table(),
            trace_dir=folder,
        ),
    )
    yield (
        "retry",
        lambda folder: run_agent(
            "分析 sales.csv",
            client=ScriptedClient(flaky(honest_analyst)),
            tools=sales_tools(),
            budget=Budget(max_retries=2, retry_backoff_s=0.01),
            trace_dir=folder,
        ),
    )


def _with_sandbox(make_run: Any) -> Any:
    box = sandbox_copy()
    try:
        return make_run(file_tools(box))
    finally:
        shutil.rmtree(box.parent, ignore_errors=True)


def trace_events(run: Any) -> list[dict[str, Any]]:
    """The run's trace events: ``run.events`` where the loop keeps them, else the file."""
    events = getattr(run, "events", None)
    return list(events) if events else read_trace(run.trace_path)


def _traces(folder: Path) -> Iterator[tuple[str, list[dict[str, Any]], dict[str, Any]]]:
    """(scenario key, trace events, what they tell): three real runs, then the repeats' trace
    cut short before its last tool call and its stop event, as a killed run leaves it."""
    cut: list[dict[str, Any]] = []
    for key, make_run in _trace_runs():
        run = make_run(folder)
        events = trace_events(run)
        cut = events[:-2] if key == "repeats" else cut
        yield (
            key,
            events,
            {
                "steps": run.steps,
                "stop_reason": run.stop_reason,
                "tools": [r["tool"] for r in run.tool_results],
                "error_codes": [
                    r["result"]["error"]["code"] for r in run.tool_results if r["status"] == "error"
                ],
            },
        )
    tools = [e for e in cut if e["event"] == "phase" and e.get("phase") == "tool"]
    yield (
        "cut_short",
        cut,
        {
            "steps": cut[-1]["step"],
            "stop_reason": None,
            "tools": [e["tool"] for e in tools],
            "error_codes": [e["error_code"] for e in tools if e["status"] == "error"],
        },
    )


def check_trace(answer: Any) -> Verdict:
    need_callable(answer, "trace_story")
    folder = _temp_dir()
    try:
        for key, events, expected in _traces(folder):
            events = json.loads(json.dumps(events))  # the student's own copy
            scenario = tr(f"exercise.04-trace.scenario.{key}")
            got = run_student(answer, events, what=tr("exercise.04-trace.what", scenario=scenario))
            if not isinstance(got, dict):
                return wrong(tr("exercise.need_dict_result", got=type_name(got)))
            for field, value in expected.items():
                if field not in got:
                    return wrong(tr("exercise.04-trace.missing", field=field))
                mine = list(got[field]) if isinstance(got[field], tuple) else got[field]
                if mine != value:
                    expected_, got_ = shown(value), shown(got[field])
                    key = "exercise.04-trace.mismatch"
                    return wrong(
                        tr(key, scenario=scenario, field=field, expected=expected_, got=got_)
                    )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return passed(tr("exercise.04-trace.passed"))


# -- predict, then run -------------------------------------------------------------------

PREDICT_RETRY = {
    "no_retry_stop_reason": "model_error",
    "retry_outcome": "completed",
    "retry_steps": 2,
    "retry_model_requests": 3,
}


def check_predict_retry(answer: Any) -> Verdict:
    need_prediction(answer, list(PREDICT_RETRY))

    def analyst_run(budget: Budget) -> Any:
        client = ScriptedClient(flaky(honest_analyst))
        return run_agent(
            "分析 sales.csv", client=client, tools=sales_tools(), budget=budget, trace_dir=False
        )

    plain = analyst_run(Budget())
    retried = analyst_run(Budget(max_retries=2, retry_backoff_s=0.01))
    actual = {
        "no_retry_stop_reason": plain.stop_reason,
        "retry_outcome": retried.outcome,
        "retry_steps": retried.steps,
        "retry_model_requests": retried.model_requests,
    }
    return predict("04-predict-retry", answer, actual)


PREDICT_LOGIC = {"outcome": "completed", "tool_errors": 0, "first_error_class": "logic"}


def check_predict_logic(answer: Any) -> Verdict:
    need_prediction(answer, list(PREDICT_LOGIC))
    outcomes = iter(
        [error("TESTS_FAILED", "2 tests failed: test_deadline, test_repeat"), ok({"passed": 41})]
    )
    tests = ToolRegistry([Tool("run_tests", "运行测试", {}, lambda: next(outcomes))])
    client = ScriptedClient([call("run_tests"), call("run_tests"), say("测试全部通过")])
    run = run_agent("修好测试", client=client, tools=tests, trace_dir=False)
    actual = {
        "outcome": run.outcome,
        "tool_errors": run.tool_errors,
        "first_error_class": run.tool_results[0]["error_class"],
    }
    return predict("04-predict-logic", answer, actual)


EXERCISES = [
    Exercise("04-classify", check_classify, error_class),
    Exercise("04-should-retry", check_should_retry, should_retry),
    Exercise("04-done-when", check_done_when, make_done_when),
    Exercise("04-truncate", check_truncate, shrink),
    Exercise("04-trace", check_trace, trace_story),
    Exercise("04-predict-retry", check_predict_retry, PREDICT_RETRY),
    Exercise("04-predict-logic", check_predict_logic, PREDICT_LOGIC),
]

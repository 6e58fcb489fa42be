"""Chapter 04 exercises: error classes, retries, completion checks, truncation, traces.

Checks only; reference and wrong answers live in ``solutions.py`` and
``wrong.py``. The expected error classes come from :mod:`agentlab.model.failures`
itself, so the exercise and the loop cannot drift apart.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ... import Budget, run_agent
from ...clients import ScriptedClient, call, say, scripted
from ...clients.behaviours import honest_analyst
from ...i18n import tr
from ...loop.trace import read_trace
from ...model.failures import ModelFailure, model_failure_class
from ...tools import Tool, ToolRegistry, error, file_tools, ok, sales_tools, sandbox_copy
from ...tools.result import tool_error_class
from ...tools.sales import COURSE_DATA_DIR
from ..faults import fault_tools, flaky, huge_log, keeps_calling
from . import solutions, wrong
from .core import (
    Exercise,
    Verdict,
    need_callable,
    need_prediction,
    passed,
    predict,
    run_student,
    shown,
    type_name,
)
from .core import wrong as wrong_verdict
from .loops import TOOL_ERROR

# -- 04-classify -------------------------------------------------------------------------

CLASSIFY_STARTER = '''\
def error_class(failure):
    """失败属于哪一类："transient"、"invalid_input"、"permission" 还是 "logic"。

    failure 是 int（模型服务返回的 HTTP 状态码）或 str（工具结果里的错误码）。
    """
    raise NotImplementedError("在这里写")
'''

CLASSIFY_PROBES: tuple[int | str, ...] = (
    429,
    500,
    503,
    529,  # "5xx 全部算瞬时": not only the 500/502/503/504 everyone has seen
    408,
    409,
    401,
    403,
    400,
    404,
    422,
    "UNAVAILABLE",
    "TIMEOUT",
    "RATE_LIMITED",
    "PATH_NOT_ALLOWED",
    "PERMISSION_DENIED",
    "POLICY_DENIED",
    "TESTS_FAILED",
    "CHECK_FAILED",
    "FILE_NOT_FOUND",
    "INVALID_ARGUMENTS",
    "UNKNOWN_TOOL",
    "INVALID_ROW",
    "READ_FAILED",  # the file tools' own codes: "FAIL" in a name does not make it logic
    "WRITE_FAILED",
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
            return wrong_verdict(
                tr(
                    "exercise.04-classify.mismatch",
                    failure=label,
                    expected=expected,
                    why=tr(f"exercise.04-classify.why.{expected}"),
                    got=shown(got),
                )
            )
    return passed(tr("exercise.04-classify.passed", count=len(CLASSIFY_PROBES)))


# -- 04-should-retry ---------------------------------------------------------------------

SHOULD_RETRY_STARTER = '''\
def should_retry(error_class, attempt, max_retries, wait_s, time_left_s):
    """一次模型请求刚刚失败：要不要退避之后再试？返回 True / False。

    error_class：这次失败的类别；attempt：刚刚失败的是第几次尝试（第一次请求是 1）；
    max_retries：第一次之外最多再试几次；wait_s：下一次之前要等几秒；
    time_left_s：离截止时间还剩几秒（None 表示没有截止时间）。
    """
    raise NotImplementedError("在这里写")
'''

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
    ("no_time_left", ("transient", 1, 2, 0.2, 0.0), False),  # 0.0 is a deadline, not None
    ("no_retries", ("transient", 1, 0, 0.2, None), False),
)


def check_should_retry(answer: Any) -> Verdict:
    need_callable(answer, "should_retry")
    for why, arguments, expected in RETRY_PROBES:
        shown_call = "should_retry" + repr(arguments)
        got = run_student(answer, *arguments, what=shown_call)
        if not isinstance(got, bool) or got is not expected:
            return wrong_verdict(
                tr(
                    "exercise.04-should-retry.mismatch",
                    call=shown_call,
                    expected=expected,
                    why=tr(f"exercise.04-should-retry.why.{why}"),
                    got=shown(got),
                )
            )
    return passed(tr("exercise.04-should-retry.passed"))


# -- 04-done-when ------------------------------------------------------------------------

DONE_WHEN_STARTER = '''\
def make_done_when(box, expected_total):
    """为“写销售报告”任务造一个独立的完成判据。

    返回 done_when(answer)：box/"report.md" 存在，并且里面有一行“总销售额 <expected_total>”
    时返回 True；否则返回一句话，说明还缺什么（这句话会交回模型）。
    不要相信 answer 里模型自己说的“写好了”。
    """
    def done_when(answer):
        raise NotImplementedError("在这里写")

    return done_when
'''


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
        return wrong_verdict(tr("exercise.04-done-when.returned_none"))
    need_callable(done_when, "done_when")
    report = box / "report.md"

    def verdict_for(answer_text: str) -> Any:
        return run_student(done_when, answer_text, what=what)

    got = verdict_for("报告写好了！")
    if got is True:
        return wrong_verdict(tr("exercise.04-done-when.trusts_answer"))
    if not isinstance(got, str) or not got.strip():
        return wrong_verdict(tr("exercise.04-done-when.no_reason", got=shown(got)))
    # a wrong total, and one that merely contains the right one (96920 holds 9692)
    for wrong_total in (total - 692, total * 10):
        report.write_text(f"# 销售报告\n总销售额 {wrong_total}\n", encoding="utf-8")
        if verdict_for("写好了") is True:
            return wrong_verdict(
                tr("exercise.04-done-when.wrong_total", wrong=wrong_total, total=total)
            )
    report.write_text(f"# 销售报告\n总销售额 {total}\n", encoding="utf-8")
    got = verdict_for("写好了")
    if got is not True:
        return wrong_verdict(tr("exercise.04-done-when.rejects_good", total=total, got=shown(got)))

    other = _other_total()
    other_box = _temp_dir()
    try:
        (other_box / "report.md").write_text(f"总销售额 {other}\n", encoding="utf-8")
        other_check = run_student(answer, other_box, other, what=what)
        if run_student(other_check, "写好了", what=what) is not True:
            return wrong_verdict(tr("exercise.04-done-when.hard_coded", total=total, other=other))
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
        return wrong_verdict(tr("exercise.04-done-when.run", outcome=run.outcome, steps=run.steps))
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

TRUNCATE_STARTER = '''\
import re

KEY_LINE = re.compile(r"error|fail|exception|traceback", re.IGNORECASE)

def shrink(text, limit):
    """把太长的工具输出缩到 limit 个字符以内，但保住最有用的部分。

    - 不超过 limit：原样返回；
    - 否则保留：开头几行、结尾几行、所有“关键行”（匹配 KEY_LINE 的整行），
      被删掉的地方放一行标记，写明 truncated（或“省略”）和删了多少；
    - 保留的行按原来的顺序，每行完整，不拆开。
    """
    raise NotImplementedError("在这里写")
'''

KEY_LINE = re.compile(r"error|fail|exception|traceback", re.IGNORECASE)
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


def truncate_cases() -> Iterator[tuple[str, str, int]]:
    """(name key, text, limit)."""
    yield "short", "第一行\n第二行\n", 100
    yield "build_log", huge_log(), 1200
    yield "traceback", _traceback_log(), 800
    yield "long_lines", _long_line_log(), 1500


def _long_line_log() -> str:
    """200 lines of 150 characters: a fixed number of lines kept is over any limit."""
    rows = [f"[{i:04d}] " + "x" * 143 for i in range(200)]
    rows[100] = "[0100] ERROR: disk quota exceeded while writing the cache"
    return "\n".join(rows)


def check_truncate(answer: Any) -> Verdict:
    need_callable(answer, "shrink")
    for name, text, limit in truncate_cases():
        label = tr(f"exercise.04-truncate.case.{name}")
        got = run_student(answer, text, limit, what=tr("exercise.04-truncate.what", case=label))
        if not isinstance(got, str):
            return wrong_verdict(tr("exercise.04-truncate.not_str", got=type_name(got)))
        problem = _truncation_problem(text, limit, got)
        if problem:
            key, fields = problem
            return wrong_verdict(tr(key, case=label, limit=limit, **fields))
    return passed(tr("exercise.04-truncate.passed"))


def _truncation_problem(text: str, limit: int, got: str) -> tuple[str, dict[str, Any]] | None:
    if len(text) <= limit:
        return None if got == text else ("exercise.04-truncate.changed_short", {})
    if len(got) > limit:
        return "exercise.04-truncate.too_long", {"length": len(got)}
    lines, kept = text.splitlines(), got.splitlines()
    if lines[0] not in kept:
        return "exercise.04-truncate.no_head", {"line": shown(lines[0])}
    if lines[-1] not in kept:
        return "exercise.04-truncate.no_tail", {"line": shown(lines[-1])}
    for line in lines:
        if KEY_LINE.search(line) and line not in kept:
            return "exercise.04-truncate.no_key_line", {"line": shown(line)}
    for line in (lines[1], lines[-2]):  # "a few lines" of head and tail: more than one
        if line not in kept:
            return "exercise.04-truncate.too_few_ends", {"line": shown(line)}
    if not any(MARKER.search(line) for line in kept if line not in lines):
        return "exercise.04-truncate.no_marker", {}
    origin: list[int | None] = []  # each kept line's index in the text; None for a marker
    position = 0
    for line in kept:
        if line in lines[position:]:
            position = lines.index(line, position) + 1
            origin.append(position - 1)
        elif not MARKER.search(line):
            return "exercise.04-truncate.out_of_order", {"line": shown(line)}
        else:
            origin.append(None)
    for at, line in enumerate(kept):
        if origin[at] is not None:
            continue
        if not re.search(r"\d", line):  # "and how much was removed"
            return "exercise.04-truncate.marker_no_count", {"line": shown(line)}
        before = next((i for i in reversed(origin[:at]) if i is not None), -1)
        after = next((i for i in origin[at + 1 :] if i is not None), len(lines))
        if after - before <= 1:  # nothing was removed where it stands
            return "exercise.04-truncate.marker_misplaced", {"line": shown(line)}
    return None


# -- 04-trace ----------------------------------------------------------------------------

TRACE_STARTER = '''\
def trace_story(events):
    """从一次运行的轨迹事件里读出它的故事。

    events 是字典列表（trace.jsonl 的每一行）。返回
    {"steps": 停在第几步, "stop_reason": 停止原因,
     "tools": 按顺序执行（或拒绝）过的工具名, "error_codes": 出错的工具调用的错误码}
    """
    raise NotImplementedError("在这里写")
'''


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


def check_trace(answer: Any) -> Verdict:
    need_callable(answer, "trace_story")
    folder = _temp_dir()
    try:
        for key, make_run in _trace_runs():
            run = make_run(folder)
            expected = {
                "steps": run.steps,
                "stop_reason": run.stop_reason,
                "tools": [r["tool"] for r in run.tool_results],
                "error_codes": [
                    r["result"]["error"]["code"] for r in run.tool_results if r["status"] == "error"
                ],
            }
            events = json.loads(json.dumps(trace_events(run)))  # the student's own copy
            scenario = tr(f"exercise.04-trace.scenario.{key}")
            got = run_student(answer, events, what=tr("exercise.04-trace.what", scenario=scenario))
            if not isinstance(got, dict):
                return wrong_verdict(tr("exercise.need_dict_result", got=type_name(got)))
            for field, value in expected.items():
                if field not in got:
                    return wrong_verdict(tr("exercise.04-trace.missing", field=field))
                mine = list(got[field]) if isinstance(got[field], tuple) else got[field]
                if mine != value:
                    return wrong_verdict(
                        tr(
                            "exercise.04-trace.mismatch",
                            scenario=scenario,
                            field=field,
                            expected=shown(value),
                            got=shown(got[field]),
                        )
                    )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return passed(tr("exercise.04-trace.passed"))


# -- predict, then run ------------------------------------------------------------------

PREDICT_RETRY_STARTER = """\
# 网关第一次请求回 HTTP 429，之后正常。同一个分析员跑两次：
#   A：默认预算（不重试）；B：Budget(max_retries=2, retry_backoff_s=0.01)。先预测。
prediction_retry = {
    "no_retry_stop_reason": ...,   # A 的停止原因
    "retry_outcome": ...,          # B 的结局
    "retry_steps": ...,            # B 用了几步
    "retry_model_requests": ...,   # B 一共发了几次模型请求
}
"""


def check_predict_retry(answer: Any) -> Verdict:
    need_prediction(
        answer, ["no_retry_stop_reason", "retry_outcome", "retry_steps", "retry_model_requests"]
    )
    plain = run_agent(
        "分析 sales.csv",
        client=ScriptedClient(flaky(honest_analyst)),
        tools=sales_tools(),
        trace_dir=False,
    )
    retried = run_agent(
        "分析 sales.csv",
        client=ScriptedClient(flaky(honest_analyst)),
        tools=sales_tools(),
        budget=Budget(max_retries=2, retry_backoff_s=0.01),
        trace_dir=False,
    )
    actual = {
        "no_retry_stop_reason": plain.stop_reason,
        "retry_outcome": retried.outcome,
        "retry_steps": retried.steps,
        "retry_model_requests": retried.model_requests,
    }
    return predict("04-predict-retry", answer, actual)


PREDICT_LOGIC_STARTER = """\
# 工具 run_tests 第一次返回 error("TESTS_FAILED", ...)，第二次返回 ok；模型看到通过后回答。先预测。
prediction_logic = {
    "outcome": ...,
    "tool_errors": ...,         # 算几次工具错误？
    "first_error_class": ...,   # 第一次结果的错误类别
}
"""


def check_predict_logic(answer: Any) -> Verdict:
    need_prediction(answer, ["outcome", "tool_errors", "first_error_class"])
    outcomes = iter(
        [error("TESTS_FAILED", "2 tests failed: test_deadline, test_repeat"), ok({"passed": 41})]
    )
    tests = ToolRegistry([Tool("run_tests", "运行测试", {}, lambda: next(outcomes))])
    run = run_agent(
        "修好测试",
        client=ScriptedClient([call("run_tests"), call("run_tests"), say("测试全部通过")]),
        tools=tests,
        trace_dir=False,
    )
    actual = {
        "outcome": run.outcome,
        "tool_errors": run.tool_errors,
        "first_error_class": run.tool_results[0]["error_class"],
    }
    return predict("04-predict-logic", answer, actual)


EXERCISES = [
    Exercise(
        "04-classify",
        "04",
        "code",
        "error_class",
        CLASSIFY_STARTER,
        check_classify,
        solutions.error_class,
        wrong.CLASSIFY,
    ),
    Exercise(
        "04-should-retry",
        "04",
        "code",
        "should_retry",
        SHOULD_RETRY_STARTER,
        check_should_retry,
        solutions.should_retry,
        wrong.SHOULD_RETRY,
    ),
    Exercise(
        "04-done-when",
        "04",
        "code",
        "make_done_when",
        DONE_WHEN_STARTER,
        check_done_when,
        solutions.make_done_when,
        wrong.DONE_WHEN,
    ),
    Exercise(
        "04-truncate",
        "04",
        "code",
        "shrink",
        TRUNCATE_STARTER,
        check_truncate,
        solutions.shrink,
        wrong.TRUNCATE,
    ),
    Exercise(
        "04-trace",
        "04",
        "code",
        "trace_story",
        TRACE_STARTER,
        check_trace,
        solutions.trace_story,
        wrong.TRACE,
    ),
    Exercise(
        "04-predict-retry",
        "04",
        "predict",
        "prediction_retry",
        PREDICT_RETRY_STARTER,
        check_predict_retry,
        solutions.PREDICT_RETRY,
        wrong.PREDICT_RETRY,
    ),
    Exercise(
        "04-predict-logic",
        "04",
        "predict",
        "prediction_logic",
        PREDICT_LOGIC_STARTER,
        check_predict_logic,
        solutions.PREDICT_LOGIC,
        wrong.PREDICT_LOGIC,
    ),
]

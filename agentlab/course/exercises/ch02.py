"""Chapter 02 exercises: the step cap, the whitelist, the three endings, a stub test.

The student's loop from chapter 01 grows a reported ending and a cap that
holds exactly (``02-capped-loop``); whitelist dispatch is written by hand
over a plain dict of functions (``02-dispatch``); a stub-client unit test
must catch loops that overrun the cap or lie about how they ended
(``02-stub-test``); the rest are predict-then-run questions on tool status
vs run status and on the CSV tool's boundary cases.

Checks only; reference and wrong answers live in ``solutions.py`` and
``wrong.py``.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ... import Budget, run_agent
from ...clients import Conversation, Reply, ScriptedClient, call, say, scripted
from ...clients.behaviours import describe_sales
from ...tools import ok, sales_tools
from ...tools.sales import COURSE_DATA_DIR
from . import solutions, wrong
from .core import (
    Exercise,
    Judged,
    Verdict,
    code_of,
    need_callable,
    need_prediction,
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
    UNKNOWN_TOOL,
    Scenario,
    check_returned_messages,
    compare,
    reference_run,
    student_run,
)
from .texts import tr

QUESTION = "分析 data/input/sales.csv，告诉我销售额最高的类别、各类别销售额和总销售额。"

# -- predict, then run ---------------------------------------------------------------

PREDICT_CAP1_STARTER = """\
# 诚实的分析员需要 2 步（调用 analyze_csv，再回答）。只给 max_steps=1 会怎样？先预测。
prediction_cap1 = {
    "status": ...,
    "outcome": ...,
    "stop_reason": ...,
    "steps": ...,
    "tool_calls": ...,   # analyze_csv 执行了几次？
}
"""


def check_predict_cap1(answer: Any) -> Verdict:
    need_prediction(answer, ["status", "outcome", "stop_reason", "steps", "tool_calls"])
    run = run_agent(
        QUESTION,
        client=scripted("honest_analyst"),
        tools=sales_tools(),
        budget=Budget(max_steps=1),
        trace_dir=False,
    )
    actual = {
        "status": run.status,
        "outcome": run.outcome,
        "stop_reason": run.stop_reason,
        "steps": run.steps,
        "tool_calls": run.tool_calls,
    }
    return predict("02-predict-cap1", answer, actual)


PREDICT_FOUR_OK_STARTER = """\
# 测试桩模型连续 4 次调用 analyze_csv（每次都成功），第 5 次才会回答；max_steps=4。先预测。
prediction_four_ok = {
    "status": ...,
    "outcome": ...,
    "stop_reason": ...,
    "steps": ...,
    "tool_errors": ...,
}
"""


def check_predict_four_ok(answer: Any) -> Verdict:
    need_prediction(answer, ["status", "outcome", "stop_reason", "steps", "tool_errors"])
    stub = ScriptedClient([call("analyze_csv", relative_path="sales.csv")] * 4 + [say("完成")])
    run = run_agent(
        QUESTION, client=stub, tools=sales_tools(), budget=Budget(max_steps=4), trace_dir=False
    )
    actual = {
        "status": run.status,
        "outcome": run.outcome,
        "stop_reason": run.stop_reason,
        "steps": run.steps,
        "tool_errors": run.tool_errors,
    }
    return predict("02-predict-four-ok", answer, actual)


def wrong_file_first(conversation: Conversation) -> Reply:
    """Reads a file that does not exist, then the right one, then answers from its data."""
    results = conversation.tool_results()
    if not results:
        return call("analyze_csv", relative_path="sales_2023.csv")
    if results[-1].get("status") != "ok":
        return call("analyze_csv", relative_path="sales.csv")
    return say(describe_sales(results[-1]["data"]))


PREDICT_RECOVER_STARTER = """\
# 模型先读了不存在的 sales_2023.csv（FILE_NOT_FOUND），再改读 sales.csv，然后回答。
# max_steps=4。先预测。
prediction_recover = {
    "status": ...,
    "outcome": ...,
    "stop_reason": ...,
    "steps": ...,
    "tool_errors": ...,
}
"""


def check_predict_recover(answer: Any) -> Verdict:
    need_prediction(answer, ["status", "outcome", "stop_reason", "steps", "tool_errors"])
    run = run_agent(
        "分析销售数据",
        client=ScriptedClient(wrong_file_first),
        tools=sales_tools(),
        budget=Budget(max_steps=4),
        trace_dir=False,
    )
    actual = {
        "status": run.status,
        "outcome": run.outcome,
        "stop_reason": run.stop_reason,
        "steps": run.steps,
        "tool_errors": run.tool_errors,
    }
    return predict("02-predict-recover", answer, actual)


BOUNDARY_FILES = {
    "empty.csv": "",
    "header_only.csv": "category,quantity,unit_price\n",
    "no_price.csv": "category,quantity\n键盘,3\n",
}
BOUNDARY_CASES = (
    "sales.csv",
    "empty.csv",
    "header_only.csv",
    "no_price.csv",
    "negative.csv",
    "missing.csv",
    "../sales.csv",
)

PREDICT_BOUNDARY_STARTER = """\
# analyze_csv 读下面每个文件（都在 input/ 里）会返回什么？写错误码；没有错误就写 "ok"。
prediction_boundary = {
    "sales.csv": ...,         # 教学数据本身
    "empty.csv": ...,         # 空文件，0 字节
    "header_only.csv": ...,   # 只有表头 category,quantity,unit_price
    "no_price.csv": ...,      # 表头是 category,quantity（少了 unit_price）
    "negative.csv": ...,      # sales.csv 末尾多一行 耳机,-2,99
    "missing.csv": ...,       # 这个文件不存在
    "../sales.csv": ...,      # input/ 外面
}
"""


def check_predict_boundary(answer: Any) -> Verdict:
    need_prediction(answer, list(BOUNDARY_CASES))
    data = Path(tempfile.mkdtemp(prefix="agentlab-exercise-")) / "data"
    try:
        shutil.copytree(COURSE_DATA_DIR, data)
        for name, text in BOUNDARY_FILES.items():
            (data / "input" / name).write_text(text, encoding="utf-8")
        sales = (data / "input" / "sales.csv").read_text(encoding="utf-8")
        (data / "input" / "negative.csv").write_text(sales + "耳机,-2,99\n", encoding="utf-8")
        tools = sales_tools(data)
        actual = {}
        for name in BOUNDARY_CASES:
            result = tools.call("analyze_csv", json.dumps({"relative_path": name}))
            actual[name] = "ok" if result["status"] == "ok" else result["error"]["code"]
    finally:
        shutil.rmtree(data.parent, ignore_errors=True)
    return predict("02-boundary", answer, actual)


# -- 02-dispatch: whitelist by hand ----------------------------------------------------

DISPATCH_STARTER = '''\
import json
from agentlab.tools import error, ok

def dispatch(tools, name, arguments_json):
    """按白名单执行一次工具调用，永远返回结构化结果，永远不抛异常。

    tools 是 {工具名: 函数} 的字典，函数返回 ok(...) 或 error(...)。
    - name 不在 tools 里          -> error("UNKNOWN_TOOL", ...)
    - 参数不是合法 JSON 或不是对象  -> error("INVALID_ARGUMENTS", ...)（空字符串当作 {}）
    - 函数自己抛了异常              -> error("TOOL_EXCEPTION", ...)
    - 否则返回函数的结果
    """
    raise NotImplementedError("在这里写")
'''


def _boom() -> dict[str, Any]:
    raise ValueError(tr("exercise.02-dispatch.boom"))


def _lookup(key: str) -> dict[str, Any]:
    return ok({"price": {"键盘": 199}[key]})  # a KeyError of the tool's own: not UNKNOWN_TOOL


DISPATCH_TOOLS = {
    "add": lambda a, b: ok({"sum": a + b}),
    "today": lambda: ok({"date": "2024-06-01"}),
    "boom": _boom,
    "price_of": _lookup,
}

# (what it probes, name, arguments, the code expected: None means the tool's own result)
DISPATCH_PROBES = (
    ("good", "add", '{"a": 2, "b": 3}', None),
    ("unknown", "delete_all", '{"path": "/"}', "UNKNOWN_TOOL"),
    ("bad_json", "add", '{"a": 2, "b": ', "INVALID_ARGUMENTS"),
    ("not_object", "add", "[2, 3]", "INVALID_ARGUMENTS"),
    ("null", "today", "null", "INVALID_ARGUMENTS"),  # `json.loads(...) or {}` lets it through
    ("raises", "boom", "{}", "TOOL_EXCEPTION"),
    ("raises_key_error", "price_of", '{"key": "鼠标"}', "TOOL_EXCEPTION"),
    ("empty", "today", "", None),
)


def check_dispatch(answer: Any) -> Verdict:
    need_callable(answer, "dispatch")
    for probe, name, arguments, code in DISPATCH_PROBES:
        what = tr(f"exercise.02-dispatch.probe.{probe}", name=name, arguments=arguments)
        got = run_student(answer, dict(DISPATCH_TOOLS), name, arguments, what=what)
        if code is None:
            expected = DISPATCH_TOOLS[name](**(json.loads(arguments) if arguments else {}))
            if got != expected:
                return wrong_verdict(
                    tr(
                        "exercise.02-dispatch.result",
                        what=what,
                        expected=_said(expected),
                        got=_said(got),
                    )
                )
            continue
        if isinstance(got, dict) and "status" not in got:
            return wrong_verdict(
                tr("exercise.02-dispatch.not_a_result", what=what, code=code, got=shown(got))
            )
        error = got.get("error") if isinstance(got, dict) else None
        got_code = error.get("code") if isinstance(error, dict) else None
        if not isinstance(got, dict) or got.get("status") != "error" or got_code != code:
            return wrong_verdict(
                tr("exercise.02-dispatch.code", what=what, code=code, got=_said(got))
            )
    return passed(tr("exercise.02-dispatch.passed"))


def _said(result: Any) -> str:
    """A result as the student should read it: an error's code and message apart, so that
    the message (the cause) is not cut off behind the rest of the dict."""
    error = result.get("error") if isinstance(result, dict) else None
    if isinstance(result, dict) and result.get("status") == "error" and isinstance(error, dict):
        code, message = shown(error.get("code")), shown(error.get("message"), 160)
        return f"status='error', code={code}, message={message}"
    return shown(result, 120)


# -- 02-capped-loop: the cap and the ending ---------------------------------------------

CAPPED_STARTER = '''\
import json

def capped_loop(task, client, tools, max_steps):
    """第 1 章的循环，现在还要报告它是怎么结束的：返回 (messages, ending)。

    ending 是 "answered"（拿到了最终回答）或 "max_steps"（用完了步数上限）。
    模型最多被请求 max_steps 次；正好在第 max_steps 步回答，也算 "answered"。
    """
    system = "你是一个谨慎的助手，只根据工具结果回答。"
    messages = [{"role": "system", "content": system}, {"role": "user", "content": task}]
    raise NotImplementedError("在这里写（可以从你第 1 章的 my_loop 开始）")
'''

ANSWERS_AT_CAP = Scenario("answers_at_cap", "todo_clerk", TODO_TASK, 3)
CAP_ONE = Scenario("cap_one", "todo_clerk", TODO_TASK, 1)
CAPPED_SCENARIOS = (
    HONEST,
    UNKNOWN_TOOL,
    ANSWERS_AT_CAP,
    CAP_ONE,
    NEVER_STOPS,
    NEVER_STOPS_TWO_CALLS,
)


def check_capped_loop(answer: Any) -> Verdict:
    need_callable(answer, "capped_loop")
    for scenario in CAPPED_SCENARIOS:
        ref, ending = reference_run(scenario)
        got = student_run(answer, scenario, "capped_loop")
        compare(got, ref, scenario, ending)
        returned = got.returned
        if not isinstance(returned, tuple | list) or len(returned) != 2:
            return wrong_verdict(
                tr(
                    "exercise.02-capped-loop.return_pair",
                    scenario=scenario.name,
                    got=type_name(returned),
                )
            )
        messages, got_ending = returned
        if isinstance(messages, str) and isinstance(got_ending, list | tuple):
            return wrong_verdict(
                tr("exercise.02-capped-loop.reversed", scenario=scenario.name, got=shown(messages))
            )
        check_returned_messages(messages, ref, scenario, "capped_loop")
        if not isinstance(got_ending, str):
            return wrong_verdict(
                tr(
                    "exercise.02-capped-loop.ending_not_str",
                    scenario=scenario.name,
                    got=shown(got_ending),
                    kind=type_name(got_ending),
                )
            )
        if got_ending != ending:
            key = f"exercise.02-capped-loop.ending_{ending}"
            return wrong_verdict(
                tr(
                    key,
                    scenario=scenario.name,
                    cap=scenario.max_steps,
                    steps=len(ref.requests),
                    got=shown(got_ending),
                )
            )
    return passed(tr("exercise.02-capped-loop.passed", count=len(CAPPED_SCENARIOS)))


# -- 02-stub-test: a unit test with a stub client ---------------------------------------

STUB_TEST_STARTER = '''\
from agentlab.clients import ScriptedClient, call
from agentlab.tools import sales_tools

def test_step_cap(loop):
    """用测试桩检查一个循环守住了步数上限。

    loop(task, client, tools, max_steps) 返回 (messages, ending)，就像 capped_loop。
    正确的循环要让这个测试通过；多请求一次、或谎报结局的循环要让它失败（AssertionError）。
    """
    cap = 4
    stub = ScriptedClient([call("analyze_csv", relative_path="sales.csv")] * 100, name="stub")
    # 1) 用 stub 和 sales_tools() 跑 loop，任务随便写，例如 "分析 sales.csv"
    # 2) assert 模型请求次数 len(stub.requests) 不超过 cap
    # 3) assert 结局 ending 是 "max_steps"
    raise NotImplementedError("在这里写测试")
'''

# (catalog key naming the loop, the loop handed to the student's test, must the test pass?)
STUB_LOOPS = (
    ("correct", solutions.capped_loop, True),
    ("one_extra", wrong.capped_one_extra, False),
    ("lies", wrong.capped_always_answered, False),
)


def _unnamed(loop: Callable[..., Any]) -> Callable[..., Any]:
    """``loop`` under one name for every loop: a test must judge what it does."""

    def wrapped(task: str, client: Any, tools: Any, max_steps: int) -> Any:
        return loop(task, client, tools, max_steps)

    wrapped.__name__ = wrapped.__qualname__ = "loop"  # what an error message names
    return wrapped


def _catches_assertions(answer: Any) -> bool:
    """Does the test's own code name AssertionError (``except AssertionError``)?"""
    return any("AssertionError" in code.co_names for code in code_of(answer))


def check_stub_test(answer: Any) -> Verdict:
    need_callable(answer, "test_step_cap")
    for key, loop, should_pass in STUB_LOOPS:
        what = tr(f"exercise.02-stub-test.loop.{key}")
        returned = None
        try:
            returned = run_student(answer, _unnamed(loop), what=what)
            test_passed = True
        except Judged as judged:
            if judged.verdict.status != "wrong":
                raise
            failure = judged.verdict.detail
            test_passed = False
        if should_pass and not test_passed:
            return wrong_verdict(tr("exercise.02-stub-test.fails_correct", detail=failure))
        if not should_pass and test_passed:
            missed = tr(f"exercise.02-stub-test.missed.{key}")
            if returned is not None:  # a verdict returned is a verdict nobody reads
                missed += tr("exercise.02-stub-test.returned", got=shown(returned))
            elif _catches_assertions(answer):
                missed += tr("exercise.02-stub-test.caught")
            return wrong_verdict(missed)
    return passed(tr("exercise.02-stub-test.passed"))


EXERCISES = [
    Exercise(
        "02-predict-cap1",
        "02",
        "predict",
        "prediction_cap1",
        PREDICT_CAP1_STARTER,
        check_predict_cap1,
        solutions.PREDICT_CAP1,
        wrong.PREDICT_CAP1,
    ),
    Exercise(
        "02-predict-four-ok",
        "02",
        "predict",
        "prediction_four_ok",
        PREDICT_FOUR_OK_STARTER,
        check_predict_four_ok,
        solutions.PREDICT_FOUR_OK,
        wrong.PREDICT_FOUR_OK,
    ),
    Exercise(
        "02-predict-recover",
        "02",
        "predict",
        "prediction_recover",
        PREDICT_RECOVER_STARTER,
        check_predict_recover,
        solutions.PREDICT_RECOVER,
        wrong.PREDICT_RECOVER,
    ),
    Exercise(
        "02-dispatch",
        "02",
        "code",
        "dispatch",
        DISPATCH_STARTER,
        check_dispatch,
        solutions.dispatch,
        wrong.DISPATCH,
    ),
    Exercise(
        "02-capped-loop",
        "02",
        "code",
        "capped_loop",
        CAPPED_STARTER,
        check_capped_loop,
        solutions.capped_loop,
        wrong.CAPPED_LOOP,
    ),
    Exercise(
        "02-stub-test",
        "02",
        "code",
        "test_step_cap",
        STUB_TEST_STARTER,
        check_stub_test,
        solutions.test_step_cap,
        wrong.STUB_TEST,
    ),
    Exercise(
        "02-boundary",
        "02",
        "predict",
        "prediction_boundary",
        PREDICT_BOUNDARY_STARTER,
        check_predict_boundary,
        solutions.PREDICT_BOUNDARY,
        wrong.PREDICT_BOUNDARY,
    ),
]

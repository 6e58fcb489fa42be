"""Chapter 02 exercises: the step cap, the whitelist, the three endings, a stub test.

The student's loop from chapter 01 grows a reported ending and a cap that holds
exactly (``02-capped-loop``); whitelist dispatch is written by hand over a plain
dict of functions (``02-dispatch``); a stub-client unit test must catch loops
that overrun the cap or lie about how they ended (``02-stub-test``); the rest
are predict-then-run questions on tool status vs run status and on the CSV
tool's boundary cases.

Each exercise in turn: its reference answer, its named mistakes, its check.
The starter code is in ``units/<id>.toml``.
"""

from __future__ import annotations

import functools
import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ... import Budget, run_agent
from ...clients import Conversation, Reply, ScriptedClient, call, say, scripted
from ...clients.behaviours import describe_sales
from ...tools import error, ok, sales_tools
from ...tools.sales import COURSE_DATA_DIR
from .core import (
    Exercise,
    Judged,
    OutOfTime,
    Verdict,
    code_of,
    describe,
    need_callable,
    need_prediction,
    passed,
    predict,
    shown,
    type_name,
    unit,
    wrong,
)
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
from .mistakes import Mistake
from .running import run_student
from .texts import tr

QUESTION = "分析 data/input/sales.csv，告诉我销售额最高的类别、各类别销售额和总销售额。"

# -- predict, then run -----------------------------------------------------------------

PREDICT_CAP1 = {
    "status": "failed",
    "outcome": "budget_exhausted",
    "stop_reason": "max_steps",
    "steps": 1,
    "tool_calls": 1,
}


def _endings(run: Any) -> dict[str, Any]:
    return {"status": run.status, "outcome": run.outcome, "stop_reason": run.stop_reason}


def check_predict_cap1(answer: Any) -> Verdict:
    need_prediction(answer, list(PREDICT_CAP1))
    client, budget = scripted("honest_analyst"), Budget(max_steps=1)
    run = run_agent(QUESTION, client=client, tools=sales_tools(), budget=budget, trace_dir=False)
    actual = {**_endings(run), "steps": run.steps, "tool_calls": run.tool_calls}
    return predict("02-predict-cap1", answer, actual)


PREDICT_FOUR_OK = {
    "status": "failed",
    "outcome": "budget_exhausted",
    "stop_reason": "max_steps",
    "steps": 4,
    "tool_errors": 0,
}


def check_predict_four_ok(answer: Any) -> Verdict:
    need_prediction(answer, list(PREDICT_FOUR_OK))
    stub = ScriptedClient([call("analyze_csv", relative_path="sales.csv")] * 4 + [say("完成")])
    budget = Budget(max_steps=4)
    run = run_agent(QUESTION, client=stub, tools=sales_tools(), budget=budget, trace_dir=False)
    actual = {**_endings(run), "steps": run.steps, "tool_errors": run.tool_errors}
    return predict("02-predict-four-ok", answer, actual)


def wrong_file_first(conversation: Conversation) -> Reply:
    """Reads a file that does not exist, then the right one, then answers from its data."""
    results = conversation.tool_results()
    if not results:
        return call("analyze_csv", relative_path="sales_2023.csv")
    if results[-1].get("status") != "ok":
        return call("analyze_csv", relative_path="sales.csv")
    return say(describe_sales(results[-1]["data"]))


PREDICT_RECOVER = {
    "status": "completed",
    "outcome": "completed",
    "stop_reason": "answered",
    "steps": 3,
    "tool_errors": 1,
}


def check_predict_recover(answer: Any) -> Verdict:
    need_prediction(answer, list(PREDICT_RECOVER))
    client, budget = ScriptedClient(wrong_file_first), Budget(max_steps=4)
    run = run_agent(
        "分析销售数据", client=client, tools=sales_tools(), budget=budget, trace_dir=False
    )
    actual = {**_endings(run), "steps": run.steps, "tool_errors": run.tool_errors}
    return predict("02-predict-recover", answer, actual)


PREDICT_BOUNDARY = {
    "sales.csv": "ok",
    "empty.csv": "EMPTY_CSV",
    "header_only.csv": "EMPTY_CSV",
    "no_price.csv": "INVALID_CSV",
    "negative.csv": "INVALID_ROW",
    "missing.csv": "FILE_NOT_FOUND",
    "../sales.csv": "PATH_NOT_ALLOWED",
}

BOUNDARY_FILES = {
    "empty.csv": "",
    "header_only.csv": "category,quantity,unit_price\n",
    "no_price.csv": "category,quantity\n键盘,3\n",
}


def check_predict_boundary(answer: Any) -> Verdict:
    need_prediction(answer, list(PREDICT_BOUNDARY))
    data = Path(tempfile.mkdtemp(prefix="agentlab-exercise-")) / "data"
    try:
        shutil.copytree(COURSE_DATA_DIR, data)
        for name, text in BOUNDARY_FILES.items():
            (data / "input" / name).write_text(text, encoding="utf-8")
        sales = (data / "input" / "sales.csv").read_text(encoding="utf-8")
        (data / "input" / "negative.csv").write_text(sales + "耳机,-2,99\n", encoding="utf-8")
        tools = sales_tools(data)
        actual = {}
        for name in PREDICT_BOUNDARY:
            result = tools.call("analyze_csv", json.dumps({"relative_path": name}))
            actual[name] = "ok" if result["status"] == "ok" else result["error"]["code"]
    finally:
        shutil.rmtree(data.parent, ignore_errors=True)
    return predict("02-boundary", answer, actual)


# -- 02-dispatch: whitelist by hand ------------------------------------------------------


def dispatch(tools, name, arguments_json):
    if name not in tools:  # the whitelist: only registered names run
        return error("UNKNOWN_TOOL", f"no tool named {name!r}; allowed: {', '.join(tools)}")
    try:
        arguments = json.loads(arguments_json) if (arguments_json or "").strip() else {}
    except json.JSONDecodeError as exc:
        return error("INVALID_ARGUMENTS", f"arguments are not valid JSON: {exc.msg}")
    if not isinstance(arguments, dict):
        return error("INVALID_ARGUMENTS", "arguments must be a JSON object")
    try:
        return tools[name](**arguments)
    except Exception as exc:  # a broken tool must not break the loop
        return error("TOOL_EXCEPTION", f"{name} raised {type(exc).__name__}: {exc}")


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
    ("none", "today", None, None),  # no arguments at all, as some services send them
)


def check_dispatch(answer: Any) -> Verdict:
    need_callable(answer, "dispatch")
    for probe, name, arguments, code in DISPATCH_PROBES:
        what = tr(f"exercise.02-dispatch.probe.{probe}", name=name, arguments=arguments)
        got = run_student(answer, dict(DISPATCH_TOOLS), name, arguments, what=what)
        if code is None:
            expected = DISPATCH_TOOLS[name](**(json.loads(arguments) if arguments else {}))
            if got != expected:
                key = "exercise.02-dispatch.result"
                return wrong(tr(key, what=what, expected=_said(expected), got=_said(got)))
            continue
        if isinstance(got, dict) and "status" not in got:
            key = "exercise.02-dispatch.not_a_result"
            return wrong(tr(key, what=what, code=code, got=shown(got)))
        failure = got.get("error") if isinstance(got, dict) else None
        got_code = failure.get("code") if isinstance(failure, dict) else None
        if not isinstance(got, dict) or got.get("status") != "error" or got_code != code:
            return wrong(tr("exercise.02-dispatch.code", what=what, code=code, got=_said(got)))
    return passed(tr("exercise.02-dispatch.passed"))


def _said(result: Any) -> str:
    """A result as the student should read it: an error's code and message apart, so that
    the message (the cause) is not cut off behind the rest of the dict."""
    failure = result.get("error") if isinstance(result, dict) else None
    if isinstance(result, dict) and result.get("status") == "error" and isinstance(failure, dict):
        code, message = shown(failure.get("code")), shown(failure.get("message"), 160)
        return f"status='error', code={code}, message={message}"
    return shown(result, 120)


# -- 02-capped-loop: the cap and the ending ----------------------------------------------


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


ANSWERS_AT_CAP = Scenario("answers_at_cap", "todo_clerk", TODO_TASK, 3)
CAP_ONE = Scenario("cap_one", "todo_clerk", TODO_TASK, 1)
CAP_ZERO = Scenario("cap_zero", "todo_clerk", TODO_TASK, 0)  # a do-while asks once anyway
CAPPED_SCENARIOS = (
    HONEST,
    UNKNOWN_TOOL,
    ANSWERS_AT_CAP,
    CAP_ONE,
    CAP_ZERO,
    NEVER_STOPS,
    NEVER_STOPS_TWO_CALLS,
)


def prepare_capped_loop() -> None:
    for scenario in CAPPED_SCENARIOS:
        reference_run(scenario)


def check_capped_loop(answer: Any) -> Verdict:
    need_callable(answer, "capped_loop")
    for scenario in CAPPED_SCENARIOS:
        ref, ending = reference_run(scenario)
        got = student_run(answer, scenario, "capped_loop")
        compare(got, ref, scenario, ending)
        returned, name = got.returned, scenario.name
        if not isinstance(returned, tuple | list) or len(returned) != 2:
            key = "exercise.02-capped-loop.return_pair"
            return wrong(tr(key, scenario=name, got=type_name(returned)))
        messages, got_ending = returned
        if isinstance(messages, str) and isinstance(got_ending, list | tuple):
            key = "exercise.02-capped-loop.reversed"
            return wrong(tr(key, scenario=name, got=shown(messages)))
        check_returned_messages(messages, ref, scenario, "capped_loop")
        if not isinstance(got_ending, str):
            key = "exercise.02-capped-loop.ending_not_str"
            return wrong(tr(key, scenario=name, got=shown(got_ending), kind=type_name(got_ending)))
        if got_ending != ending:
            key, cap, steps = (
                f"exercise.02-capped-loop.ending_{ending}",
                scenario.max_steps,
                len(ref.requests),
            )
            return wrong(tr(key, scenario=name, cap=cap, steps=steps, got=shown(got_ending)))
    return passed(tr("exercise.02-capped-loop.passed", count=len(CAPPED_SCENARIOS)))


# -- 02-stub-test: a unit test with a stub client ----------------------------------------


def test_step_cap(loop):
    cap = 4
    stub = ScriptedClient([call("analyze_csv", relative_path="sales.csv")] * 100, name="stub")
    messages, ending = loop("分析 sales.csv", stub, sales_tools(), cap)
    assert len(stub.requests) <= cap, f"{len(stub.requests)} requests with max_steps={cap}"
    assert ending == "max_steps", ending


@functools.cache
def stub_loops() -> tuple[tuple[str, Callable[..., Any], bool], ...]:
    """(text key naming the loop, the loop handed to the student's test, must it pass?)."""
    mistakes = {m["label"]: Mistake.read(m) for m in unit("02-capped-loop")["mistakes"]}
    one_extra = mistakes["range(max_steps + 1): one request too many"]
    lies = mistakes["always reports answered"]
    return (
        ("correct", capped_loop, True),
        ("one_extra", one_extra.answer(capped_loop), False),
        ("lies", lies.answer(capped_loop), False),
    )


def _unnamed(loop: Callable[..., Any], crashed: list[BaseException]) -> Callable[..., Any]:
    """``loop`` under one name for every loop (a test must judge what it does), noting in
    ``crashed`` what it raised (a stub that ran out of replies: HTTP 500)."""

    def wrapped(task: str, client: Any, tools: Any, max_steps: int) -> Any:
        try:
            return loop(task, client, tools, max_steps)
        except Exception as exc:
            crashed.append(exc)
            raise

    wrapped.__name__ = wrapped.__qualname__ = "loop"  # what an error message names
    return wrapped


def check_stub_test(answer: Any) -> Verdict:
    need_callable(answer, "test_step_cap")
    for key, loop, should_pass in stub_loops():
        what = tr(f"exercise.02-stub-test.loop.{key}")
        returned, crashed = None, []
        try:
            returned = run_student(answer, _unnamed(loop, crashed), what=what)
            test_passed = True
        except OutOfTime:
            raise  # a test still running at the limit neither passed nor caught anything
        except Judged as judged:
            if judged.verdict.status != "wrong":
                raise
            failure = judged.verdict.detail
            test_passed = False
        if should_pass and not test_passed:
            return wrong(tr("exercise.02-stub-test.fails_correct", detail=failure))
        if not should_pass and crashed:  # failed, but by the loop's error, not by an assert
            return wrong(tr("exercise.02-stub-test.loop_crashed", error=describe(crashed[0])))
        if not should_pass and test_passed:
            missed = tr(f"exercise.02-stub-test.missed.{key}")
            if returned is not None:  # a verdict returned is a verdict nobody reads
                missed += tr("exercise.02-stub-test.returned", got=shown(returned))
            elif any("AssertionError" in code.co_names for code in code_of(answer)):
                missed += tr("exercise.02-stub-test.caught")  # except AssertionError: ...
            return wrong(missed)
    return passed(tr("exercise.02-stub-test.passed"))


EXERCISES = [
    Exercise("02-predict-cap1", check_predict_cap1, PREDICT_CAP1),
    Exercise("02-predict-four-ok", check_predict_four_ok, PREDICT_FOUR_OK),
    Exercise("02-predict-recover", check_predict_recover, PREDICT_RECOVER),
    Exercise("02-dispatch", check_dispatch, dispatch),
    Exercise("02-capped-loop", check_capped_loop, capped_loop, prepare_capped_loop),
    Exercise("02-stub-test", check_stub_test, test_step_cap),
    Exercise("02-boundary", check_predict_boundary, PREDICT_BOUNDARY),
]

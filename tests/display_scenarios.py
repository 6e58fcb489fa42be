"""Every run the chapters show, replayed for the display tests and the browser check.

``course_runs(trace_dir)`` plays the scenarios of chapter 01 (the file
agent), chapter 02 (the three endings), the fault scenarios of chapters 03
and 04 (plus truncation and folding), and the runs those chapters added
later (per-turn cap, unknown tool, token budget, alternating polls, a tool's
own timeout, real providers replayed from the corpus), and returns them by
name. Most use the notebooks' clients, tools and budgets; the per-turn cap and
the unknown tool are shorter scripts that end the same way. Each run has a fixed
``task_id`` so its display does not depend on a random id.

Run as a script (with the course's ``.venv``), it writes what the browser
check opens::

    python tests/display_scenarios.py OUT_DIR

``OUT_DIR/viewer/<task_id>.html`` (``agentlab trace`` of each run's trace),
``OUT_DIR/display.html`` (every run's ``run_html`` on one page) and
``OUT_DIR/expected.json`` (what each page must show).

It only plays runs; the assertions live in ``tests/course/test_display.py`` and
``tests/browser/check_display.py``.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentlab import Budget, RunResult, run_agent
from agentlab.clients import (
    Conversation,
    Hang,
    Reply,
    ScriptedClient,
    ToolCall,
    call,
    honest_analyst,
    say,
    scripted,
)
from agentlab.clients.recording import ReplayClient, corpus_recording
from agentlab.course.faults import (
    HangingTool,
    fault_tools,
    flaky,
    keeps_calling,
    slow_check,
    wanders,
)
from agentlab.tools import Tool, ToolRegistry, error, file_tools, ok, sales_tools, sandbox_copy
from agentlab.tools.sales import COURSE_DATA_DIR

TODO_TASK = "读一下 meeting.md，把里面所有以 TODO 开头的行抽出来，汇总写进 todo-list.md，然后汇报。"
SALES_QUESTION = "分析 data/input/sales.csv，告诉我销售额最高的类别、各类别销售额和总销售额。"
# Chapter 03's deadline scenarios, with times scaled up (0.08 s -> 0.25 s, the
# model's 0.06 s -> 0.15 s): the same endings, with room to spare on a busy machine.
DEADLINE_S = 0.25
SLOW_MODEL_S = 0.15
HANG_S = 1.0  # hangs outlast every deadline here; far shorter than the notebooks' 600 s

# Chapter 04's replays: a thinking model's stream, and a 400 whose body explains itself.
PROVIDER_STREAM = "deepseek/deepseek-v4-flash-tool-call-stream"
PROVIDER_400 = "deepseek/deepseek-reasoner-missing-reasoning-content-400"

CHAPTER_01 = ("loop", "corrected", "capped", "refused", "stopped", "streamed", "appended")
CHAPTER_02 = ("sales-ok", "sales-missing", "sales-endless")
# The scenarios of the fault tables (chapters 03 and 04), plus truncation and folding.
FAULT_SCENARIOS = (
    "repeat",
    "strict",
    "wander",
    "hung-decide",
    "hung-tool",
    "hung-complete",
    "shared",
    "isolated",
    "flaky-0",
    "flaky-2",
    "denied",
    "denied-fb",
    "logic",
    "done-when",
    "huge",
    "fold",
)
# Runs the chapters show besides their tables: chapter 02's per-turn cap and
# unknown tool, chapter 03's token budget, alternating polls and per-tool
# timeout, chapter 04's replays of real providers (a thinking model's stream,
# a 400 error body).
MORE_SCENARIOS = (
    "per-turn",
    "unknown-tool",
    "tokens",
    "alternate",
    "tool-timeout",
    "replay-reasoning",
    "replay-400",
)
WRAP_UP = ("wrap-up",)  # Budget(wrap_up=True): a reserved last step gives a partial answer
UNTRUSTED = ("escaped",)  # a tool result and an answer full of markup
ALL = CHAPTER_01 + CHAPTER_02 + FAULT_SCENARIOS + MORE_SCENARIOS + WRAP_UP + UNTRUSTED


def course_runs(trace_dir: str | Path | bool = False) -> dict[str, RunResult]:
    """Every scenario of the chapters, by ``task_id``, in the order of :data:`ALL`."""
    plays = scenarios()
    assert tuple(plays) == ALL
    return {task_id: plays[task_id](task_id=task_id, trace_dir=trace_dir) for task_id in ALL}


def scenarios() -> dict[str, Callable[..., RunResult]]:
    """``task_id`` -> a function playing that run with ``task_id=`` and ``trace_dir=``."""
    faults, _ = fault_tools(hang_seconds=HANG_S)
    tests_registry = _flaky_tests()
    sales = sales_tools()
    seed = Budget.seed_table()

    def files() -> ToolRegistry:
        return file_tools(sandbox_copy())

    def clerk(task: str = TODO_TASK, **options: Any) -> Callable[..., RunResult]:
        return lambda **o: run_agent(
            task, client=scripted("todo_clerk"), tools=files(), **options, **o
        )

    def appended(**o: Any) -> RunResult:
        appender = ScriptedClient(
            [
                call("write_text", rel_path="notes.md", text="TODO 会后补充：整理回滚预案\n"),
                call("write_text", rel_path="../escape.md", text="不该写到外面"),
                say("已写入一条 TODO；越界路径被拒绝。"),
            ]
        )
        return run_agent("写一条 TODO", client=appender, tools=files(), **o)

    hung_budget = Budget(max_seconds=DEADLINE_S)
    return {
        # chapter 01: the file agent
        "loop": clerk(),
        "corrected": clerk(TODO_TASK.replace("meeting.md", "meeting-notes.md")),
        "capped": clerk(budget=Budget(max_steps=2)),
        "refused": clerk("读一下 ../mini_agent.py", permission_errors="feed_back"),
        "stopped": clerk("读一下 ../mini_agent.py"),
        "streamed": clerk(stream=True, on_text=None),
        "appended": appended,
        # chapter 02: the three endings
        "sales-ok": lambda **o: run_agent(
            SALES_QUESTION,
            client=scripted("honest_analyst"),
            tools=sales,
            budget=Budget(max_steps=4),
            **o,
        ),
        "sales-missing": lambda **o: run_agent(
            "分析 data/input/sales_2023.csv 的销售额",
            client=scripted("honest_analyst"),
            tools=sales,
            budget=Budget(max_steps=4),
            **o,
        ),
        "sales-endless": lambda **o: run_agent(
            SALES_QUESTION,
            client=scripted("never_stops"),
            tools=sales,
            budget=Budget(max_steps=4),
            **o,
        ),
        # chapter 03: every fault scenario
        "repeat": lambda **o: run_agent(
            "等夜间构建跑完",
            client=ScriptedClient(keeps_calling("same_result", {"job": "nightly"})),
            tools=faults,
            budget=seed,
            **o,
        ),
        "strict": lambda **o: run_agent(
            "等夜间构建跑完",
            client=ScriptedClient(keeps_calling("same_result", {"job": "nightly"})),
            tools=faults,
            budget=Budget.strict_repeats(),
            **o,
        ),
        "wander": lambda **o: run_agent(
            "取回报表",
            client=ScriptedClient(wanders("always_fails", "mirror")),
            tools=faults,
            budget=seed,
            **o,
        ),
        "hung-decide": lambda **o: run_agent(
            "x", client=ScriptedClient([Hang(HANG_S)]), tools=faults, budget=hung_budget, **o
        ),
        "hung-tool": lambda **o: run_agent(
            "x", client=ScriptedClient([call("hang")]), tools=faults, budget=hung_budget, **o
        ),
        "hung-complete": lambda **o: run_agent(
            "x",
            client=ScriptedClient([say("做完了")]),
            tools=faults,
            budget=hung_budget,
            done_when=slow_check(HANG_S),
            **o,
        ),
        "shared": lambda **o: run_agent(
            "x",
            client=ScriptedClient([Hang(SLOW_MODEL_S, then=call("hang"))]),
            tools=faults,
            budget=hung_budget,
            **o,
        ),
        "isolated": lambda **o: run_agent(
            "x",
            client=ScriptedClient([call("hang_isolated")]),
            tools=faults,
            budget=Budget(max_seconds=0.3),
            **o,
        ),
        "flaky-0": lambda **o: run_agent(
            "分析 sales.csv", client=ScriptedClient(flaky(honest_analyst)), tools=sales, **o
        ),
        "flaky-2": lambda **o: run_agent(
            "分析 sales.csv",
            client=ScriptedClient(flaky(honest_analyst)),
            tools=sales,
            budget=Budget(max_retries=2, retry_backoff_s=0.01),
            **o,
        ),
        "denied": lambda **o: run_agent(
            "清理磁盘",
            client=ScriptedClient([call("permission_denied", path="/"), say("好")]),
            tools=faults,
            **o,
        ),
        "denied-fb": lambda **o: run_agent(
            "清理磁盘",
            client=ScriptedClient([call("permission_denied", path="/"), say("没有权限，已停止")]),
            tools=faults,
            permission_errors="feed_back",
            **o,
        ),
        "logic": lambda **o: run_agent(
            "修好测试",
            client=ScriptedClient([call("run_tests"), call("run_tests"), say("测试全部通过")]),
            tools=tests_registry(),
            **o,
        ),
        "done-when": _done_when,
        "huge": lambda **o: run_agent(
            "跑一次构建",
            client=ScriptedClient([call("huge_output"), say("构建失败：module_17 和 3 个测试")]),
            tools=faults,
            budget=Budget(max_tool_output_chars=3000),
            **o,
        ),
        "fold": lambda **o: run_agent(
            "找出销售文件",
            client=ScriptedClient(wanders("analyze_csv", "relative_path")),
            tools=sales,
            budget=Budget(max_steps=4),
            fold_after_steps=2,
            **o,
        ),
        # more runs of chapters 02-04
        "per-turn": lambda **o: run_agent(
            "比较三个月的销售额",
            client=ScriptedClient(
                [
                    Reply(
                        tool_calls=(ToolCall("analyze_csv", {"relative_path": "sales.csv"}),) * 3
                    ),
                    say("这一轮只执行了第一个调用，其余两个被每轮上限拒绝。"),
                ]
            ),
            tools=sales,
            budget=Budget(max_steps=4, max_tool_calls_per_turn=1),
            **o,
        ),
        "unknown-tool": lambda **o: run_agent(
            SALES_QUESTION,
            client=ScriptedClient(
                [call("delete_file", path="sales.csv"), say("没有 delete_file 这个工具，不删了。")]
            ),
            tools=sales,
            **o,
        ),
        "tokens": lambda **o: run_agent(
            SALES_QUESTION,
            client=scripted("never_stops"),
            tools=sales,
            budget=Budget(max_tokens=2000),
            **o,
        ),
        "alternate": lambda **o: run_agent(
            "等两个构建跑完",
            client=ScriptedClient(_alternate_jobs),
            tools=faults,
            budget=seed,
            **o,
        ),
        "tool-timeout": lambda **o: run_agent(
            "夜间构建好了吗？",
            client=ScriptedClient(_poll_once),
            tools=ToolRegistry(
                [Tool("check_status", "查询构建状态。", {}, HangingTool(HANG_S), timeout=0.1)]
            ),
            **o,
        ),
        "replay-reasoning": _replay_reasoning,
        "replay-400": lambda **o: run_agent(
            "（回放）",
            client=ReplayClient(corpus_recording(PROVIDER_400)),
            tools=ToolRegistry([]),
            budget=Budget(max_retries=2, retry_backoff_s=0.01),
            **o,
        ),
        "wrap-up": lambda **o: run_agent(
            SALES_QUESTION,
            client=scripted("never_stops"),
            tools=sales,
            budget=Budget(max_steps=4, wrap_up=True),
            **o,
        ),
        # a tool result that tries to inject markup: it must show as text
        "escaped": lambda **o: run_agent(
            "看看网页",
            client=ScriptedClient(
                [call("fetch", url="https://example.invalid/<b>"), say("<i>完</i>")]
            ),
            tools=ToolRegistry(
                [
                    Tool(
                        "fetch",
                        "Fetch a page.",
                        {"properties": {"url": {"type": "string"}}},
                        lambda url: ok({"html": "<script>alert('x')</script><b>bold</b>"}),
                    )
                ]
            ),
            **o,
        ),
    }


def _alternate_jobs(conversation: Conversation) -> Reply:
    """Chapter 03's poller: job "a" on odd requests, "b" on even ones, never an answer."""
    return call("same_result", job="a" if conversation.request_number % 2 else "b")


def _poll_once(conversation: Conversation) -> Reply:
    """Ask for the status once, then report honestly what came back."""
    result = conversation.last_tool_result()
    if result is None:
        return call("check_status")
    return say(f"状态服务没有响应（{result['error']['code']}），我不猜结果。")


def _replay_reasoning(**o: Any) -> RunResult:
    """Chapter 04's replay of a thinking model's recorded stream (tools echo their arguments)."""
    facts = json.loads(
        (COURSE_DATA_DIR / "providers" / f"{PROVIDER_STREAM}.json").read_text(encoding="utf-8")
    )
    echo = [
        Tool(c["name"], "示例工具", {"additionalProperties": True}, lambda **args: ok(args))
        for c in facts["expect"]["tool_calls"]
    ]
    client = ReplayClient(corpus_recording(PROVIDER_STREAM, answer="（这句回答是课程构造的）"))
    return run_agent(
        "（回放）",
        client=client,
        tools=ToolRegistry(echo),
        model=client.model,
        stream=facts["stream"],
        on_text=None,
        **o,
    )


def _flaky_tests() -> Callable[[], ToolRegistry]:
    """A fresh ``run_tests`` tool per run: it fails once (a logic error), then passes."""

    def make() -> ToolRegistry:
        outcomes = iter(
            [
                error("TESTS_FAILED", "2 tests failed: test_deadline, test_repeat"),
                ok({"passed": 41}),
            ]
        )
        return ToolRegistry([Tool("run_tests", "Run the tests.", {}, lambda: next(outcomes))])

    return make


def _done_when(**o: Any) -> RunResult:
    box = sandbox_copy()

    def report_written(answer: str) -> bool | str:
        report = box / "report.md"
        if report.exists() and "总销售额" in report.read_text(encoding="utf-8"):
            return True
        return "report.md 还不存在或缺少总销售额"

    eager = ScriptedClient(
        [
            say("报告写好了！"),
            call("write_text", rel_path="report.md", text="总销售额 9692\n"),
            say("这次真的写好了"),
        ]
    )
    return run_agent(
        "写销售报告", client=eager, tools=file_tools(box), done_when=report_written, **o
    )


def expected(result: RunResult) -> dict[str, Any]:
    """What a page showing ``result`` must say: badge codes, steps, each call's kind and code."""
    calls = []
    for record in result.tool_results:
        code = (record["result"].get("error") or {}).get("code")
        calls.append({"step": record["step"], "tool": record["tool"], "code": code or ""})
    return {
        "task_id": result.task_id,
        "status": result.status,
        "outcome": result.outcome,
        "stop_reason": result.stop_reason,
        "phase": result.phase or "",
        "steps": result.steps,
        "calls": calls,
        "truncated": any(r["truncated_chars"] for r in result.tool_results),
    }


def main(out: Path) -> None:
    """Play every scenario with traces; write the viewer pages, one display page, expectations."""
    from agentlab.course.display import run_html, trace_html
    from agentlab.ops.cli import main as cli_main

    runs = course_runs(out / "runs")
    viewer = out / "viewer"
    viewer.mkdir(parents=True, exist_ok=True)
    for task_id, result in runs.items():
        target = viewer / f"{task_id}.html"
        with contextlib.redirect_stdout(io.StringIO()):  # it prints the path it wrote
            code = cli_main(["trace", str(result.trace_path), "--out", str(target)])
        assert code == 0 and target.exists(), (task_id, code)
    # every run's fragment in the head of a trace page (its viewport and page style)
    empty = trace_html([])
    head = empty[: empty.index("<body>") + len("<body>")]
    page = head + "\n".join(run_html(r) for r in runs.values()) + "</body></html>\n"
    (out / "display.html").write_text(page, encoding="utf-8")
    facts = {task_id: expected(r) for task_id, r in runs.items()}
    facts["_fault_scenarios"] = list(FAULT_SCENARIOS)
    (out / "expected.json").write_text(json.dumps(facts, ensure_ascii=False, indent=1), "utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
